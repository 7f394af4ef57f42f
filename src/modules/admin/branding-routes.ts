import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, errorResponses, succeeded } from '../../http/schemas.ts';
import { wrongParameter } from '../../http/errors.ts';
import { displayNameMaxLength, type BrandingChange, type BrandingService, type BrandingSettings } from '../merchants/index.ts';
import { logoMaxBytes } from '../merchants/index.ts';

const nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

const BrandingSchema = Type.Object({
  displayName: nullable(Type.String({ description: "Shown on hosted pages and in e-mails instead of the merchant's name." })),
  brandColor: nullable(Type.String({ description: 'Primary buttons and focus rings on hosted pages, the accent of e-mails (`#rrggbb`).' })),
  buttonTextColor: nullable(Type.String({ description: 'The text colour buttons get on `brandColor`: `#ffffff` or `#0f172a`, whichever contrasts more (at least 4.5:1).' })),
  supportEmail: nullable(Type.String({ description: "Where customers ask for help; null = the merchant's account address." })),
  supportUrl: nullable(Type.String({ description: 'A help page (https) linked beside the support e-mail.' })),
  logoUrl: nullable(Type.String({ description: 'The logo on our origin, `/brand/logos/<sha256>.<png|jpeg|svg>` (content-addressed, cached for a year).' })),
  updatedAt: Type.Union([Type.Integer(), Type.Null()]),
});

const MerchantParams = Type.Object({ merchantId: Type.String({ maxLength: 100 }) }, { additionalProperties: false });

const base64Pattern = /^[A-Za-z0-9+/]*={0,2}$/;

function brandingView(settings: BrandingSettings) {
  return { ...settings, updatedAt: settings.updatedAt ? settings.updatedAt.getTime() : null };
}

/** `logo` as sent: base64 of the file, or null to remove it. */
function decodeLogo(logo: string | null): Buffer | null {
  if (logo === null) {
    return null;
  }
  const compact = logo.replace(/\s+/g, '');
  if (compact.length === 0 || compact.length % 4 !== 0 || !base64Pattern.test(compact)) {
    throw wrongParameter('logo', 'must be the image file in base64');
  }
  return Buffer.from(compact, 'base64');
}

/** `/admin/v1/merchants/:merchantId/branding`: what the merchant's customers see (decision 0035). */
export function registerAdminBrandingRoutes(admin: Api, branding: BrandingService): void {
  const tags = ['Admin'];
  const security = [{ adminBearer: [] }];

  admin.get(
    '/merchants/:merchantId/branding',
    {
      schema: {
        tags,
        security,
        operationId: 'adminBranding_retrieve',
        summary: "Read a merchant's branding",
        params: MerchantParams,
        response: { 200: Envelope(BrandingSchema), ...errorResponses(404) },
      },
    },
    async (request) => succeeded(brandingView(await branding.getBranding(request.params.merchantId))),
  );

  admin.post(
    '/merchants/:merchantId/branding',
    {
      schema: {
        tags,
        security,
        operationId: 'adminBranding_update',
        summary: "Change a merchant's branding",
        description:
          'Every field is optional: what is left out is unchanged, `null` (or an empty string) clears it. ' +
          '`brandColor` is refused when neither white nor near-black text reaches a contrast of 4.5:1 on it. ' +
          `\`logo\` is the image file in base64: PNG, JPEG or SVG (decided from the bytes), at most ${logoMaxBytes / 1024} KiB; an SVG is sanitised (no script, event handlers, external references or foreignObject). ` +
          'A bad field answers 400 WRONG_PARAMETER naming it, and nothing is changed.',
        params: MerchantParams,
        body: Type.Object(
          {
            displayName: Type.Optional(nullable(Type.String({ maxLength: displayNameMaxLength + 100 }))),
            brandColor: Type.Optional(nullable(Type.String({ maxLength: 20, examples: ['#635bff'] }))),
            supportEmail: Type.Optional(nullable(Type.String({ maxLength: 254 }))),
            supportUrl: Type.Optional(nullable(Type.String({ maxLength: 500 }))),
            logo: Type.Optional(nullable(Type.String({ maxLength: 700_000, description: 'base64 of the image file' }))),
          },
          { additionalProperties: false },
        ),
        response: { 200: Envelope(BrandingSchema), ...errorResponses(400, 404) },
      },
    },
    async (request) => {
      const { logo, ...fields } = request.body;
      const change: BrandingChange = { ...fields, ...(logo !== undefined ? { logo: decodeLogo(logo) } : {}) };
      return succeeded(brandingView(await branding.updateBranding(request.params.merchantId, change)));
    },
  );
}
