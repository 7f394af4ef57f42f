import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { EmptyBody, Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, modeForCreate, requireAuth } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { CardPaymentBody, PageIdParams, PaymentPage, PaymentPageCreateBody, PaymentPageList, PaymentPageListQuery } from './schemas.ts';
import type { PaymentPagesService } from './service.ts';

const tags = ['Payment pages'];

/** Throws the 403 FORBIDDEN of sandbox-only helpers called in live mode (docs/API.md §15). */
export function requireSandbox(livemode: boolean | undefined): void {
  if (livemode === true) {
    throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; use livemode=false');
  }
}

export function registerPaymentPageRoutes(api: Api, paymentPages: PaymentPagesService): void {
  api.post(
    '/payment_pages',
    {
      schema: {
        tags,
        operationId: 'paymentPages_create',
        summary: 'Create a payment page',
        description:
          'Creates a hosted card checkout for `amount` in `currency`. Send the customer to `url`. An unknown `customer.referenceId` creates the customer. ' +
          'Unpaid pages expire at `expiresAt` (default 24 h) with a PAYMENT_EXPIRED event; a payment emits PAYMENT_SUCCEEDED. ' +
          'With `subscription`, the card is saved and the payment starts a subscription.',
        querystring: LivemodeQuery,
        body: PaymentPageCreateBody,
        response: { 200: Envelope(PaymentPage), ...errorResponses(403, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      const livemode = modeForCreate(merchant, request.query.livemode);
      return succeeded(await paymentPages.createPage(merchant, livemode, request.body));
    },
  );

  api.get(
    '/payment_pages',
    {
      schema: {
        tags,
        operationId: 'paymentPages_list',
        summary: 'List payment pages',
        description:
          'Newest first, each exactly as `GET /v1/payment_pages/{pageId}` answers it. Filter by `clientReferenceId`, `customerId`, `status`, ' +
          '`createdFrom`/`createdTo` (epoch ms, inclusive) and `livemode` (omitted: both modes). Page with `limit` and `startingAfter` (the previous ' +
          '`nextCursor`, valid for the same filters and mode only, or a payment page id).',
        querystring: PaymentPageListQuery,
        response: { 200: Envelope(PaymentPageList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await paymentPages.listPages(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/payment_pages/:pageId',
    {
      schema: {
        tags,
        operationId: 'paymentPages_retrieve',
        summary: 'Read a payment page',
        description: 'With `payinDetails` (the card) and `paymentId` once PAID, and `subscriptionId` when the payment started a subscription.',
        querystring: LivemodeQuery,
        params: PageIdParams,
        response: { 200: Envelope(PaymentPage), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await paymentPages.getPage(merchant, modeFilter(merchant, request.query.livemode), request.params.pageId));
    },
  );

  api.post(
    '/payment_pages/:pageId/expire',
    {
      schema: {
        tags,
        operationId: 'paymentPages_expire',
        summary: 'Expire a payment page',
        description:
          'CREATED → EXPIRED with one PAYMENT_EXPIRED event. Expiring an EXPIRED page answers the same page again (no new event). ' +
          'A PAID page answers 400 WRONG_PARAMETER and does not change. A payment in progress on the page is waited for: exactly one of the two wins.',
        querystring: LivemodeQuery,
        params: PageIdParams,
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(PaymentPage), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await paymentPages.expirePage(merchant, modeFilter(merchant, request.query.livemode), request.params.pageId));
    },
  );

  api.post(
    '/test_helpers/payment_pages/:pageId/pay',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_paymentPages_pay',
        summary: 'Pay a sandbox payment page by card (what the customer does on the hosted page)',
        description:
          'Sandbox only (live → 403 FORBIDDEN). Runs the same code as the hosted checkout: answers the PAID page, or 402 CARD_DECLINED with `declineReason` ' +
          '(the page stays CREATED). Test cards: 4242424242424242 (Visa credit), 5555555555554444 (Mastercard credit), 4000056655665556 (Visa debit), ' +
          '4000000000000002 (declined: card_declined), 4000000000009995 (declined: insufficient_funds), 4100000000000019 (succeeds; a fraud report follows).',
        querystring: LivemodeQuery,
        params: PageIdParams,
        body: CardPaymentBody,
        response: { 200: Envelope(PaymentPage), ...errorResponses(402, 403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      requireSandbox(request.query.livemode);
      // An explicit livemode=false looks in sandbox only: a live page is then 404 like any other
      // id of the other mode (docs/API.md §1), not a 403 that reveals it exists.
      const current = await paymentPages.getPage(merchant, request.query.livemode, request.params.pageId);
      if (current.livemode) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this payment page is live');
      }
      const outcome = await paymentPages.payPage({ pageId: request.params.pageId, merchantId: merchant.id, livemode: false }, request.body);
      if (outcome.outcome === 'DECLINED') {
        throw new AppError('CARD_DECLINED', `The card was declined (${outcome.declineReason})`, { declineReason: outcome.declineReason });
      }
      return succeeded(outcome.page);
    },
  );
}
