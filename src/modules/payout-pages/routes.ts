import type { Api } from '../../http/types.ts';
import { EmptyBody, Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, modeForCreate, requireAuth } from '../../http/auth.ts';
import { AppError } from '../../http/errors.ts';
import { Type } from 'typebox';
import { ConfirmBody, PayoutPage, PayoutPageCreateBody, PayoutPageIdParams, PayoutPageList, PayoutPageListQuery } from './schemas.ts';
import type { PayoutPagesService } from './service.ts';

const tags = ['Payout pages'];

function sandboxOnly(livemode: boolean | undefined): void {
  if (livemode === true) {
    throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; pass livemode=false');
  }
}

/** `/v1/payout_pages` and its sandbox test helpers. */
export function registerPayoutPageRoutes(api: Api, payoutPages: PayoutPagesService): void {
  api.post(
    '/payout_pages',
    {
      schema: {
        tags,
        operationId: 'payoutPages_create',
        summary: 'Create a payout page',
        description:
          'Creates a hosted payout page for a customer (an unknown `customer.referenceId` creates the customer) and reserves `amount` on the ' +
          'merchant balance (409 INSUFFICIENT_FUNDS when it cannot). Send the customer to `url`. The page moves CREATED → PENDING when the customer ' +
          'confirms, → PROCESSING once KYC is approved (AUTOMATIC) or on release (MANUAL), → PROCESSED when the rail has paid (FAILED/PAYOUT_REJECTED when it refuses, ' +
          'FAILED/PAYOUT_RETURNED when it gives the money back after paying; the customer may then enter other details on the hosted page). Every change of ' +
          '`status` or `sub-status` emits PAYOUT_PAGE_UPDATED.',
        querystring: LivemodeQuery,
        body: PayoutPageCreateBody,
        response: { 200: Envelope(PayoutPage), ...errorResponses(403, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      const livemode = modeForCreate(merchant, request.query.livemode);
      return succeeded(await payoutPages.createPayoutPage(merchant, livemode, request.body));
    },
  );

  api.get(
    '/payout_pages',
    {
      schema: {
        tags,
        operationId: 'payoutPages_list',
        summary: 'List payout pages',
        description:
          'Newest first, each exactly as `GET /v1/payout_pages/{payoutPageId}` answers it. Filter by `clientReferenceId`, `customerId`, `status`, ' +
          '`createdFrom`/`createdTo` (epoch ms, inclusive) and `livemode` (omitted: both modes). Page with `limit` and `startingAfter` (the previous ' +
          '`nextCursor`, valid for the same filters and mode only, or a payout page id).',
        querystring: PayoutPageListQuery,
        response: { 200: Envelope(PayoutPageList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await payoutPages.listPayoutPages(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/payout_pages/:payoutPageId',
    {
      schema: {
        tags,
        operationId: 'payoutPages_retrieve',
        summary: 'Read a payout page',
        querystring: LivemodeQuery,
        params: PayoutPageIdParams,
        response: { 200: Envelope(PayoutPage), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await payoutPages.getPayoutPage(merchant, modeFilter(merchant, request.query.livemode), request.params.payoutPageId));
    },
  );

  // The merchant's three actions on one page: the same parameters and answers, a state change each.
  const actions = [
    {
      path: 'release',
      operationId: 'payoutPages_release',
      summary: 'Release a MANUAL payout',
      description:
        'MANUAL pages in PENDING/AWAITING_RELEASE (customer confirmed, KYC approved) move to PROCESSING and are handed to the payout rail. ' +
        'Anything else answers 409 INVALID_STATE; so does a live page when no live payout rail is configured.',
      perform: payoutPages.releasePayoutPage,
    },
    {
      path: 'cancel',
      operationId: 'payoutPages_cancel',
      summary: 'Cancel a payout page',
      description: 'Before PROCESSING: → CANCELED/MERCHANT_CANCELED and the reservation is released. Later: 409 INVALID_STATE.',
      perform: payoutPages.cancelPayoutPage,
    },
    {
      path: 'reissue',
      operationId: 'payoutPages_reissue',
      summary: 'Reissue a locked payout page',
      description:
        'A hosted page locks after 10 wrong verification codes in its life (`lockedAt` is set, PAYOUT_PAGE_LOCKED is sent and you and the customer get an e-mail): ' +
        'no code is sent or accepted on it. Reissuing unlocks it, sets the wrong-code count back to 0, makes every earlier code and session useless, ' +
        'emits PAYOUT_PAGE_REISSUED and e-mails the customer the link again; the payout, its state and its expiry do not change. ' +
        'A page that is not locked, or where the customer has nothing left to do (CANCELED, EXPIRED, PROCESSED, FAILED/KYC_REJECTED), answers 409 INVALID_STATE.',
      perform: payoutPages.reissuePayoutPage,
    },
  ] as const;
  for (const { path, operationId, summary, description, perform } of actions) {
    api.post(
      `/payout_pages/:payoutPageId/${path}`,
      {
        schema: {
          tags,
          operationId,
          summary,
          description,
          querystring: LivemodeQuery,
          params: PayoutPageIdParams,
          body: Type.Optional(EmptyBody),
          response: { 200: Envelope(PayoutPage), ...errorResponses(403, 404, 409) },
        },
      },
      async (request) => {
        const { merchant } = requireAuth(request);
        return succeeded(await perform(merchant, modeFilter(merchant, request.query.livemode), request.params.payoutPageId));
      },
    );
  }

  api.post(
    '/test_helpers/payout_pages/:payoutPageId/confirm',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_payoutPages_confirm',
        summary: 'Confirm a sandbox payout page as the customer would',
        description:
          'Sandbox only (live → 403 FORBIDDEN). Runs the hosted page’s own code: chooses the payout method and destination and confirms ' +
          '(CREATED → PENDING); `kyc` completes the customer’s identity data as the hosted KYC form does (fields already known are kept) and starts KYC.',
        querystring: LivemodeQuery,
        params: PayoutPageIdParams,
        body: ConfirmBody,
        response: { 200: Envelope(PayoutPage), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      sandboxOnly(request.query.livemode);
      return succeeded(await payoutPages.confirmAsTestHelper(merchant, request.query.livemode, request.params.payoutPageId, request.body));
    },
  );

  api.post(
    '/test_helpers/payout_pages/:payoutPageId/decline',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_payoutPages_decline',
        summary: 'Decline a sandbox payout page as the customer would',
        description: 'Sandbox only (live → 403 FORBIDDEN). Before PROCESSING: → CANCELED/CUSTOMER_DECLINED and the reservation is released.',
        querystring: LivemodeQuery,
        params: PayoutPageIdParams,
        body: Type.Optional(EmptyBody),
        response: { 200: Envelope(PayoutPage), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      sandboxOnly(request.query.livemode);
      return succeeded(await payoutPages.declineAsTestHelper(merchant, request.query.livemode, request.params.payoutPageId));
    },
  );
}
