import { and, eq } from 'drizzle-orm';
import { events } from '../../db/schema/index.ts';
import type { Executor } from '../../db/client.ts';
import { newId } from '../../crypto/ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';

/** Every event type the platform emits. */
export const eventTypes = ['PAYOUT_PAGE_UPDATED', 'PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED', 'FRAUD_REPORTED', 'ENTITLEMENT_CREATED', 'PAYMENT_REFUNDED', 'REFUND_FAILED', 'DISPUTE_CREATED', 'DISPUTE_CLOSED', 'CUSTOMER_ERASED', 'PAYOUT_PAGE_LOCKED', 'PAYOUT_PAGE_REISSUED'] as const;
export type EventType = (typeof eventTypes)[number];

/** The job that fans an event out to the merchant's webhook endpoints. */
export const eventFanoutQueue = 'webhooks.fanout';

export interface RecordedEvent {
  id: string;
  type: EventType;
  createdAt: Date;
}

/**
 * Records a business event inside the caller's transaction (the transactional outbox): the event,
 * and the job that delivers it, exist if and only if the state change they report commits.
 * `data` must carry no PII beyond what the event's documented data shows (docs/API.md §12).
 */
export async function recordEvent(
  tx: Executor,
  now: Date,
  event: { merchantId: string; livemode: boolean; type: EventType; data: Record<string, unknown> },
): Promise<RecordedEvent> {
  const id = newId('event', now.getTime());
  await tx.insert(events).values({ id, merchantId: event.merchantId, livemode: event.livemode, type: event.type, data: event.data, createdAt: now });
  // No dedupe key: the event's primary key makes this job exactly once (it commits with the event,
  // whose id is new), and a key would add a unique-index entry and check to each of the job's row
  // versions, on the hottest queue (decision 0068).
  await enqueueJob(tx, now, eventFanoutQueue, { eventId: id }, { maxAttempts: 25 });
  return { id, type: event.type, createdAt: now };
}

export type EventRow = typeof events.$inferSelect;

/** One event of a merchant (in `livemode` when given); null when there is none. */
export async function findEvent(executor: Executor, target: { merchantId: string; livemode: boolean | undefined; eventId: string }): Promise<EventRow | null> {
  const [row] = await executor
    .select()
    .from(events)
    .where(and(eq(events.merchantId, target.merchantId), eq(events.id, target.eventId), ...(target.livemode === undefined ? [] : [eq(events.livemode, target.livemode)])));
  return row ?? null;
}

/**
 * Records a test event (webhooks' `sendTestEvent`) with the id it was given: no fan-out job, since it
 * goes to one endpoint only, whose delivery the caller writes in the same transaction.
 */
export async function recordTestEvent(tx: Executor, event: { id: string; merchantId: string; livemode: boolean; type: EventType; data: Record<string, unknown>; createdAt: Date }): Promise<EventRow> {
  const [row] = await tx.insert(events).values(event).returning();
  if (!row) {
    throw new Error('test event insert returned nothing');
  }
  return row;
}
