import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { RedeliverBody, WebhookDelivery } from '../webhooks/schemas.ts';
import type { WebhooksService } from '../webhooks/service.ts';
import { EventIdParams, EventList, EventListQuery, EventSchema } from './schemas.ts';
import type { EventsService } from './service.ts';

const tags = ['Events'];

/** `/v1/events`: what happened, kept 30 days, and redelivery to webhook endpoints. */
export function registerEventRoutes(api: Api, services: { events: EventsService; webhooks: WebhooksService }): void {
  const { events, webhooks } = services;

  api.get(
    '/events',
    {
      schema: {
        tags,
        operationId: 'events_list',
        summary: 'List events',
        description: 'Newest first, kept 30 days. Page with `limit` and `startingAfter` (the previous `nextCursor`, or an event id); filter by `type` and `livemode`.',
        querystring: EventListQuery,
        response: { 200: Envelope(EventList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await events.listEvents(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/events/:eventId',
    {
      schema: {
        tags,
        operationId: 'events_retrieve',
        summary: 'Read an event',
        querystring: LivemodeQuery,
        params: EventIdParams,
        response: { 200: Envelope(EventSchema), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await events.getEvent(merchant, modeFilter(merchant, request.query.livemode), request.params.eventId));
    },
  );

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
}
