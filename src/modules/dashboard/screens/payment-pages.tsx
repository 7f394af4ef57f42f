import type { Api } from '../../../http/types.ts';
import type { PaymentPagesService } from '../../payment-pages/service.ts';
import { field, noticeOf, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parsePaymentPageStatus, type PaymentPagesPresenter } from '../presenters/payment-pages.ts';
import type { DisputesPresenter } from '../presenters/disputes.ts';
import { PaymentPageDetailPage, PaymentPagesPage } from '../pages/payment-pages.tsx';

export function registerPaymentPageScreens(web: Api, tools: ScreenTools, deps: { presenter: PaymentPagesPresenter; paymentPages: PaymentPagesService; disputes: DisputesPresenter }): void {
  const { presenter } = deps;

  web.get('/:mode/payment-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parsePaymentPageStatus(field(request.query, 'status', 20));
    const result = await presenter.list(view.session.merchant.id, view.livemode, status ? { status } : {}, parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => PaymentPagesPage({ frame, status, result }));
  });

  web.get('/:mode/payment-pages/:pageId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const detail = await presenter.detail(view.session.merchant, view.livemode, param(request, 'pageId'));
    const disputes = await deps.disputes.forPage(view.session.merchant.id, view.livemode, detail.page.id);
    return view.page((frame) =>
      PaymentPageDetailPage({ frame, detail, disputes, ...noticeOf(request), fraudReports: tools.sections.includes('fraud-reports'), subscriptions: tools.sections.includes('subscriptions') }),
    );
  });

  web.post('/:mode/payment-pages/:pageId/expire', async (request, reply) => {
    const view = screen(tools, request, reply);
    const pageId = param(request, 'pageId');
    return runAction(reply, modePath(view.mode, `/payment-pages/${encodeURIComponent(pageId)}`), 'expired', () => deps.paymentPages.expirePage(view.session.merchant, view.livemode, pageId));
  });
}
