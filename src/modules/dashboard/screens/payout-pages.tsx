import type { Api } from '../../../http/types.ts';
import type { PayoutPagesService } from '../../payout-pages/index.ts';
import { field, noticeOf, param, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parsePayoutStatusFilter, type PayoutPagesPresenter } from '../presenters/payout-pages.ts';
import { PayoutPageDetailPage, PayoutPagesPage } from '../pages/payout-pages.tsx';
import { cancelPayoutConfirmation, reissuePayoutConfirmation, releasePayoutConfirmation } from '../pages/confirmations.tsx';
import { confirmThenRun } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';

/** The payout pages CSV: the list's columns, amounts in minor units as the API gives them. */
export const payoutPageCsvColumns = ['id', 'clientReferenceId', 'customerReferenceId', 'amount', 'fundingCurrency', 'status', 'subStatus', 'releaseMethod', 'createdAt', 'expiresAt'] as const;

export function registerPayoutPageScreens(web: Api, tools: ScreenTools, deps: { presenter: PayoutPagesPresenter; payoutPages: PayoutPagesService }): void {
  const { presenter, payoutPages } = deps;

  web.get('/:mode/payout-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const raw = field(request.query, 'status', 30);
    const filter = parsePayoutStatusFilter(raw);
    const period = parseListPeriod(request.query);
    const result = await presenter.list(view.session.merchant.id, view.livemode, filter, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => PayoutPagesPage({ frame, filter: Object.keys(filter).length > 0 ? raw : '', period, result }));
  });

  web.get('/:mode/payout-pages/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const filter = parsePayoutStatusFilter(field(request.query, 'status', 30));
    const rows = presenter.exportRows(view.session.merchant.id, view.livemode, filter, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `payout-pages-${view.mode}.csv`, columns: payoutPageCsvColumns, rows });
  });

  web.get('/:mode/payout-pages/:payoutPageId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const detail = await presenter.detail(view.session.merchant, view.livemode, param(request, 'payoutPageId'), parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => PayoutPageDetailPage({ frame, detail, ...noticeOf(request), eventsSection: tools.sections.includes('events') }));
  });

  // Release, reissue and cancel: confirmed first (decision 0030; reissuing a locked page lets code guessing start again).
  const actions = [
    { path: 'release', notice: 'released', confirmation: releasePayoutConfirmation, perform: payoutPages.releasePayoutPage },
    { path: 'reissue', notice: 'reissued', confirmation: reissuePayoutConfirmation, perform: payoutPages.reissuePayoutPage },
    { path: 'cancel', notice: 'canceled', confirmation: cancelPayoutConfirmation, perform: payoutPages.cancelPayoutPage },
  ] as const;
  for (const { path, notice, confirmation, perform } of actions) {
    web.post(`/:mode/payout-pages/:payoutPageId/${path}`, async (request, reply) => {
      const view = screen(tools, request, reply);
      const id = param(request, 'payoutPageId');
      return confirmThenRun(view, request, reply, {
        section: 'payout-pages',
        back: modePath(view.mode, `/payout-pages/${encodeURIComponent(id)}`),
        confirmation: async () => confirmation(await payoutPages.getPayoutPage(view.session.merchant, view.livemode, id)),
        notice,
        action: () => perform(view.session.merchant, view.livemode, id),
      });
    });
  }
}
