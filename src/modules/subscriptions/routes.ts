import type { Api } from '../../http/types.ts';
import { EmptyBody, Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { Subscription, SubscriptionIdParams, SubscriptionList, SubscriptionListQuery, type SubscriptionResponse } from './schemas.ts';
import type { SubscriptionsService } from './service.ts';
import type { Merchant } from '../merchants/index.ts';

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

  // The cancel and the sandbox renewal: the same parameters, body and answer, a state change each.
  const actions: ReadonlyArray<{
    path: string;
    tags: string[];
    operationId: string;
    summary: string;
    description: string;
    perform: (merchant: Merchant, livemode: boolean | undefined, subscriptionId: string) => Promise<SubscriptionResponse>;
  }> = [
    {
      path: '/subscriptions/:subscriptionId/cancel',
      tags: ['Subscriptions'],
      operationId: 'subscriptions_cancel',
      summary: 'Cancel a subscription at the end of its period',
      description:
        'Sets `cancelAtPeriodEnd`: no renewal; the subscription becomes CANCELED when the current period ends. A PAST_DUE subscription ends at once. ' +
        'Canceling again while the cancellation is pending returns the same subscription; a CANCELED subscription answers 409 INVALID_STATE.',
      perform: (merchant, livemode, subscriptionId) => subscriptions.cancelSubscription(merchant, modeFilter(merchant, livemode), subscriptionId),
    },
    {
      path: '/test_helpers/subscriptions/:subscriptionId/renew',
      tags: ['Test helpers'],
      operationId: 'testHelpers_subscriptions_renew',
      summary: 'Renew a sandbox subscription now',
      description:
        'Sandbox only (live answers 403 FORBIDDEN). Ends the current period now (its entitlement ends with it) and runs the renewal at once, ' +
        'through the same code as the scheduled renewal: the saved card is charged (the test card decides) and a new period, invoice and entitlement ' +
        'follow, or the subscription becomes PAST_DUE. A PAST_DUE subscription is retried at once.',
      perform: (merchant, livemode, subscriptionId) => subscriptions.renewNow(merchant, livemode, subscriptionId),
    },
  ];
  for (const { path, tags, operationId, summary, description, perform } of actions) {
    api.post(
      path,
      {
        schema: {
          tags,
          operationId,
          summary,
          description,
          querystring: LivemodeQuery,
          params: SubscriptionIdParams,
          body: EmptyBody,
          response: { 200: Envelope(Subscription), ...errorResponses(403, 404, 409) },
        },
      },
      async (request) => {
        const { merchant } = requireAuth(request);
        return succeeded(await perform(merchant, request.query.livemode, request.params.subscriptionId));
      },
    );
  }
}
