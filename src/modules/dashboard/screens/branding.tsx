import type { Api } from '../../../http/types.ts';
import { AppError, wrongParameter } from '../../../http/errors.ts';
import type { BrandingChange, BrandingService } from '../../merchants/index.ts';
import { logoMaxBytes } from '../../merchants/index.ts';
import { field, noticeOf, screen, type ScreenTools } from '../context.ts';
import { modePath, withQuery } from '../paths.ts';
import { acceptUploads, OversizedFile } from '../uploads.ts';
import { BrandingPage, brandingFieldLabels, brandingFormValues, type BrandingField } from '../pages/branding.tsx';

function isBrandingField(name: unknown): name is BrandingField {
  return typeof name === 'string' && name in brandingFieldLabels;
}

/** The uploaded file of a multipart body (../uploads.ts): null when no file was chosen. */
function uploadedFile(body: unknown, name: string): Buffer | OversizedFile | null {
  const value = body !== null && typeof body === 'object' ? (body as Record<string, unknown>)[name] : undefined;
  return value instanceof OversizedFile || (Buffer.isBuffer(value) && value.length > 0) ? value : null;
}

/**
 * Settings → Branding (decision 0035): the merchant's display name, colour, support contact and
 * logo, for both modes. The form is multipart (the logo file); the same service as the admin API
 * checks every field, and a refused one is shown beside its field with nothing saved.
 */
export function registerBrandingScreens(web: Api, tools: ScreenTools, deps: { branding: BrandingService }): void {
  const { branding } = deps;
  // Multipart only here. A file a little over the limit reaches the service, which names the limit
  // and the file's size beside the field; of a far larger one the parser keeps only that it was.
  acceptUploads(web, { fileBytes: 4 * logoMaxBytes, files: 1, fields: 10, fieldBytes: 2048 });

  web.get('/:mode/settings', async (request, reply) => {
    const view = screen(tools, request, reply);
    return reply.redirect(modePath(view.mode, '/settings/branding'), 303);
  });

  web.get('/:mode/settings/branding', async (request, reply) => {
    const view = screen(tools, request, reply);
    const settings = await branding.getBranding(view.session.merchant.id);
    return view.page((frame) => BrandingPage({ frame, settings, state: { values: brandingFormValues(settings), errors: {} }, notice: noticeOf(request).notice }));
  });

  web.post('/:mode/settings/branding', async (request, reply) => {
    const view = screen(tools, request, reply);
    const values = {
      displayName: field(request.body, 'displayName', 200),
      brandColor: field(request.body, 'brandColor', 20),
      supportEmail: field(request.body, 'supportEmail', 300),
      supportUrl: field(request.body, 'supportUrl', 600),
    };
    const logo = uploadedFile(request.body, 'logo');
    try {
      if (logo instanceof OversizedFile) {
        throw wrongParameter('logo', `must be at most ${logoMaxBytes / 1024} KiB (this one is over ${logo.limitBytes / 1024} KiB)`);
      }
      const change: BrandingChange = { ...values, ...(logo ? { logo } : field(request.body, 'removeLogo', 5) === 'yes' ? { logo: null } : {}) };
      await branding.updateBranding(view.session.merchant.id, change);
    } catch (error) {
      const refused = error instanceof AppError && error.code === 'WRONG_PARAMETER' ? error.extra.field : undefined;
      if (!isBrandingField(refused) || !(error instanceof AppError)) {
        throw error;
      }
      const settings = await branding.getBranding(view.session.merchant.id);
      const message = error.message.startsWith(`${refused} `) ? error.message.slice(refused.length + 1) : error.message;
      return view.page((frame) => BrandingPage({ frame, settings, state: { values, errors: { [refused]: `This ${message}.` } } }), { status: 400 });
    }
    return reply.redirect(withQuery(modePath(view.mode, '/settings/branding'), { notice: 'branding-saved' }), 303);
  });
}
