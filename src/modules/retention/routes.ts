import { Type, type TSchema } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, errorResponses, succeeded } from '../../http/schemas.ts';
import { retentionCategories, retentionRules, type RetentionCategory } from '../../config/retention.ts';
import type { RetentionService, RetentionSetting, RetentionSettingsUpdate } from './service.ts';

const RetentionSettingSchema = Type.Object({
  value: Type.Integer({ description: 'What applies now: the override, else the environment default.' }),
  unit: Type.Union([Type.Literal('days'), Type.Literal('hours')]),
  defaultValue: Type.Integer({ description: 'The environment value (RETENTION_*), or the built-in default.' }),
  source: Type.Union([Type.Literal('environment'), Type.Literal('override')]),
  minimum: Type.Integer(),
  maximum: Type.Integer(),
});

const RetentionSettingsSchema = Type.Object(
  Object.fromEntries(retentionCategories.map((category) => [retentionRules[category].field, RetentionSettingSchema])) as Record<string, typeof RetentionSettingSchema>,
);

const UpdateBody = Type.Object(
  Object.fromEntries(
    retentionCategories.map((category) => {
      const rule = retentionRules[category];
      return [
        rule.field,
        Type.Optional(
          Type.Union([Type.Integer({ minimum: rule.minimum, maximum: rule.maximum }), Type.Null()], {
            description: `${rule.meaning} Integer ${rule.minimum}–${rule.maximum} (${rule.unit}); null returns to ${rule.variable}.`,
          }),
        ),
      ];
    }),
  ) as Record<string, TSchema>,
  { additionalProperties: false },
);

function settingsView(settings: RetentionSetting[]) {
  return Object.fromEntries(
    settings.map((setting) => {
      const rule = retentionRules[setting.category];
      return [setting.field, { value: setting.value, unit: setting.unit, defaultValue: setting.defaultValue, source: setting.source, minimum: rule.minimum, maximum: rule.maximum }];
    }),
  );
}

/** `GET` and `POST /admin/v1/retention`: the operator's retention settings (docs/guides/configuration.md, Retention). */
export function registerRetentionAdminRoutes(admin: Api, retention: RetentionService): void {
  const tags = ['Admin'];
  const security = [{ adminBearer: [] }];
  const description =
    'How long Paysail keeps KYC details after a customer\'s last activity, e-mail bodies, webhook delivery logs and idempotency records. The environment (RETENTION_*) gives the defaults; an override set here wins over it until it is cleared with `null`. The hourly `retention.purge` job removes what is past its time; `paysail retention status` shows what is due.';

  admin.get(
    '/retention',
    { schema: { tags, security, operationId: 'adminRetention_retrieve', summary: 'Read the retention settings', description, response: { 200: Envelope(RetentionSettingsSchema), ...errorResponses() } } },
    async () => succeeded(settingsView(await retention.getSettings())),
  );

  admin.post(
    '/retention',
    {
      schema: {
        tags,
        security,
        operationId: 'adminRetention_update',
        summary: 'Change the retention settings',
        description: `${description} Every field is optional; what is left out is unchanged. A value out of bounds → 400 WRONG_PARAMETER naming the field, and nothing is changed.`,
        body: UpdateBody,
        response: { 200: Envelope(RetentionSettingsSchema), ...errorResponses(400) },
      },
    },
    async (request) => {
      const body = request.body as Record<string, number | null | undefined>;
      const update: RetentionSettingsUpdate = {};
      for (const category of retentionCategories) {
        const value = body[retentionRules[category].field];
        if (value !== undefined) {
          update[category as RetentionCategory] = value;
        }
      }
      return succeeded(settingsView(await retention.updateSettings(update)));
    },
  );
}
