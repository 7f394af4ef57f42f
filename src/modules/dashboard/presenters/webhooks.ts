import { and, asc, count, desc, eq, gte, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookEndpoints } from '../../../db/schema/index.ts';
import type { KeyRing } from '../../../crypto/keyring.ts';
import type { Merchant } from '../../merchants/index.ts';
import { eventTypes, type EventsService, type EventType } from '../../events/index.ts';
import { secretAssociatedData, subscribes, testEventIdPrefix, type WebhookDeliveryView, type WebhooksService } from '../../webhooks/index.ts';
import { createdWithin, everyRow, pageSize, readPage, type CreatedRange, type PageOf } from './pagination.ts';

export interface EventRowView {
  id: string;
  type: string;
  createdAt: Date;
  deliveries: { succeeded: number; pending: number; failed: number };
}

type DeliveriesOf = { endpointId: string } | { eventId: string };

function deliveryScope(merchantId: string, livemode: boolean, of: DeliveriesOf): SQL[] {
  return [
    eq(webhookDeliveries.merchantId, merchantId),
    eq(webhookDeliveries.livemode, livemode),
    'endpointId' in of ? eq(webhookDeliveries.endpointId, of.endpointId) : eq(webhookDeliveries.eventId, of.eventId),
  ];
}

/** What a delivery's CSV row says of it beside its endpoint or event: status, attempts, the last answer's status code and error (never its body), dates. */
const deliverySummary = {
  status: webhookDeliveries.status,
  attemptCount: webhookDeliveries.attemptCount,
  lastAttemptAt: webhookDeliveries.lastAttemptAt,
  lastStatusCode: webhookDeliveries.lastStatusCode,
  lastError: webhookDeliveries.lastError,
  nextAttemptAt: webhookDeliveries.nextAttemptAt,
  completedAt: webhookDeliveries.completedAt,
  createdAt: webhookDeliveries.createdAt,
};

/** A delivery as its CSV row: what the endpoint's page shows of it, without the attempts' answers. */
export interface DeliveryCsvRow {
  id: string;
  eventId: string;
  eventType: string;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  attemptCount: number;
  lastAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  nextAttemptAt: Date | null;
  completedAt: Date | null;
  createdAt: Date;
}

/** A delivery of an event as its CSV row: the endpoint it went to (its address while it exists), then what the event's page shows, without the attempts' answers. */
export type EventDeliveryCsvRow = Omit<DeliveryCsvRow, 'eventId' | 'eventType'> & { endpointId: string; endpointUrl: string | null };

/** A row of the endpoints list: what the screen shows, never the signing secret. */
export interface EndpointRowView {
  id: string;
  url: string;
  description: string | null;
  enabledEvents: string[];
  status: 'ENABLED' | 'DISABLED';
  failingSince: Date | null;
  createdAt: Date;
}

/** An event as its CSV row: the delivery summary as three counts. */
export interface EventCsvRow {
  id: string;
  type: string;
  createdAt: Date;
  deliveriesSucceeded: number;
  deliveriesPending: number;
  deliveriesFailed: number;
}

/** An endpoint as its CSV row: the event types joined by spaces (`*` for every type). */
export type EndpointCsvRow = Omit<EndpointRowView, 'enabledEvents'> & { enabledEvents: string };

export function parseEventType(raw: string): EventType | undefined {
  return (eventTypes as readonly string[]).includes(raw) ? (raw as EventType) : undefined;
}

/** More than a mode may have (`maxEndpointsPerMode`): the list is one read. */
const maxEndpointsListed = 100;

/**
 * Read model of the developer screens for webhooks: endpoints and deliveries through the webhooks
 * service, the event log by SQL (offset pages with a delivery summary per event).
 */
