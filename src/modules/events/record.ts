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
 * `data` must carry no PII beyond what the event's contract shows.
 */
export async function recordEvent(
  tx: Executor,
  now: Date,
  event: { merchantId: string; livemode: boolean; type: EventType; data: Record<string, unknown> },
): Promise<RecordedEvent> {
  const id = newId('event', now.getTime());
  await tx.insert(events).values({ id, merchantId: event.merchantId, livemode: event.livemode, type: event.type, data: event.data, createdAt: now });
  await enqueueJob(tx, now, eventFanoutQueue, { eventId: id }, { dedupeKey: `${eventFanoutQueue}:${id}`, maxAttempts: 25 });
  return { id, type: event.type, createdAt: now };
}
