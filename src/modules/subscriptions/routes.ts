import type { Api } from '../../http/types.ts';
import { EmptyBody, Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { Subscription, SubscriptionIdParams, SubscriptionList, SubscriptionListQuery } from './schemas.ts';
import type { SubscriptionsService } from './service.ts';

export function registerSubscriptionRoutes(api: Api, subscriptions: SubscriptionsService): void {
  api.get(
    '/subscriptions',
    {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'subscriptions_list',
        summary: 'List subscriptions',
        description:
          'Newest first, each exactly as `GET /v1/subscriptions/{subscriptionId}` answers it. Filter by `customerId`, `status` and `livemode` ' +
          '(omitted: both modes). Page with `limit` and `startingAfter` (the previous `nextCursor`, valid for the same filters and mode only, or a subscription id).',
        querystring: SubscriptionListQuery,
        response: { 200: Envelope(SubscriptionList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await subscriptions.listSubscriptions(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/subscriptions/:subscriptionId',
    {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'subscriptions_retrieve',
        summary: 'Read a subscription',
        description: 'A subscription started by a paid payment page that carried `subscription`, with its current period and latest invoice.',
        querystring: LivemodeQuery,
        params: SubscriptionIdParams,
        response: { 200: Envelope(Subscription), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await subscriptions.getSubscription(merchant, modeFilter(merchant, request.query.livemode), request.params.subscriptionId));
    },
  );

  api.post(
    '/subscriptions/:subscriptionId/cancel',
    {
      schema: {
        tags: ['Subscriptions'],
        operationId: 'subscriptions_cancel',
        summary: 'Cancel a subscription at the end of its period',
        description:
          'Sets `cancelAtPeriodEnd`: no renewal; the subscription becomes CANCELED when the current period ends. A PAST_DUE subscription ends at once. ' +
          'Canceling again while the cancellation is pending returns the same subscription; a CANCELED subscription answers 409 INVALID_STATE.',
        querystring: LivemodeQuery,
        params: SubscriptionIdParams,
        body: EmptyBody,
        response: { 200: Envelope(Subscription), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await subscriptions.cancelSubscription(merchant, modeFilter(merchant, request.query.livemode), request.params.subscriptionId));
    },
  );

  api.post(
    '/test_helpers/subscriptions/:subscriptionId/renew',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_subscriptions_renew',
        summary: 'Renew a sandbox subscription now',
        description:
          'Sandbox only (live answers 403 FORBIDDEN). Ends the current period now (its entitlement ends with it) and runs the renewal at once, ' +
          'through the same code as the scheduled renewal: the saved card is charged (the test card decides) and a new period, invoice and entitlement ' +
          'follow, or the subscription becomes PAST_DUE. A PAST_DUE subscription is retried at once.',
        querystring: LivemodeQuery,
        params: SubscriptionIdParams,
        body: EmptyBody,
        response: { 200: Envelope(Subscription), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await subscriptions.renewNow(merchant, request.query.livemode, request.params.subscriptionId));
    },
  );
}
