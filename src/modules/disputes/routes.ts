import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { requireSandbox } from '../payment-pages/index.ts';
import { DisputeCloseBody, DisputeIdParams, DisputeList, DisputeListQuery, DisputeSchema } from './schemas.ts';
import type { DisputesService } from './service.ts';

const tags = ['Disputes'];

/** `/v1/disputes` (read) and the sandbox's `/v1/test_helpers/disputes/:id/close`. */
export function registerDisputeRoutes(api: Api, disputes: DisputesService): void {
  api.get(
    '/disputes',
    {
      schema: {
        tags,
        operationId: 'disputes_list',
        summary: 'List disputes',
        description:
          'Chargebacks of card payments, newest first. Filter by `paymentPageId` (an unknown page answers 404) and `livemode`; page with `limit` and ' +
          '`startingAfter` (the previous `nextCursor`, or a dispute id) as `GET /v1/events`.',
        querystring: DisputeListQuery,
        response: { 200: Envelope(DisputeList), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await disputes.listDisputes(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/disputes/:disputeId',
    {
      schema: {
        tags,
        operationId: 'disputes_retrieve',
        summary: 'Read a dispute',
        querystring: LivemodeQuery,
        params: DisputeIdParams,
        response: { 200: Envelope(DisputeSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await disputes.getDispute(merchant, modeFilter(merchant, request.query.livemode), request.params.disputeId));
    },
  );

  api.post(
    '/test_helpers/disputes/:disputeId/close',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_disputes_close',
        summary: 'Decide a sandbox dispute',
        description:
          'Sandbox only (live → 403 FORBIDDEN). The card network decides a sandbox dispute (the dispute test card `4000000000000259` opens one): ' +
          'WON returns the disputed amount to the balance, LOST keeps it taken; DISPUTE_CLOSED follows. The same outcome again answers the dispute unchanged; ' +
          'the other outcome on a closed dispute is 409 INVALID_STATE.',
        querystring: LivemodeQuery,
        params: DisputeIdParams,
        body: DisputeCloseBody,
        response: { 200: Envelope(DisputeSchema), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      requireSandbox(request.query.livemode);
      return succeeded(await disputes.closeTestDispute(merchant, request.params.disputeId, request.body));
    },
  );
}
