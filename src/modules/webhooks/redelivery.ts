import { eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { fraudReportWebhooksEnabled, type Merchant } from '../merchants/index.ts';
import { eventView, findEvent, recordTestEvent, type EventType, type EventView } from '../events/index.ts';
import { enqueueDeliveries } from './delivery.ts';
import { deliveryView, deliveryViews, type DeliveryRow } from './delivery-log.ts';
import { endpointScope, type EndpointRow } from './endpoints.ts';
import { subscribes } from './rules.ts';
import { exampleEventData, isTestEventId, newTestEventId } from './test-events.ts';
import type { WebhookDeliveryView } from './schemas.ts';

/** A new delivery of an event to one endpoint, due now: the first run of its retry schedule. */
function pendingDelivery(now: Date, target: { eventId: string; endpointId: string; merchantId: string; livemode: boolean; eventType: string }): typeof webhookDeliveries.$inferInsert {
  return { id: newId('webhookDelivery', now.getTime()), ...target, status: 'PENDING', generation: 1, attemptCount: 0, nextAttemptAt: now, createdAt: now, updatedAt: now };
}

/** Sending an event again (redelivery), and sending an example event to one endpoint (test events). */
export function createRedelivery(deps: { database: Database; clock: Clock; publicUrl: string }) {
  const { database, clock } = deps;
  return {
    /**
     * Sends an event again: to one endpoint, or to every enabled endpoint of its mode that subscribes
     * to its type. Each gets a fresh run of the retry schedule; an attempt chain of an earlier run
     * stops (its jobs carry an older generation). The `webhook-id` stays the event id.
     */
    async redeliver(merchant: Merchant, livemode: boolean | undefined, eventId: string, endpointId: string | undefined): Promise<{ deliveries: WebhookDeliveryView[] }> {
      const now = clock.now();
      const rows = await database.transaction(async (tx) => {
        const event = await findEvent(tx, { merchantId: merchant.id, livemode, eventId });
        if (!event) {
          throw notFound('event', eventId);
        }
        const fraudBlocked = event.type === 'FRAUD_REPORTED' && !(await fraudReportWebhooksEnabled(tx, merchant.id));
        // A test event belongs to the one endpoint it was sent to (sendTestEvent): redelivery never fans it out.
        const testEndpointIds = isTestEventId(event.id)
          ? new Set((await tx.select({ endpointId: webhookDeliveries.endpointId }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id))).map((row) => row.endpointId))
          : null;
        if (testEndpointIds && endpointId !== undefined && !testEndpointIds.has(endpointId)) {
          throw new AppError('INVALID_STATE', `Test event ${event.id} was sent to another endpoint; send a new test event to ${endpointId} instead`);
        }
        let targets: EndpointRow[];
        if (endpointId !== undefined) {
          const [endpoint] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, event.livemode, eq(webhookEndpoints.id, endpointId)));
          if (!endpoint) {
            throw notFound('webhook endpoint', endpointId);
          }
          if (endpoint.status !== 'ENABLED') {
            throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} is disabled; enable it first`);
          }
          if (!subscribes(endpoint.enabledEvents, event.type)) {
            throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} does not subscribe to ${event.type} events`);
          }
          if (fraudBlocked) {
            throw new AppError('INVALID_STATE', 'FRAUD_REPORTED webhooks are not enabled for this merchant; ask the operator to enable them');
          }
          targets = [endpoint];
        } else {
          targets = fraudBlocked
            ? []
            : (await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, event.livemode, eq(webhookEndpoints.status, 'ENABLED')))).filter(
                (endpoint) => subscribes(endpoint.enabledEvents, event.type) && (testEndpointIds === null || testEndpointIds.has(endpoint.id)),
              );
        }
        const upserted: DeliveryRow[] = [];
        for (const endpoint of targets) {
          const [row] = await tx
            .insert(webhookDeliveries)
            .values(pendingDelivery(now, { eventId: event.id, endpointId: endpoint.id, merchantId: event.merchantId, livemode: event.livemode, eventType: event.type }))
            .onConflictDoUpdate({
              target: [webhookDeliveries.eventId, webhookDeliveries.endpointId],
              set: { status: 'PENDING', generation: sql`${webhookDeliveries.generation} + 1`, nextAttemptAt: now, completedAt: null, updatedAt: now },
            })
            .returning();
          if (row) {
            upserted.push(row);
          }
        }
        await enqueueDeliveries(tx, now, upserted);
        return upserted;
      });
      return { deliveries: await deliveryViews(database.db, rows) };
    },

    /**
     * Sends an example event of `eventType` (one of the endpoint's enabled types) to this endpoint
     * only: the event (`evt_test_…`, example data with test ids, see test-events.ts) and its one
     * delivery are written in one transaction with the delivery job, and from there it goes the normal
     * way — signed, logged with every attempt, retried on failure, redeliverable to this endpoint.
     * No fan-out job is enqueued, so no other endpoint sees it; `GET /v1/events` does not list it.
     */
    async sendTestEvent(merchant: Merchant, livemode: boolean | undefined, endpointId: string, eventType: EventType): Promise<{ event: EventView; delivery: WebhookDeliveryView }> {
      const now = clock.now();
      const { event, delivery } = await database.transaction(async (tx) => {
        // Locked so a concurrent disable, delete or change of events cannot slip in between the checks and the insert.
        const [endpoint] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).for('update');
        if (!endpoint) {
          throw notFound('webhook endpoint', endpointId);
        }
        if (endpoint.status !== 'ENABLED') {
          throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} is disabled; enable it first`);
        }
        if (!subscribes(endpoint.enabledEvents, eventType)) {
          throw wrongParameter('eventType', `must be one of the event types the endpoint receives (${endpoint.enabledEvents.join(', ')})`);
        }
        if (eventType === 'FRAUD_REPORTED') {
          if (!(await fraudReportWebhooksEnabled(tx, merchant.id))) {
            throw new AppError('INVALID_STATE', 'FRAUD_REPORTED webhooks are not enabled for this merchant; ask the operator to enable them');
          }
        }
        const data = exampleEventData(eventType, { merchantId: merchant.id, livemode: endpoint.livemode, publicUrl: deps.publicUrl, now });
        const eventId = newTestEventId(now);
        const eventRow = await recordTestEvent(tx, { id: eventId, merchantId: merchant.id, livemode: endpoint.livemode, type: eventType, data, createdAt: now });
        const [deliveryRow] = await tx
          .insert(webhookDeliveries)
          .values(pendingDelivery(now, { eventId, endpointId: endpoint.id, merchantId: merchant.id, livemode: endpoint.livemode, eventType }))
          .returning();
        if (!deliveryRow) {
          throw new Error('test event insert returned nothing');
        }
        await enqueueDeliveries(tx, now, [deliveryRow]);
        return { event: eventRow, delivery: deliveryRow };
      });
      return { event: eventView(event), delivery: deliveryView(delivery, []) };
    },
  };
}