export function createWebhooksPresenter(deps: { database: Database; keyRing: KeyRing; webhooks: WebhooksService; events: EventsService }) {
  const { database, webhooks } = deps;

  /**
   * One page of an endpoint's or an event's deliveries created in `period`, newest first, as the
   * webhooks service reads them (with attempts). The service pages by cursor; the dashboard's pages
   * are numbered, so the page's rows are found by offset (scoped by merchant and mode, the period
   * applied), and the service reads that many after the delivery just before the page: the one
   * before it in the period, or on the first page the oldest one created at or after the period's end.
   */
  async function deliveryPage(merchant: Merchant, livemode: boolean, of: DeliveriesOf, page: number, period: CreatedRange = {}): Promise<PageOf<WebhookDeliveryView>> {
    const scope = deliveryScope(merchant.id, livemode, of);
    // From the second page on, the row just before the page is read with it: it is the cursor.
    const before = page > 1 ? 1 : 0;
    const found = await database.db
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(...scope, ...createdWithin(webhookDeliveries.createdAt, period)))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(pageSize + 1 + before)
      .offset((page - 1) * pageSize - before);
    const onPage = found.slice(before);
    if (onPage.length === 0) {
      return { items: [], page, hasMore: false };
    }
    const [anchor] =
      page > 1
        ? found
        : period.createdBefore
          ? await database.db
              .select({ id: webhookDeliveries.id })
              .from(webhookDeliveries)
              .where(and(...scope, gte(webhookDeliveries.createdAt, period.createdBefore)))
              .orderBy(asc(webhookDeliveries.createdAt), asc(webhookDeliveries.id))
              .limit(1)
          : [];
    const limit = Math.min(onPage.length, pageSize);
    const { deliveries } = await webhooks.listDeliveries(merchant, livemode, { ...of, limit, ...(anchor ? { startingAfter: anchor.id } : {}) });
    return { items: deliveries, page, hasMore: onPage.length > pageSize };
  }

  /** An endpoint's deliveries for the CSV: the summary the page shows of each (its attempts stay on the page). */
  function deliveryRows(merchantId: string, livemode: boolean, of: DeliveriesOf, period: CreatedRange, after: SQL[], limit: number): Promise<DeliveryCsvRow[]> {
    return database.db
      .select({
        id: webhookDeliveries.id,
        eventId: webhookDeliveries.eventId,
        eventType: webhookDeliveries.eventType,
        ...deliverySummary,
      })
      .from(webhookDeliveries)
      .where(and(...deliveryScope(merchantId, livemode, of), ...createdWithin(webhookDeliveries.createdAt, period), ...after))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit);
  }

  /** An event's deliveries for the CSV: the endpoint (its address unless deleted, as the page shows it) and the summary of each. */
  function eventDeliveryRows(merchantId: string, livemode: boolean, eventId: string, after: SQL[], limit: number): Promise<EventDeliveryCsvRow[]> {
    return database.db
      .select({
        id: webhookDeliveries.id,
        endpointId: webhookDeliveries.endpointId,
        endpointUrl: webhookEndpoints.url,
        ...deliverySummary,
      })
      .from(webhookDeliveries)
      .leftJoin(webhookEndpoints, and(eq(webhookEndpoints.id, webhookDeliveries.endpointId), eq(webhookEndpoints.merchantId, merchantId), isNull(webhookEndpoints.deletedAt)))
      .where(and(...deliveryScope(merchantId, livemode, { eventId }), ...after))
      .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
      .limit(limit);
  }

  /** The endpoints of a mode (at most 16), newest first, the period applied; deleted ones are gone. */
  function endpointRows(merchantId: string, livemode: boolean, period: CreatedRange, after: SQL[], limit: number): Promise<EndpointRowView[]> {
    return database.db
      .select({
        id: webhookEndpoints.id,
        url: webhookEndpoints.url,
        description: webhookEndpoints.description,
        enabledEvents: webhookEndpoints.enabledEvents,
        status: webhookEndpoints.status,
        failingSince: webhookEndpoints.failingSince,
        createdAt: webhookEndpoints.createdAt,
      })
      .from(webhookEndpoints)
      .where(and(eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.livemode, livemode), isNull(webhookEndpoints.deletedAt), ...createdWithin(webhookEndpoints.createdAt, period), ...after))
      .orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id))
      .limit(limit);
  }

  function eventRows(merchantId: string, livemode: boolean, filters: { type?: EventType }, period: CreatedRange, after: SQL[], limit: number, offset: number) {
    // Like GET /v1/events: test events are reached from their endpoint's deliveries, not listed here.
    const conditions: SQL[] = [eq(events.merchantId, merchantId), eq(events.livemode, livemode), sql`not starts_with(${events.id}, ${testEventIdPrefix})`, ...createdWithin(events.createdAt, period), ...after];
    if (filters.type) {
      conditions.push(eq(events.type, filters.type));
    }
    return database.db
      .select({ id: events.id, type: events.type, createdAt: events.createdAt })
      .from(events)
      .where(and(...conditions))
      .orderBy(desc(events.createdAt), desc(events.id))
      .limit(limit)
      .offset(offset);
  }

  /** The events with how many of their deliveries succeeded, wait and failed (one grouped query). */
  async function withDeliveries(merchantId: string, rows: Array<Omit<EventRowView, 'deliveries'>>): Promise<EventRowView[]> {
    const ids = rows.map((row) => row.id);
    const summary =
      ids.length === 0
        ? []
        : await database.db
            .select({ eventId: webhookDeliveries.eventId, status: webhookDeliveries.status, total: count() })
            .from(webhookDeliveries)
            .where(and(eq(webhookDeliveries.merchantId, merchantId), inArray(webhookDeliveries.eventId, ids)))
            .groupBy(webhookDeliveries.eventId, webhookDeliveries.status);
    return rows.map((row) => {
      const of = (status: string) => Number(summary.find((found) => found.eventId === row.id && found.status === status)?.total ?? 0);
      return { ...row, deliveries: { succeeded: of('SUCCEEDED'), pending: of('PENDING'), failed: of('FAILED') } };
    });
  }

  return {
    /** The mode's endpoints the period selects (a mode has at most 16: one read, no pages). */
    endpoints: (merchantId: string, livemode: boolean, period: CreatedRange = {}) => endpointRows(merchantId, livemode, period, [], maxEndpointsListed),

    /** Every endpoint the period selects, newest first (the CSV export). */
    exportEndpoints(merchantId: string, livemode: boolean, period: CreatedRange): AsyncGenerator<EndpointCsvRow> {
      return everyRow({ createdAt: webhookEndpoints.createdAt, id: webhookEndpoints.id }, async (after, limit) =>
        (await endpointRows(merchantId, livemode, period, after, limit)).map((endpoint) => ({ ...endpoint, enabledEvents: endpoint.enabledEvents.join(' ') })),
      );
    },

    /** The endpoint and one page of its deliveries created in `period` (with attempts), newest first; NOT_FOUND outside the merchant and mode. */
    async endpoint(merchant: Merchant, livemode: boolean, endpointId: string, page = 1, period: CreatedRange = {}) {
      const endpoint = await webhooks.getEndpoint(merchant, livemode, endpointId);
      const deliveries = await deliveryPage(merchant, livemode, { endpointId: endpoint.id }, page, period);
      // What webhooks.sendTestEvent accepts: the endpoint's types; FRAUD_REPORTED only once the operator enabled it.
      const testEventTypes = eventTypes.filter((type) => subscribes(endpoint.enabledEvents, type) && (type !== 'FRAUD_REPORTED' || merchant.fraudReportWebhooksEnabled));
      return { endpoint, deliveries, testEventTypes };
    },

    /** Every delivery of the endpoint created in `period`, newest first (the CSV export); NOT_FOUND outside the merchant and mode. */
    async exportDeliveries(merchant: Merchant, livemode: boolean, endpointId: string, period: CreatedRange): Promise<AsyncGenerator<DeliveryCsvRow>> {
      const endpoint = await webhooks.getEndpoint(merchant, livemode, endpointId);
      return everyRow({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }, (after, limit) => deliveryRows(merchant.id, livemode, { endpointId: endpoint.id }, period, after, limit));
    },

    /**
     * The endpoint's current signing secret. A read, so it lives here; the webhooks service shows
     * the secret only on create and rotate.
     */
    async revealSecret(merchantId: string, livemode: boolean, endpointId: string): Promise<string | null> {
      const [row] = await database.db
        .select({ id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, secretCiphertext: webhookEndpoints.secretCiphertext })
        .from(webhookEndpoints)
        .where(and(eq(webhookEndpoints.id, endpointId), eq(webhookEndpoints.merchantId, merchantId), eq(webhookEndpoints.livemode, livemode), isNull(webhookEndpoints.deletedAt)));
      return row ? deps.keyRing.decrypt(row.secretCiphertext, secretAssociatedData(row, 'secret')) : null;
    },

    events(merchantId: string, livemode: boolean, filters: { type?: EventType }, page: number, period: CreatedRange = {}): Promise<PageOf<EventRowView>> {
      return readPage(page, (limit, offset) => eventRows(merchantId, livemode, filters, period, [], limit, offset).then((rows) => withDeliveries(merchantId, rows)));
    },

    /** Every event the filters select, newest first, with its delivery summary (the CSV export). */
    exportEvents(merchantId: string, livemode: boolean, filters: { type?: EventType }, period: CreatedRange): AsyncGenerator<EventCsvRow> {
      return everyRow({ createdAt: events.createdAt, id: events.id }, async (after, limit) =>
        (await withDeliveries(merchantId, await eventRows(merchantId, livemode, filters, period, after, limit, 0))).map(({ deliveries, ...event }) => ({
          ...event,
          deliveriesSucceeded: deliveries.succeeded,
          deliveriesPending: deliveries.pending,
          deliveriesFailed: deliveries.failed,
        })),
      );
    },

    /** The event with one page of its deliveries and their attempts; NOT_FOUND outside the merchant and mode. */
    async event(merchant: Merchant, livemode: boolean, eventId: string, page = 1) {
      const event = await deps.events.getEvent(merchant, livemode, eventId);
      const deliveries = await deliveryPage(merchant, livemode, { eventId: event.id }, page);
      const endpoints = await webhooks.listEndpoints(merchant, livemode);
      return { event, deliveries, endpointUrls: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url])) };
    },

    /**
     * Every delivery of the event, newest first (the CSV export); NOT_FOUND outside the merchant and
     * mode. No period: an event has one delivery an endpoint, all made when it fanned out.
     */
    async exportEventDeliveries(merchant: Merchant, livemode: boolean, eventId: string): Promise<AsyncGenerator<EventDeliveryCsvRow>> {
      const event = await deps.events.getEvent(merchant, livemode, eventId);
      return everyRow({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id }, (after, limit) => eventDeliveryRows(merchant.id, livemode, event.id, after, limit));
    },
  };
}

export type WebhooksPresenter = ReturnType<typeof createWebhooksPresenter>;
