import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, EmptyBody, errorResponses, succeeded } from '../../http/schemas.ts';
import { wrongParameter } from '../../http/errors.ts';
import type { Merchant, MerchantsService } from '../merchants/index.ts';
import { Customer, normalizeEmail, payoutMethods, type CustomersService } from '../customers/index.ts';
import { privateTargetsLiveWarning } from '../webhooks/index.ts';

const MerchantSchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  email: Type.String(),
  liveEnabled: Type.Boolean(),
  fraudReportWebhooksEnabled: Type.Boolean(),
  rateLimitPerSecond: Type.Union([Type.Integer(), Type.Null()], { description: "The merchant-wide limit (requests per second over all its API keys); null = the server's MERCHANT_RATE_LIMIT_PER_SECOND." }),
  rateLimitBurst: Type.Union([Type.Integer(), Type.Null()], { description: "The merchant-wide burst; null = the server's MERCHANT_RATE_LIMIT_BURST." }),
  createdAt: Type.Integer(),
});

const ApiKeySchema = Type.Object({
  id: Type.String(),
  name: Type.String(),
  last4: Type.String(),
  createdAt: Type.Integer(),
  lastUsedAt: Type.Union([Type.Integer(), Type.Null()]),
  revokedAt: Type.Union([Type.Integer(), Type.Null()]),
});

