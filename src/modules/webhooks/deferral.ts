import { and, eq, gte, isNull, lte, or, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { jobInsertStatement, noPendingJob, notifyInsertedJobs } from '../../jobs/queue.ts';
import type { AttemptResult } from './http-client.ts';
import { circuitOpenMs, circuitThreshold, isTimeout } from './fairness.ts';

/**
 * The database side of fair delivery (decision 0027, rules in fairness.ts): deliveries parked
 * without an attempt (and without a job: one unpark job per endpoint wakes them), and each
 * endpoint's circuit breaker.
 */

/** The job that hands an endpoint's parked deliveries back to the retry lane (unpark.ts). */
export const unparkQueue = 'webhooks.unpark';

/** A first attempt not made now: the delivery is parked, PENDING, until its endpoint's unpark job at `wakeAt`. */
export interface DeferredDelivery {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  merchantId: string;
  livemode: boolean;
  eventType: string;
  wakeAt: Date;
}

/**
 * The endpoint's unpark job at `at`, unless one is already pending at or before then: many parked
 * deliveries share one job, so waiting costs nothing per delivery. (Not a dedupe key: a finished
 * unpark job must not stop the next one. Two racing transactions may both insert; the second job
 * then finds nothing or hands back the rest, harmlessly.)
 */
export async function ensureUnpark(tx: Executor, endpointId: string, at: Date, now: Date): Promise<void> {
  await queryRows(tx, sql`with inserted as (${jobInsertStatement(now, unparkQueue, { endpointId }, { runAt: at }, noPendingJob(unparkQueue, at, 'endpointId', endpointId))}) ${notifyInsertedJobs('inserted')}`);
}

/**
 * Writes deferred first attempts as parked deliveries in one statement (the rows as one JSON
 * parameter), and one unpark job per endpoint. A delivery that exists already (a redelivery got
 * there first) keeps its own.
 */
export async function parkNewDeliveries(tx: Executor, deferred: readonly DeferredDelivery[], now: Date): Promise<void> {
  if (deferred.length === 0) {
    return;
  }
  const at = now.toISOString();
  const input = deferred.map((row) => ({
    delivery_id: row.deliveryId,
    event_id: row.eventId,
    endpoint_id: row.endpointId,
    merchant_id: row.merchantId,
    livemode: row.livemode,
    event_type: row.eventType,
    wake_at: row.wakeAt.toISOString(),
  }));
  await queryRows(
    tx,
    sql`insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, livemode, event_type, status, generation, attempt_count,
                                        next_attempt_at, parked_at, created_at, updated_at)
        select delivery_id, event_id, endpoint_id, merchant_id, livemode, event_type, 'PENDING', 1, 0, wake_at, ${at}::timestamptz, ${at}::timestamptz, ${at}::timestamptz
        from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as r(
          delivery_id text, event_id text, endpoint_id text, merchant_id text, livemode boolean, event_type text, wake_at timestamptz)
        on conflict (event_id, endpoint_id) do nothing
        returning id`,
  );
  const earliest = new Map<string, Date>();
  for (const row of deferred) {
    const known = earliest.get(row.endpointId);
    if (!known || row.wakeAt < known) {
      earliest.set(row.endpointId, row.wakeAt);
    }
  }
  for (const [endpointId, wakeAt] of earliest) {
    await ensureUnpark(tx, endpointId, wakeAt, now);
  }
}

/** A first attempt whose job finds its endpoint unavailable: parked (the job then completes), with the endpoint's unpark job. */
export async function parkDelivery(tx: Executor, delivery: { id: string; generation: number; endpointId: string }, wakeAt: Date, now: Date): Promise<void> {
  const parked = await tx
    .update(webhookDeliveries)
    .set({ parkedAt: now, nextAttemptAt: wakeAt, updatedAt: now })
    .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.generation, delivery.generation), eq(webhookDeliveries.status, 'PENDING')))
    .returning({ id: webhookDeliveries.id });
  if (parked.length === 1) {
    await ensureUnpark(tx, delivery.endpointId, wakeAt, now);
  }
}

/**
 * After an attempt, in its transaction: a timeout counts one more in a row (opening the circuit at
 * `circuitThreshold`, for longer each time); any answer closes it again.
 */
export async function updateCircuit(tx: Executor, endpoint: { id: string; consecutiveTimeouts: number }, result: AttemptResult, now: Date): Promise<void> {
  if (!isTimeout(result)) {
    if (endpoint.consecutiveTimeouts > 0) {
      await tx.update(webhookEndpoints).set({ consecutiveTimeouts: 0, circuitOpenUntil: null }).where(eq(webhookEndpoints.id, endpoint.id));
    }
    return;
  }
  const [counted] = await tx
    .update(webhookEndpoints)
    .set({ consecutiveTimeouts: sql`${webhookEndpoints.consecutiveTimeouts} + 1` })
    .where(eq(webhookEndpoints.id, endpoint.id))
    .returning({ consecutiveTimeouts: webhookEndpoints.consecutiveTimeouts });
  const openMs = counted ? circuitOpenMs(counted.consecutiveTimeouts) : null;
  if (openMs !== null) {
    await tx.update(webhookEndpoints).set({ circuitOpenUntil: new Date(now.getTime() + openMs) }).where(eq(webhookEndpoints.id, endpoint.id));
  }
}

/**
 * The half-open probe: the one worker whose conditional UPDATE moves `circuit_open_until` past the
 * probe's own time may send; the others find the circuit open again and wait.
 */
export async function claimProbe(executor: Executor, endpointId: string, now: Date, probeMs: number): Promise<Date | null> {
  const until = new Date(now.getTime() + probeMs);
  const [claimed] = await executor
    .update(webhookEndpoints)
    .set({ circuitOpenUntil: until })
    .where(
      and(
        eq(webhookEndpoints.id, endpointId),
        gte(webhookEndpoints.consecutiveTimeouts, circuitThreshold),
        or(isNull(webhookEndpoints.circuitOpenUntil), lte(webhookEndpoints.circuitOpenUntil, now)),
      ),
    )
    .returning({ id: webhookEndpoints.id });
  return claimed ? until : null;
}
