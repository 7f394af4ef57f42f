import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, modeForCreate, requireAuth } from '../../http/auth.ts';
import {
  DeliveryIdParams,
  DeliveryListQuery,
  RedeliverBody,
  RotateSecretBody,
  SendTestEventBody,
  TestEventResult,
  WebhookDelivery,
  WebhookEndpoint,
  WebhookEndpointCreateBody,
  WebhookEndpointIdParams,
  WebhookEndpointUpdateBody,
  WebhookEndpointWithSecret,
  maxEndpointsPerMode,
} from './schemas.ts';
import type { WebhooksService } from './service.ts';
import { EventIdParams } from '../events/index.ts';

const tags = ['Webhooks'];

/**
 * `/v1/events/:eventId/redeliver`, `/v1/webhook_endpoints` and `/v1/webhook_deliveries` (docs/API.md §12;
 * docs/guides/webhooks.md). Registered right after the events routes, so the redeliver route keeps its
 * place beside them in the OpenAPI document.
 */
export function registerWebhookRoutes(api: Api, webhooks: WebhooksService): void {
  api.post(
    '/events/:eventId/redeliver',
    {
      schema: {
        tags: ['Events', 'Webhooks'],
        operationId: 'events_redeliver',
        summary: 'Redeliver an event',
        description:
          'Sends the event again to `endpointId`, or to every enabled endpoint of its mode that subscribes to its type, with a fresh retry schedule. ' +
          'The `webhook-id` stays the event id, so receivers that de-duplicate see a repeat.',
        querystring: LivemodeQuery,
        params: EventIdParams,
        body: RedeliverBody,
        response: { 200: Envelope(Type.Object({ deliveries: Type.Array(WebhookDelivery) })), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.redeliver(merchant, modeFilter(merchant, request.query.livemode), request.params.eventId, request.body?.endpointId ?? undefined));
    },
  );
  api.post(
    '/webhook_endpoints',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_create',
        summary: 'Create a webhook endpoint',
        description:
          `Registers a URL that receives this mode's events (at most ${maxEndpointsPerMode} per mode). The answer carries the signing \`secret\` (\`whsec_…\`), ` +
          'shown only here and on rotation. Live endpoints must use https; targets must be public addresses unless the operator allows private ones.',
        querystring: LivemodeQuery,
        body: WebhookEndpointCreateBody,
        response: { 200: Envelope(WebhookEndpointWithSecret), ...errorResponses(403, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.createEndpoint(merchant, modeForCreate(merchant, request.query.livemode), request.body));
    },
  );

  api.get(
    '/webhook_endpoints',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_list',
        summary: 'List webhook endpoints',
        description: 'Newest first. Without `livemode`, both modes.',
        querystring: LivemodeQuery,
        response: { 200: Envelope(Type.Object({ webhookEndpoints: Type.Array(WebhookEndpoint) })), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded({ webhookEndpoints: await webhooks.listEndpoints(merchant, modeFilter(merchant, request.query.livemode)) });
    },
  );

  api.get(
    '/webhook_endpoints/:endpointId',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_retrieve',
        summary: 'Read a webhook endpoint',
        querystring: LivemodeQuery,
        params: WebhookEndpointIdParams,
        response: { 200: Envelope(WebhookEndpoint), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.getEndpoint(merchant, modeFilter(merchant, request.query.livemode), request.params.endpointId));
    },
  );

  api.post(
    '/webhook_endpoints/:endpointId',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_update',
        summary: 'Update a webhook endpoint',
        description: 'Changes `url`, `enabledEvents` or `description`, or enables/disables the endpoint (`status`). Re-enabling clears the failure streak.',
        querystring: LivemodeQuery,
        params: WebhookEndpointIdParams,
        body: WebhookEndpointUpdateBody,
        response: { 200: Envelope(WebhookEndpoint), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.updateEndpoint(merchant, modeFilter(merchant, request.query.livemode), request.params.endpointId, request.body));
    },
  );

  api.delete(
    '/webhook_endpoints/:endpointId',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_delete',
        summary: 'Delete a webhook endpoint',
        description: 'No further events are sent to it; pending deliveries stop. Past deliveries stay listed.',
        querystring: LivemodeQuery,
        params: WebhookEndpointIdParams,
        response: { 200: Envelope(Type.Object({ id: Type.String(), deleted: Type.Literal(true) })), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.deleteEndpoint(merchant, modeFilter(merchant, request.query.livemode), request.params.endpointId));
    },
  );

  api.post(
    '/webhook_endpoints/:endpointId/rotate_secret',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_rotateSecret',
        summary: 'Rotate the signing secret',
        description:
          'Returns a new `secret`. For `gracePeriodSeconds` (default 24 h) the previous secret keeps signing as well: `webhook-signature` carries both signatures ' +
          'and the body `signature` still uses the previous secret; afterwards only the new one signs. See docs/webhooks.md.',
        querystring: LivemodeQuery,
        params: WebhookEndpointIdParams,
        body: RotateSecretBody,
        response: { 200: Envelope(WebhookEndpointWithSecret), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.rotateSecret(merchant, modeFilter(merchant, request.query.livemode), request.params.endpointId, request.body?.gracePeriodSeconds));
    },
  );

  api.post(
    '/webhook_endpoints/:endpointId/test',
    {
      schema: {
        tags,
        operationId: 'webhookEndpoints_sendTestEvent',
        summary: 'Send a test event',
        description:
          'Sends an example event of `eventType` (one the endpoint receives) to this endpoint only, through the normal delivery: signed, logged with every attempt, ' +
          'retried on failure. The event id starts with `evt_test_` and every object id in `data` has `test_` after its prefix (`page_test_000…`), so it cannot be ' +
          'mistaken for a real one. Test events are not listed by GET /v1/events (GET /v1/events/:id reads one); their deliveries are listed by GET /v1/webhook_deliveries. ' +
          'The endpoint must be enabled (409 otherwise). See docs/webhooks.md.',
        querystring: LivemodeQuery,
        params: WebhookEndpointIdParams,
        body: SendTestEventBody,
        response: { 200: Envelope(TestEventResult), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.sendTestEvent(merchant, modeFilter(merchant, request.query.livemode), request.params.endpointId, request.body.eventType));
    },
  );

  api.get(
    '/webhook_deliveries',
    {
      schema: {
        tags,
        operationId: 'webhookDeliveries_list',
        summary: 'List webhook deliveries',
        description: 'One delivery per event and endpoint, with every attempt (status code, latency, first 1 KiB of the answer). Newest first; filter by `eventId`, `endpointId`, `status`.',
        querystring: DeliveryListQuery,
        response: {
          200: Envelope(Type.Object({ deliveries: Type.Array(WebhookDelivery), hasMore: Type.Boolean(), nextCursor: Type.Optional(Type.String()) })),
          ...errorResponses(403),
        },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.listDeliveries(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/webhook_deliveries/:deliveryId',
    {
      schema: {
        tags,
        operationId: 'webhookDeliveries_retrieve',
        summary: 'Read a webhook delivery',
        querystring: LivemodeQuery,
        params: DeliveryIdParams,
        response: { 200: Envelope(WebhookDelivery), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await webhooks.getDelivery(merchant, modeFilter(merchant, request.query.livemode), request.params.deliveryId));
    },
  );
}
