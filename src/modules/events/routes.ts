import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { EventIdParams, EventList, EventListQuery, EventSchema } from './schemas.ts';
import type { EventsService } from './service.ts';

const tags = ['Events'];

/** `/v1/events`: what happened, kept 30 days (redelivery to webhook endpoints is the webhooks module's route). */
export function registerEventRoutes(api: Api, events: EventsService): void {

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
}
