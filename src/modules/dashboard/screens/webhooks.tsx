import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import { eventTypes, type EventType } from '../../events/index.ts';
import type { WebhooksService } from '../../webhooks/index.ts';
import { field, fieldValues, noticeOf, notFoundPage, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath, withQuery } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseEventType, type WebhooksPresenter } from '../presenters/webhooks.ts';
import { EventPage, EventsPage, WebhookEndpointPage, WebhooksPage } from '../pages/webhooks.tsx';
import { deleteEndpointConfirmation, rotateWebhookSecretConfirmation } from '../pages/confirmations.tsx';
import { confirmFirst } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { anyTime, parseListPeriod } from '../date-range.ts';

/** The endpoints CSV: the list's columns (`enabledEvents` joined by spaces, `*` for every type); never the signing secret. */
export const endpointCsvColumns = ['id', 'url', 'description', 'enabledEvents', 'status', 'failingSince', 'createdAt'] as const;
/** An endpoint's deliveries CSV: what its page shows of each, without the attempts' answers. */
export const deliveryCsvColumns = ['id', 'eventId', 'eventType', 'status', 'attemptCount', 'lastAttemptAt', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'completedAt', 'createdAt'] as const;
/** An event's deliveries CSV: the endpoint (its address, empty once deleted) and what the event's page shows of each delivery, without the attempts' answers. */
export const eventDeliveryCsvColumns = ['id', 'endpointId', 'endpointUrl', 'status', 'attemptCount', 'lastAttemptAt', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'completedAt', 'createdAt'] as const;
/** The event log CSV: the list's columns, its delivery summary as three counts. */
export const eventCsvColumns = ['id', 'type', 'createdAt', 'deliveriesSucceeded', 'deliveriesPending', 'deliveriesFailed'] as const;

/** What the redirect after "Send test event" may carry to the page (anything else is ignored). */
const testEventIdPattern = /^evt_test_[0-9a-z]{36}$/;

/** Checked event types; none checked means every type (`["*"]`, the API's default). */
function enabledEventsOf(body: unknown): EventType[] | undefined {
  const chosen = fieldValues(body, 'enabledEvents').filter((value): value is EventType => (eventTypes as readonly string[]).includes(value));
  return chosen.length === 0 ? undefined : [...new Set(chosen)];
}

