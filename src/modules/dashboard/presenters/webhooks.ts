import { and, count, desc, eq, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookEndpoints } from '../../../db/schema/index.ts';
import type { KeyRing } from '../../../crypto/keyring.ts';
import type { Merchant } from '../../merchants/index.ts';
import { eventTypes, type EventsService, type EventType } from '../../events/index.ts';
import { secretAssociatedData, subscribes, testEventIdPrefix, type WebhookDeliveryView, type WebhooksService } from '../../webhooks/index.ts';
import { pageSize, readPage, type PageOf } from './pagination.ts';

export interface EventRowView {
  id: string;
  type: string;
  createdAt: Date;
  deliveries: { succeeded: number; pending: number; failed: number };
}

export function parseEventType(raw: string): EventType | undefined {
  return (eventTypes as readonly string[]).includes(raw) ? (raw as EventType) : undefined;
}

/**
 * Read model of the developer screens for webhooks: endpoints and deliveries through the webhooks
 * service, the event log by SQL (offset pages with a delivery summary per event).
 */
export function createWebhooksPresenter(deps: { database: Database; keyRing: KeyRing; webhooks: WebhooksService; events: EventsService }) {
  const { database, webhooks } = deps;

  /**
   * One page of an endpoint's or an event's deliveries, newest first, as the webhooks service reads
   * them (with attempts). The service pages by cursor; the dashboard's pages are numbered, so the
   * last delivery before the page (found by offset, scoped by merchant and mode) is the cursor.
   */
  async function deliveryPage(merchant: Merchant, livemode: boolean, of: { endpointId: string } | { eventId: string }, page: number): Promise<PageOf<WebhookDeliveryView>> {
    let startingAfter: string | undefined;
    if (page > 1) {
      const [anchor] = await database.db
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(
          and(
            eq(webhookDeliveries.merchantId, merchant.id),
            eq(webhookDeliveries.livemode, livemode),
            'endpointId' in of ? eq(webhookDeliveries.endpointId, of.endpointId) : eq(webhookDeliveries.eventId, of.eventId),
          ),
        )
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(1)
        .offset((page - 1) * pageSize - 1);
      if (!anchor) {
        return { items: [], page, hasMore: false };
      }
      startingAfter = anchor.id;
    }
    const { deliveries, hasMore } = await webhooks.listDeliveries(merchant, livemode, { ...of, limit: pageSize, ...(startingAfter ? { startingAfter } : {}) });
    return { items: deliveries, page, hasMore };
  }

  return {
    endpoints: (merchant: Merchant, livemode: boolean) => webhooks.listEndpoints(merchant, livemode),

    /** The endpoint and one page of its deliveries (with attempts), newest first; NOT_FOUND outside the merchant and mode. */
    async endpoint(merchant: Merchant, livemode: boolean, endpointId: string, page = 1) {
      const endpoint = await webhooks.getEndpoint(merchant, livemode, endpointId);
      const deliveries = await deliveryPage(merchant, livemode, { endpointId: endpoint.id }, page);
      // What webhooks.sendTestEvent accepts: the endpoint's types; FRAUD_REPORTED only once the operator enabled it.
      const testEventTypes = eventTypes.filter((type) => subscribes(endpoint.enabledEvents, type) && (type !== 'FRAUD_REPORTED' || merchant.fraudReportWebhooksEnabled));
      return { endpoint, deliveries, testEventTypes };
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

    async events(merchantId: string, livemode: boolean, filters: { type?: EventType }, page: number): Promise<PageOf<EventRowView>> {
      // Like GET /v1/events: test events are reached from their endpoint's deliveries, not listed here.
      const conditions: SQL[] = [eq(events.merchantId, merchantId), eq(events.livemode, livemode), sql`not starts_with(${events.id}, ${testEventIdPrefix})`];
      if (filters.type) {
        conditions.push(eq(events.type, filters.type));
      }
      const result = await readPage(page, (limit, offset) =>
        database.db
          .select({ id: events.id, type: events.type, createdAt: events.createdAt })
          .from(events)
          .where(and(...conditions))
          .orderBy(desc(events.createdAt), desc(events.id))
          .limit(limit)
          .offset(offset),
      );
      const ids = result.items.map((item) => item.id);
      const summary =
        ids.length === 0
          ? []
          : await database.db
              .select({ eventId: webhookDeliveries.eventId, status: webhookDeliveries.status, total: count() })
              .from(webhookDeliveries)
              .where(and(eq(webhookDeliveries.merchantId, merchantId), inArray(webhookDeliveries.eventId, ids)))
              .groupBy(webhookDeliveries.eventId, webhookDeliveries.status);
      return {
        ...result,
        items: result.items.map((item) => {
          const of = (status: string) => Number(summary.find((row) => row.eventId === item.id && row.status === status)?.total ?? 0);
          return { ...item, deliveries: { succeeded: of('SUCCEEDED'), pending: of('PENDING'), failed: of('FAILED') } };
        }),
      };
    },

    /** The event with one page of its deliveries and their attempts; NOT_FOUND outside the merchant and mode. */
    async event(merchant: Merchant, livemode: boolean, eventId: string, page = 1) {
      const event = await deps.events.getEvent(merchant, livemode, eventId);
      const deliveries = await deliveryPage(merchant, livemode, { eventId: event.id }, page);
      const endpoints = await webhooks.listEndpoints(merchant, livemode);
      return { event, deliveries, endpointUrls: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url])) };
    },
  };
}

export type WebhooksPresenter = ReturnType<typeof createWebhooksPresenter>;
