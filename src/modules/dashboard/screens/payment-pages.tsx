import { randomUUID } from 'node:crypto';
import type { Api } from '../../../http/types.ts';
import type { PaymentPagesService } from '../../payment-pages/index.ts';
import type { RefundsService } from '../../refunds/index.ts';
import { refundReasons, type RefundReason } from '../../../db/schema/index.ts';
import { AppError } from '../../../http/errors.ts';
import { field, noticeOf, param, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parsePaymentPageStatus, type PaymentPagesPresenter } from '../presenters/payment-pages.ts';
import type { DisputesPresenter } from '../presenters/disputes.ts';
import { PaymentPageDetailPage, PaymentPagesPage } from '../pages/payment-pages.tsx';
import { minorUnitsOf } from '../pages/refunds.tsx';
import { formatMoney } from '../pages/components.tsx';
import { expirePaymentConfirmation, paidWithCard, refundConfirmation } from '../pages/confirmations.tsx';
import { confirmThenRun } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';

/** The payment pages CSV: the list's columns, amounts in minor units as the API gives them. */
export const paymentPageCsvColumns = ['id', 'clientReferenceId', 'customerReferenceId', 'amount', 'currency', 'status', 'createdAt', 'expiresAt'] as const;

/** The refund form's one-time key, as rendered (a UUID). */
const refundKeyPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function registerPaymentPageScreens(web: Api, tools: ScreenTools, deps: { presenter: PaymentPagesPresenter; paymentPages: PaymentPagesService; disputes: DisputesPresenter; refunds: RefundsService }): void {
  const { presenter } = deps;

  web.get('/:mode/payment-pages', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parsePaymentPageStatus(field(request.query, 'status', 20));
    const period = parseListPeriod(request.query);
    const result = await presenter.list(view.session.merchant.id, view.livemode, status ? { status } : {}, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => PaymentPagesPage({ frame, status, period, result }));
  });

  web.get('/:mode/payment-pages/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parsePaymentPageStatus(field(request.query, 'status', 20));
    const rows = presenter.exportRows(view.session.merchant.id, view.livemode, status ? { status } : {}, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `payment-pages-${view.mode}.csv`, columns: paymentPageCsvColumns, rows });
  });

  web.get('/:mode/payment-pages/:pageId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const detail = await presenter.detail(view.session.merchant, view.livemode, param(request, 'pageId'));
    const disputes = await deps.disputes.forPage(view.session.merchant.id, view.livemode, detail.page.id);
    return view.page((frame) =>
      PaymentPageDetailPage({
        frame,
        detail,
        disputes,
        ...noticeOf(request),
        fraudReports: tools.sections.includes('fraud-reports'),
        subscriptions: tools.sections.includes('subscriptions'),
        // A new one-time key for each rendering of the refund form.
        refundKey: randomUUID(),
      }),
    );
  });

  web.post('/:mode/payment-pages/:pageId/expire', async (request, reply) => {
    const view = screen(tools, request, reply);
    const pageId = param(request, 'pageId');
    const back = modePath(view.mode, `/payment-pages/${encodeURIComponent(pageId)}`);
    return confirmThenRun(view, request, reply, {
      section: 'payment-pages',
      back,
      confirmation: async () => expirePaymentConfirmation(await deps.paymentPages.getPage(view.session.merchant, view.livemode, pageId)),
      notice: 'expired',
      action: () => deps.paymentPages.expirePage(view.session.merchant, view.livemode, pageId),
    });
  });

  /**
   * The refund form: the same service as POST /v1/refunds; the amount is typed in major units. A
   * valid form without `confirmed=1` answers the confirmation page naming the amount and the card
   * (the dialog says it first with JavaScript). The form's one-time `refundKey` makes it idempotent: a double click or a
   * resubmitted form answers the refund it made the first time, never a second refund.
   */
  web.post('/:mode/payment-pages/:pageId/refund', async (request, reply) => {
    const view = screen(tools, request, reply);
    const pageId = param(request, 'pageId');
    const back = modePath(view.mode, `/payment-pages/${encodeURIComponent(pageId)}`);
    const amount = minorUnitsOf(field(request.body, 'amount', 20));
    if (amount === null || amount < 1) {
      return reply.redirect(`${back}?error=refund-amount`, 303);
    }
    const requestKey = field(request.body, 'refundKey', 100);
    if (!refundKeyPattern.test(requestKey)) {
      return reply.redirect(`${back}?error=refund-form`, 303);
    }
    const reasonField = field(request.body, 'reason', 40);
    const reason = (refundReasons as readonly string[]).includes(reasonField) ? (reasonField as RefundReason) : undefined;
    return confirmThenRun(view, request, reply, {
      section: 'payment-pages',
      back,
      confirmation: async () => {
        const detail = await presenter.detail(view.session.merchant, view.livemode, pageId);
        return refundConfirmation(detail.page, formatMoney(amount, detail.page.currency), paidWithCard(detail.attempts));
      },
      notice: 'refunded',
      action: async () => {
        try {
          await deps.refunds.createRefund(view.session.merchant, view.livemode, { paymentPageId: pageId, amount, ...(reason ? { reason } : {}) }, { requestKey });
        } catch (error) {
          // The bad inputs left once the form parsed: more than what is left to refund, and a form
          // key already used for another page.
          if (error instanceof AppError && (error.code === 'WRONG_PARAMETER' || error.code === 'IDEMPOTENCY_KEY_REUSED')) {
            throw new AppError(error.code, error.message, { notice: error.code === 'WRONG_PARAMETER' ? 'refund-amount' : 'refund-form' });
          }
          throw error;
        }
      },
    });
  });
}
