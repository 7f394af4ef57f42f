import type { Api } from '../../../http/types.ts';
import type { PayoutPagesService } from '../../payout-pages/index.ts';
import { field, noticeOf, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parsePayoutStatusFilter, type PayoutPagesPresenter } from '../presenters/payout-pages.ts';
import { PayoutPageDetailPage, PayoutPagesPage } from '../pages/payout-pages.tsx';
import { cancelPayoutConfirmation, releasePayoutConfirmation } from '../pages/confirmations.tsx';
import { confirmFirst } from './confirm.ts';

export function registerPayoutPageScreens(web: Api, tools: ScreenTools, deps: { presenter: PayoutPagesPresenter; payoutPages: PayoutPagesService }): void {
  const { presenter } = deps;

  web.get('/:mode/payout-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const raw = field(request.query, 'status', 30);
    const filter = parsePayoutStatusFilter(raw);
    const result = await presenter.list(view.session.merchant.id, view.livemode, filter, parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => PayoutPagesPage({ frame, filter: Object.keys(filter).length > 0 ? raw : '', result }));
  });

  web.get('/:mode/payout-pages/:payoutPageId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const detail = await presenter.detail(view.session.merchant, view.livemode, param(request, 'payoutPageId'), parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => PayoutPageDetailPage({ frame, detail, ...noticeOf(request), eventsSection: tools.sections.includes('events') }));
  });

  web.post('/:mode/payout-pages/:payoutPageId/release', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'payoutPageId');
    const back = modePath(view.mode, `/payout-pages/${encodeURIComponent(id)}`);
    const confirming = await confirmFirst(view, request, {
      section: 'payout-pages',
      back,
      confirmation: async () => releasePayoutConfirmation(await deps.payoutPages.getPayoutPage(view.session.merchant, view.livemode, id)),
    });
    if (confirming) {
      return reply;
    }
    return runAction(reply, back, 'released', () => deps.payoutPages.releasePayoutPage(view.session.merchant, view.livemode, id));
  });

  // Reissuing a locked page: a ticked confirmation, checked here too (it lets guessing start again).
  web.post('/:mode/payout-pages/:payoutPageId/reissue', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'payoutPageId');
    const back = modePath(view.mode, `/payout-pages/${encodeURIComponent(id)}`);
    if (field(request.body, 'confirm', 5) !== 'yes') {
      return reply.redirect(`${back}?error=reissue-unconfirmed`, 303);
    }
    return runAction(reply, back, 'reissued', () => deps.payoutPages.reissuePayoutPage(view.session.merchant, view.livemode, id));
  });

  web.post('/:mode/payout-pages/:payoutPageId/cancel', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'payoutPageId');
    const back = modePath(view.mode, `/payout-pages/${encodeURIComponent(id)}`);
    const confirming = await confirmFirst(view, request, {
      section: 'payout-pages',
      back,
      confirmation: async () => cancelPayoutConfirmation(await deps.payoutPages.getPayoutPage(view.session.merchant, view.livemode, id)),
    });
    if (confirming) {
      return reply;
    }
    return runAction(reply, back, 'canceled', () => deps.payoutPages.cancelPayoutPage(view.session.merchant, view.livemode, id));
  });
}
