import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { Refund, RefundCreateBody, RefundIdParams, RefundList, RefundListQuery } from './schemas.ts';
import type { RefundsService } from './service.ts';

const tags = ['Refunds'];

/** `/v1/refunds`: give back (part of) a paid payment page's card payment. */
export function registerRefundRoutes(api: Api, refunds: RefundsService): void {
  api.post(
    '/refunds',
    {
      schema: {
        tags,
        operationId: 'refunds_create',
        summary: 'Refund a paid payment page',
        description:
          'Refunds `amount` (default: all that is left) of the card payment of a PAID page, in the page currency. The refund starts PENDING; the card processor settles it ' +
          '(sandbox: after SANDBOX_PAYOUT_DELAY_MS) with PAYMENT_REFUNDED, or REFUND_FAILED. The amount leaves the available balance at once and comes back if the refund fails. ' +
          'The page stays PAID; its `refundedAmount` counts every refund not FAILED. `amount` above what is left → 400 WRONG_PARAMETER; a page not PAID → 409 INVALID_STATE; ' +
          'an available balance too small → 409 INSUFFICIENT_FUNDS. Honours Idempotency-Key. The refund is in the mode of its page (`livemode` narrows the lookup).',
        querystring: LivemodeQuery,
        body: RefundCreateBody,
        response: { 200: Envelope(Refund), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await refunds.createRefund(merchant, modeFilter(merchant, request.query.livemode), request.body));
    },
  );

  api.get(
    '/refunds',
    {
      schema: {
        tags,
        operationId: 'refunds_list',
        summary: 'List refunds',
        description:
          'Newest first. Filter by `paymentPageId` and `livemode`; page with `limit` and `startingAfter` (the previous `nextCursor`, valid for the same filter only, or a refund id).',
        querystring: RefundListQuery,
        response: { 200: Envelope(RefundList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await refunds.listRefunds(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/refunds/:refundId',
    {
      schema: {
        tags,
        operationId: 'refunds_retrieve',
        summary: 'Read a refund',
        querystring: LivemodeQuery,
        params: RefundIdParams,
        response: { 200: Envelope(Refund), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await refunds.getRefund(merchant, modeFilter(merchant, request.query.livemode), request.params.refundId));
    },
  );
}
