import { and, count, desc, eq, inArray, isNull, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { events, webhookDeliveries, webhookEndpoints } from '../../../db/schema/index.ts';
import type { KeyRing } from '../../../crypto/keyring.ts';
import type { Merchant } from '../../merchants/service.ts';
import type { EventsService } from '../../events/service.ts';
import { eventTypes, type EventType } from '../../events/record.ts';
import type { WebhooksService } from '../../webhooks/service.ts';
import { secretAssociatedData } from '../../webhooks/delivery.ts';
import { readPage, type PageOf } from './pagination.ts';

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

  return {
    endpoints: (merchant: Merchant, livemode: boolean) => webhooks.listEndpoints(merchant, livemode),

    /** The endpoint and its latest deliveries (with attempts); NOT_FOUND outside the merchant and mode. */
    async endpoint(merchant: Merchant, livemode: boolean, endpointId: string) {
      const endpoint = await webhooks.getEndpoint(merchant, livemode, endpointId);
      const { deliveries, hasMore } = await webhooks.listDeliveries(merchant, livemode, { endpointId: endpoint.id, limit: 25 });
      return { endpoint, deliveries, hasMore };
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
      const conditions: SQL[] = [eq(events.merchantId, merchantId), eq(events.livemode, livemode)];
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

    /** The event with every delivery and attempt; NOT_FOUND outside the merchant and mode. */
    async event(merchant: Merchant, livemode: boolean, eventId: string) {
      const event = await deps.events.getEvent(merchant, livemode, eventId);
      const { deliveries } = await webhooks.listDeliveries(merchant, livemode, { eventId: event.id, limit: 100 });
      const endpoints = await webhooks.listEndpoints(merchant, livemode);
      return { event, deliveries, endpointUrls: new Map(endpoints.map((endpoint) => [endpoint.id, endpoint.url])) };
    },
  };
}

export type WebhooksPresenter = ReturnType<typeof createWebhooksPresenter>;