/** Webhook endpoints and the event log: every change goes through the webhooks service. */
export function registerWebhookScreens(web: Api, tools: ScreenTools, deps: { presenter: WebhooksPresenter; webhooks: WebhooksService }): void {
  const { presenter, webhooks } = deps;
  const endpointsPath = (mode: 'sandbox' | 'live') => modePath(mode, '/developers/webhooks');

  web.get('/:mode/developers/webhooks', async (request, reply) => {
    const view = screen(tools, request, reply);
    const period = parseListPeriod(request.query);
    const flash = tools.flash.take(request, reply, view.session);
    const endpoints = await presenter.endpoints(view.session.merchant.id, view.livemode, period);
    const created = flash?.endpointId && flash.secret ? { id: flash.endpointId, secret: flash.secret } : undefined;
    return view.page((frame) => WebhooksPage({ frame, endpoints, period, ...noticeOf(request), ...(created ? { created } : {}) }));
  });

  web.get('/:mode/developers/webhooks/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = presenter.exportEndpoints(view.session.merchant.id, view.livemode, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `webhook-endpoints-${view.mode}.csv`, columns: endpointCsvColumns, rows });
  });

  web.post('/:mode/developers/webhooks', async (request, reply) => {
    const view = screen(tools, request, reply);
    const url = field(request.body, 'url', 2048).trim();
    const description = field(request.body, 'description', 255).trim();
    const enabledEvents = enabledEventsOf(request.body);
    try {
      if (url === '') {
        throw new AppError('WRONG_PARAMETER', 'Enter the address (URL) of your endpoint');
      }
      const created = await webhooks.createEndpoint(view.session.merchant, view.livemode, { url, ...(description ? { description } : {}), ...(enabledEvents ? { enabledEvents } : {}) });
      // The secret travels in the sealed flash cookie, never in a URL; the next page shows it once.
      tools.flash.put(reply, view.session, { endpointId: created.id, secret: created.secret });
      return reply.redirect(withQuery(endpointsPath(view.mode), { notice: 'endpoint-created' }), 303);
    } catch (error) {
      if (error instanceof AppError && (error.code === 'WRONG_PARAMETER' || error.code === 'INVALID_STATE')) {
        const endpoints = await presenter.endpoints(view.session.merchant.id, view.livemode);
        return view.page((frame) => WebhooksPage({ frame, endpoints, period: anyTime, error: `${error.message}.`, form: { url, description, enabledEvents: enabledEvents ?? [] } }), { status: error.statusCode });
      }
      throw error;
    }
  });

  web.get('/:mode/developers/webhooks/:endpointId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const period = parseListPeriod(request.query);
    const detail = await presenter.endpoint(view.session.merchant, view.livemode, param(request, 'endpointId'), parsePage(field(request.query, 'page', 5)), period);
    const flash = tools.flash.take(request, reply, view.session);
    const rotated = flash?.endpointId === detail.endpoint.id && flash.secret ? { title: 'New signing secret', value: flash.secret } : undefined;
    const queued = field(request.query, 'notice', 40) === 'test-event-sent' ? field(request.query, 'event', 60) : '';
    return view.page((frame) =>
      WebhookEndpointPage({ frame, ...detail, period, ...noticeOf(request), ...(rotated ? { secret: rotated } : {}), ...(testEventIdPattern.test(queued) ? { queuedTestEventId: queued } : {}) }),
    );
  });

  web.get('/:mode/developers/webhooks/:endpointId/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await presenter.exportDeliveries(view.session.merchant, view.livemode, param(request, 'endpointId'), parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `webhook-deliveries-${view.mode}.csv`, columns: deliveryCsvColumns, rows });
  });

  web.post('/:mode/developers/webhooks/:endpointId/test', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    const eventType = parseEventType(field(request.body, 'eventType', 40));
    try {
      if (!eventType) {
        throw new AppError('WRONG_PARAMETER', 'Choose the type of the test event');
      }
      const { event } = await webhooks.sendTestEvent(view.session.merchant, view.livemode, endpointId, eventType);
      return reply.redirect(withQuery(`${endpointsPath(view.mode)}/${encodeURIComponent(endpointId)}`, { notice: 'test-event-sent', event: event.id }), 303);
    } catch (error) {
      // Refusals (a type the endpoint does not receive, a disabled endpoint) are shown on the page with the service's reason.
      if (error instanceof AppError && (error.code === 'WRONG_PARAMETER' || error.code === 'INVALID_STATE')) {
        const detail = await presenter.endpoint(view.session.merchant, view.livemode, endpointId);
        return view.page((frame) => WebhookEndpointPage({ frame, ...detail, error: `${error.message}.`, testEventType: eventType }), { status: error.statusCode });
      }
      throw error;
    }
  });

  web.post('/:mode/developers/webhooks/:endpointId/reveal', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    const secret = await presenter.revealSecret(view.session.merchant.id, view.livemode, endpointId);
    if (secret === null) {
      throw notFoundPage('webhook endpoint');
    }
    const detail = await presenter.endpoint(view.session.merchant, view.livemode, endpointId);
    return view.page((frame) => WebhookEndpointPage({ frame, ...detail, secret: { title: 'Signing secret', value: secret } }));
  });

  web.post('/:mode/developers/webhooks/:endpointId/rotate', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    const confirming = await confirmFirst(view, request, {
      section: 'webhooks',
      back: `${endpointsPath(view.mode)}/${encodeURIComponent(endpointId)}`,
      confirmation: async () => rotateWebhookSecretConfirmation(await webhooks.getEndpoint(view.session.merchant, view.livemode, endpointId)),
    });
    if (confirming) {
      return reply;
    }
    const rotated = await webhooks.rotateSecret(view.session.merchant, view.livemode, endpointId);
    tools.flash.put(reply, view.session, { endpointId: rotated.id, secret: rotated.secret });
    return reply.redirect(withQuery(`${endpointsPath(view.mode)}/${encodeURIComponent(rotated.id)}`, { notice: 'secret-rotated' }), 303);
  });

  web.post('/:mode/developers/webhooks/:endpointId/status', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    const status = field(request.body, 'status', 10) === 'DISABLED' ? 'DISABLED' : 'ENABLED';
    await webhooks.updateEndpoint(view.session.merchant, view.livemode, endpointId, { status });
    return reply.redirect(withQuery(`${endpointsPath(view.mode)}/${encodeURIComponent(endpointId)}`, { notice: status === 'ENABLED' ? 'endpoint-enabled' : 'endpoint-disabled' }), 303);
  });

  web.post('/:mode/developers/webhooks/:endpointId/events', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    await webhooks.updateEndpoint(view.session.merchant, view.livemode, endpointId, { enabledEvents: enabledEventsOf(request.body) ?? ['*' as const] });
    return reply.redirect(withQuery(`${endpointsPath(view.mode)}/${encodeURIComponent(endpointId)}`, { notice: 'endpoint-updated' }), 303);
  });

  web.post('/:mode/developers/webhooks/:endpointId/delete', async (request, reply) => {
    const view = screen(tools, request, reply);
    const endpointId = param(request, 'endpointId');
    const confirming = await confirmFirst(view, request, {
      section: 'webhooks',
      back: `${endpointsPath(view.mode)}/${encodeURIComponent(endpointId)}`,
      confirmation: async () => deleteEndpointConfirmation(await webhooks.getEndpoint(view.session.merchant, view.livemode, endpointId)),
    });
    if (confirming) {
      return reply;
    }
    await webhooks.deleteEndpoint(view.session.merchant, view.livemode, endpointId);
    return reply.redirect(withQuery(endpointsPath(view.mode), { notice: 'endpoint-deleted' }), 303);
  });

  web.get('/:mode/developers/events', async (request, reply) => {
    const view = screen(tools, request, reply);
    const type = parseEventType(field(request.query, 'type', 40));
    const period = parseListPeriod(request.query);
    const result = await presenter.events(view.session.merchant.id, view.livemode, type ? { type } : {}, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => EventsPage({ frame, type, period, result }));
  });

  web.get('/:mode/developers/events/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const type = parseEventType(field(request.query, 'type', 40));
    const rows = presenter.exportEvents(view.session.merchant.id, view.livemode, type ? { type } : {}, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `events-${view.mode}.csv`, columns: eventCsvColumns, rows });
  });

  web.get('/:mode/developers/events/:eventId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const detail = await presenter.event(view.session.merchant, view.livemode, param(request, 'eventId'), parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => EventPage({ frame, ...detail, ...noticeOf(request) }));
  });

  web.get('/:mode/developers/events/:eventId/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await presenter.exportEventDeliveries(view.session.merchant, view.livemode, param(request, 'eventId'));
    return sendCsv(request, reply, { filename: `event-deliveries-${view.mode}.csv`, columns: eventDeliveryCsvColumns, rows });
  });

  web.post('/:mode/developers/events/:eventId/redeliver', async (request, reply) => {
    const view = screen(tools, request, reply);
    const eventId = param(request, 'eventId');
    const endpointId = field(request.body, 'endpointId', 100);
    return runAction(reply, modePath(view.mode, `/developers/events/${encodeURIComponent(eventId)}`), 'redelivered', () =>
      webhooks.redeliver(view.session.merchant, view.livemode, eventId, endpointId === '' ? undefined : endpointId),
    );
  });
}
