import type { Api } from '../../../http/types.ts';
import type { MerchantsService } from '../../merchants/index.ts';
import { field, noticeOf, notFoundPage, param, screen, type ScreenTools } from '../context.ts';
import { modePath, withQuery } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import type { DevelopersPresenter } from '../presenters/developers.ts';
import { ApiKeysPage, PiiKeyPage } from '../pages/developers.tsx';
import { revokeApiKeyConfirmation, rotatePiiKeyConfirmation } from '../pages/confirmations.tsx';
import { confirmFirst, confirmThenRun } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { anyTime, parseListPeriod } from '../date-range.ts';

/** The API keys CSV: what the list shows (name, last four characters, dates), never the key. */
export const apiKeyCsvColumns = ['id', 'name', 'last4', 'createdAt', 'lastUsedAt', 'revokedAt'] as const;

/** The PII keys CSV: what the list shows before Reveal (id, active, created), never key material. */
export const piiKeyCsvColumns = ['id', 'active', 'createdAt'] as const;

/** API keys and the PII key: both belong to the merchant, not to a mode (the URL's mode is kept for navigation). */
export function registerKeyScreens(web: Api, tools: ScreenTools, deps: { merchants: MerchantsService; presenter: DevelopersPresenter }): void {
  const { merchants, presenter } = deps;

  web.get('/:mode/developers', async (request, reply) => {
    const view = screen(tools, request, reply);
    return reply.redirect(modePath(view.mode, '/developers/api-keys'), 303);
  });

  web.get('/:mode/developers/api-keys', async (request, reply) => {
    const view = screen(tools, request, reply);
    const flash = tools.flash.take(request, reply, view.session);
    const created = flash?.apiKey && flash.name ? { apiKey: flash.apiKey, name: flash.name } : undefined;
    const period = parseListPeriod(request.query);
    const keys = await presenter.apiKeys(view.session.merchant.id, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => ApiKeysPage({ frame, keys, period, ...noticeOf(request), ...(created ? { created } : {}) }));
  });

  web.get('/:mode/developers/api-keys/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = presenter.exportApiKeys(view.session.merchant.id, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: 'api-keys.csv', columns: apiKeyCsvColumns, rows });
  });

  web.post('/:mode/developers/api-keys', async (request, reply) => {
    const view = screen(tools, request, reply);
    const name = field(request.body, 'name', 200).trim();
    if (name === '' || name.length > 100) {
      const keys = await presenter.apiKeys(view.session.merchant.id, 1);
      return view.page((frame) => ApiKeysPage({ frame, keys, period: anyTime, error: 'Give the key a name of 1 to 100 characters, so you can tell it apart later.' }), { status: 400 });
    }
    const created = await merchants.createApiKey(view.session.merchant.id, name);
    // The key travels in the sealed flash cookie, never in a URL; the next page shows it once.
    tools.flash.put(reply, view.session, { apiKey: created.apiKey, name: created.name });
    return reply.redirect(modePath(view.mode, '/developers/api-keys'), 303);
  });

  web.post('/:mode/developers/api-keys/:keyId/revoke', async (request, reply) => {
    const view = screen(tools, request, reply);
    const keyId = param(request, 'keyId');
    const back = modePath(view.mode, '/developers/api-keys');
    return confirmThenRun(view, request, reply, {
      section: 'api-keys',
      back,
      confirmation: async () => {
        const key = (await merchants.listApiKeys(view.session.merchant.id)).find((candidate) => candidate.id === keyId);
        if (!key) {
          throw notFoundPage('API key');
        }
        return revokeApiKeyConfirmation(key);
      },
      notice: 'api-key-revoked',
      action: () => merchants.revokeApiKey(view.session.merchant.id, keyId),
    });
  });

  web.get('/:mode/developers/pii-key', async (request, reply) => {
    const view = screen(tools, request, reply);
    const period = parseListPeriod(request.query);
    const keys = await presenter.piiKeys(view.session.merchant.id, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => PiiKeyPage({ frame, keys, period, notice: noticeOf(request).notice }));
  });

  web.get('/:mode/developers/pii-key/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = presenter.exportPiiKeys(view.session.merchant.id, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: 'pii-keys.csv', columns: piiKeyCsvColumns, rows });
  });

  web.post('/:mode/developers/pii-key/reveal', async (request, reply) => {
    const view = screen(tools, request, reply);
    // The reveal form carries the page and period it was on: the material of that page's keys is shown.
    const period = parseListPeriod(request.body);
    const keys = await presenter.piiKeys(view.session.merchant.id, parsePage(field(request.body, 'page', 5)), period);
    const material = await merchants.revealPiiKeys(view.session.merchant.id);
    return view.page((frame) => PiiKeyPage({ frame, keys, period, revealed: material }));
  });

  web.post('/:mode/developers/pii-key/rotate', async (request, reply) => {
    const view = screen(tools, request, reply);
    const confirming = await confirmFirst(view, request, { section: 'pii-key', back: modePath(view.mode, '/developers/pii-key'), confirmation: rotatePiiKeyConfirmation });
    if (confirming) {
      return reply;
    }
    await merchants.rotatePiiKey(view.session.merchant.id);
    return reply.redirect(withQuery(modePath(view.mode, '/developers/pii-key'), { notice: 'pii-key-rotated' }), 303);
  });
}