const MerchantParams = Type.Object({ merchantId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

function merchantView(merchant: Merchant) {
  return {
    id: merchant.id,
    name: merchant.name,
    email: merchant.email,
    liveEnabled: merchant.liveEnabled,
    fraudReportWebhooksEnabled: merchant.fraudReportWebhooksEnabled,
    rateLimitPerSecond: merchant.rateLimitPerSecond,
    rateLimitBurst: merchant.rateLimitBurst,
    createdAt: merchant.createdAt.getTime(),
  };
}

const millis = (date: Date | null) => (date ? date.getTime() : null);

/** The operator API (`/admin/v1`, bearer ADMIN_API_KEY): merchants, keys, live access, settings. */
export function registerAdminRoutes(admin: Api, services: { merchants: MerchantsService; customers: CustomersService }, deps: { webhookAllowPrivateTargets: boolean }): void {
  const { merchants, customers } = services;
  const tags = ['Admin'];
  const security = [{ adminBearer: [] }];

  admin.post(
    '/merchants',
    {
      schema: {
        tags,
        security,
        operationId: 'adminMerchants_create',
        summary: 'Create a merchant with its first API key and dashboard user',
        body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), email: Type.String({ maxLength: 254 }) }, { additionalProperties: false }),
        response: {
          200: Envelope(
            Type.Object({
              merchant: Type.Object({ id: Type.String(), name: Type.String(), liveEnabled: Type.Boolean() }),
              apiKey: Type.String({ description: 'Shown once.' }),
              dashboardUser: Type.Object({ email: Type.String(), password: Type.String({ description: 'Shown once.' }) }),
            }),
          ),
          ...errorResponses(),
        },
      },
    },
    async (request) => {
      const name = request.body.name.trim();
      if (name === '') {
        throw wrongParameter('name', 'must not be blank');
      }
      return succeeded(await merchants.createMerchant({ name, email: normalizeEmail('email', request.body.email) }));
    },
  );

  admin.get('/merchants', { schema: { tags, security, operationId: 'adminMerchants_list', summary: 'List merchants', response: { 200: Envelope(Type.Array(MerchantSchema)), ...errorResponses() } } }, async () =>
    succeeded((await merchants.listMerchants()).map(merchantView)),
  );

  admin.get(
    '/merchants/:merchantId',
    { schema: { tags, security, operationId: 'adminMerchants_retrieve', summary: 'Read a merchant', params: MerchantParams, response: { 200: Envelope(MerchantSchema), ...errorResponses(404) } } },
    async (request) => succeeded(merchantView(await merchants.getMerchant(request.params.merchantId))),
  );

  admin.post(
    '/merchants/:merchantId/live',
    {
      schema: {
        tags,
        security,
        operationId: 'adminMerchants_enableLive',
        summary: 'Enable live mode',
        description: '`warnings` (present only when there is one) tells the operator about settings that matter once a merchant is live, such as WEBHOOK_ALLOW_PRIVATE_TARGETS=true.',
        params: MerchantParams,
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(Type.Object({ ...MerchantSchema.properties, warnings: Type.Optional(Type.Array(Type.String())) })), ...errorResponses(404) },
      },
    },
    async (request) => {
      const merchant = merchantView(await merchants.enableLive(request.params.merchantId));
      return succeeded(deps.webhookAllowPrivateTargets ? { ...merchant, warnings: [privateTargetsLiveWarning] } : merchant);
    },
  );

  admin.post(
    '/merchants/:merchantId/settings',
    {
      schema: {
        tags,
        security,
        operationId: 'adminMerchants_updateSettings',
        summary: 'Change merchant settings',
        params: MerchantParams,
        description:
          'Every field is optional; what is left out is unchanged. `rateLimitPerSecond` and `rateLimitBurst` (set together, burst ≥ rate; `null` for both returns to the server default) size the merchant-wide rate limit: all its API keys share it, on top of each key\'s own limit. A change reaches every API process within 2 s.',
        body: Type.Object(
          {
            fraudReportWebhooksEnabled: Type.Optional(Type.Boolean()),
            rateLimitPerSecond: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()])),
            rateLimitBurst: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 1_000_000 }), Type.Null()])),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(MerchantSchema), ...errorResponses(400, 404) },
      },
    },
    async (request) => succeeded(merchantView(await merchants.updateSettings(request.params.merchantId, request.body))),
  );

  admin.post(
    '/merchants/:merchantId/api_keys',
    {
      schema: {
        tags,
        security,
        operationId: 'adminApiKeys_create',
        summary: 'Create an API key (shown once)',
        params: MerchantParams,
        // No body (validated as null), `{}` or `{name}`.
        body: Type.Union([Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })) }, { additionalProperties: false }), Type.Null()]),
        response: { 200: Envelope(Type.Object({ id: Type.String(), name: Type.String(), apiKey: Type.String(), createdAt: Type.Integer() })), ...errorResponses(404) },
      },
    },
    async (request) => {
      const name = request.body?.name?.trim() ?? 'API key';
      if (name === '') {
        throw wrongParameter('name', 'must not be blank');
      }
      const created = await merchants.createApiKey(request.params.merchantId, name);
      return succeeded({ ...created, createdAt: created.createdAt.getTime() });
    },
  );

  admin.get(
    '/merchants/:merchantId/api_keys',
    { schema: { tags, security, operationId: 'adminApiKeys_list', summary: 'List API keys', params: MerchantParams, response: { 200: Envelope(Type.Array(ApiKeySchema)), ...errorResponses(404) } } },
    async (request) =>
      succeeded(
        (await merchants.listApiKeys(request.params.merchantId)).map((key) => ({
          ...key,
          createdAt: key.createdAt.getTime(),
          lastUsedAt: millis(key.lastUsedAt),
          revokedAt: millis(key.revokedAt),
        })),
      ),
  );

  admin.post(
    '/merchants/:merchantId/api_keys/:keyId/revoke',
    {
      schema: {
        tags,
        security,
        operationId: 'adminApiKeys_revoke',
        summary: 'Revoke an API key',
        params: Type.Object({ merchantId: Type.String({ maxLength: 100 }), keyId: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(Type.Object({ id: Type.String(), revoked: Type.Literal(true) })), ...errorResponses(404) },
      },
    },
    async (request) => {
      await merchants.revokeApiKey(request.params.merchantId, request.params.keyId);
      return succeeded({ id: request.params.keyId, revoked: true as const });
    },
  );

  admin.get(
    '/merchants/:merchantId/pii_keys',
    {
      schema: {
        tags,
        security,
        operationId: 'adminPiiKeys_list',
        summary: "Reveal the merchant's PII keys (JWE decryption keys, base64url)",
        params: MerchantParams,
        response: { 200: Envelope(Type.Array(Type.Object({ id: Type.String(), key: Type.String(), active: Type.Boolean(), createdAt: Type.Integer() }))), ...errorResponses(404) },
      },
    },
    async (request) => succeeded((await merchants.revealPiiKeys(request.params.merchantId)).map((key) => ({ ...key, createdAt: key.createdAt.getTime() }))),
  );

  admin.post(
    '/merchants/:merchantId/pii_keys/rotate',
    {
      schema: {
        tags,
        security,
        operationId: 'adminPiiKeys_rotate',
        summary: 'Rotate the merchant PII key (new responses use the new key; old keys stay readable)',
        params: MerchantParams,
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(Type.Array(Type.Object({ id: Type.String(), key: Type.String(), active: Type.Boolean(), createdAt: Type.Integer() }))), ...errorResponses(404) },
      },
    },
    async (request) => {
      await merchants.rotatePiiKey(request.params.merchantId);
      return succeeded((await merchants.revealPiiKeys(request.params.merchantId)).map((key) => ({ ...key, createdAt: key.createdAt.getTime() })));
    },
  );

  admin.post(
    '/customers/:customerId/supported_payout_methods',
    {
      schema: {
        tags,
        security,
        operationId: 'adminCustomers_setSupportedPayoutMethods',
        summary: "Set a customer's supported payout methods",
        params: Type.Object({ customerId: Type.String({ maxLength: 100 }) }, { additionalProperties: false }),
        body: Type.Object(
          { supportedPayoutMethods: Type.Array(Type.Union(payoutMethods.map((method) => Type.Literal(method))), { uniqueItems: true, minItems: 1 }) },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(Customer), ...errorResponses(404) },
      },
    },
    async (request) => succeeded(await customers.setSupportedPayoutMethods(request.params.customerId, request.body.supportedPayoutMethods)),
  );
}
