import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { webhookDeliveries, type webhookEndpoints } from '../../db/schema/index.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock } from '../../clock.ts';
import type { AttemptResult } from './http-client.ts';
import { nextRetryDelayMs, parseRetryAfter } from './retry.ts';
import { updateCircuit } from './deferral.ts';
import type { createEndpointHealth } from './health.ts';

/**
 * The attempt log of webhook delivery: what an attempt's result means for its delivery, and the
 * statements that record it (the delivery row, its attempt row, the next attempt's job, the
 * endpoint's health and circuit), in the caller's transaction. The jobs that make the attempts are
 * in delivery.ts.
 */

export const deliverQueue = 'webhooks.deliver';

export interface DeliverPayload {
  deliveryId: string;
  /** Jobs of an older generation (before a redelivery) do nothing. */
  generation: number;
  /** 1-based attempt within this generation; picks the retry step. */
  attempt: number;
  /** The endpoint's half-open probe, claimed for this attempt by its unpark job (unpark.ts). */
  probe?: boolean;
}

export type EndpointRow = typeof webhookEndpoints.$inferSelect;
/** What an attempt uses of its event (a row of the events module's table, read by the fan-out). */
export interface EventRow {
  id: string;
  merchantId: string;
  livemode: boolean;
  type: string;
  createdAt: Date;
  data: unknown;
}

/** One attempt to make: which delivery (and generation), to which endpoint, of which event. */
export interface AttemptTarget {
  deliveryId: string;
  generation: number;
  /** 1-based attempt within the generation. */
  attempt: number;
  endpoint: EndpointRow;
  event: EventRow;
  merchantEmail: string;
}

export function createAttemptLog(deps: {
  clock: Clock;
  /** Real time for Retry-After dates. */
  wallClock: Clock;
  random: () => number;
  updateEndpointHealth: ReturnType<typeof createEndpointHealth>['updateEndpointHealth'];
}) {
  const { clock, wallClock, random, updateEndpointHealth } = deps;

  /** What an attempt's result means: the delivery's next status and, when failing, the next attempt. */
  function planAfter(target: AttemptTarget, result: AttemptResult): { attemptedAt: Date; status: 'PENDING' | 'SUCCEEDED' | 'FAILED'; nextAttemptAt: Date | null } {
    const attemptedAt = clock.now();
    const gone = result.statusCode === 410;
    const delay = result.ok || gone ? null : nextRetryDelayMs(target.attempt, parseRetryAfter(result.retryAfter, wallClock.now()), random);
    const nextAttemptAt = delay === null ? null : new Date(attemptedAt.getTime() + delay);
    return { attemptedAt, status: result.ok ? 'SUCCEEDED' : nextAttemptAt ? 'PENDING' : 'FAILED', nextAttemptAt };
  }

  /** The retry job (when the delivery goes on) and the endpoint's health, after an attempt was recorded. */
  async function followUp(tx: Executor, target: AttemptTarget, result: AttemptResult, plan: ReturnType<typeof planAfter>, advanced: boolean): Promise<void> {
    if (advanced && plan.status === 'PENDING' && plan.nextAttemptAt) {
      await enqueueJob(tx, plan.attemptedAt, deliverQueue, { deliveryId: target.deliveryId, generation: target.generation, attempt: target.attempt + 1 } satisfies DeliverPayload, {
        runAt: plan.nextAttemptAt,
        dedupeKey: `${deliverQueue}:${target.deliveryId}:${target.generation}:${target.attempt + 1}`,
      });
    }
    await updateEndpointHealth(tx, target.endpoint, target.merchantEmail, result, plan.attemptedAt);
    await updateCircuit(tx, target.endpoint, result, plan.attemptedAt);
  }

  /**
   * Records an attempt of an existing delivery and moves it on, in the caller's transaction: counting
   * the attempt, updating the delivery and logging the attempt row are one statement. An attempt
   * whose delivery was redelivered (or finished) meanwhile is logged without changing the status.
   */
  async function recordAttempt(tx: Executor, target: AttemptTarget, result: AttemptResult): Promise<void> {
    const plan = planAfter(target, result);
    const at = plan.attemptedAt.toISOString();
    const [row] = await queryRows<{ advanced: boolean }>(
      tx,
      sql`with current_delivery as (
            select id, (generation = ${target.generation} and status = 'PENDING') as advancing
            from webhook_deliveries where id = ${target.deliveryId} for update
          ), updated as (
            update webhook_deliveries d set
              attempt_count = d.attempt_count + 1,
              last_attempt_at = ${at}::timestamptz,
              last_status_code = ${result.statusCode}::integer,
              last_error = ${result.error}::text,
              updated_at = ${at}::timestamptz,
              status = case when c.advancing then ${plan.status}::text else d.status end,
              next_attempt_at = case when c.advancing then ${plan.nextAttemptAt ? plan.nextAttemptAt.toISOString() : null}::timestamptz else d.next_attempt_at end,
              completed_at = case when c.advancing then ${plan.status === 'PENDING' ? null : at}::timestamptz else d.completed_at end
            from current_delivery c where d.id = c.id
            returning d.attempt_count, c.advancing
          ), attempt as (
            insert into webhook_delivery_attempts (delivery_id, number, generation, url, outcome, status_code, latency_ms, response_body, error, attempted_at)
            select ${target.deliveryId}, attempt_count, ${target.generation}::integer, ${target.endpoint.url}::text, ${result.ok ? 'SUCCEEDED' : 'FAILED'}::text,
                   ${result.statusCode}::integer, ${result.latencyMs}::integer, ${result.responseBody}::text, ${result.error}::text, ${at}::timestamptz
            from updated
          )
          select advancing as advanced from updated`,
    );
    if (row) {
      await followUp(tx, target, result, plan, row.advanced);
    }
  }

  /**
   * Writes a new delivery together with its first attempt (one statement). False when the event
   * already has a delivery to that endpoint (a redelivery got there first): then the attempt is
   * recorded on that one.
   */
  async function recordFirstAttempt(tx: Executor, target: AttemptTarget, result: AttemptResult, createdAt: Date): Promise<void> {
    const plan = planAfter(target, result);
    const at = plan.attemptedAt.toISOString();
    const { event, endpoint } = target;
    const inserted = await queryRows<{ id: string }>(
      tx,
      sql`with delivery as (
            insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, livemode, event_type, status, generation, attempt_count,
                                            next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, updated_at, completed_at)
            values (${target.deliveryId}, ${event.id}, ${endpoint.id}, ${event.merchantId}, ${event.livemode}, ${event.type}, ${plan.status}::text, 1, 1,
                    ${plan.nextAttemptAt ? plan.nextAttemptAt.toISOString() : null}::timestamptz, ${at}::timestamptz, ${result.statusCode}::integer, ${result.error}::text,
                    ${createdAt.toISOString()}::timestamptz, ${at}::timestamptz, ${plan.status === 'PENDING' ? null : at}::timestamptz)
            on conflict (event_id, endpoint_id) do nothing
            returning id
          ), attempt as (
            insert into webhook_delivery_attempts (delivery_id, number, generation, url, outcome, status_code, latency_ms, response_body, error, attempted_at)
            select id, 1, 1, ${endpoint.url}::text, ${result.ok ? 'SUCCEEDED' : 'FAILED'}::text,
                   ${result.statusCode}::integer, ${result.latencyMs}::integer, ${result.responseBody}::text, ${result.error}::text, ${at}::timestamptz
            from delivery
          )
          select id from delivery`,
    );
    if (inserted.length === 1) {
      await followUp(tx, target, result, plan, true);
      return;
    }
    const [existing] = await tx
      .select({ id: webhookDeliveries.id })
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, event.id), eq(webhookDeliveries.endpointId, endpoint.id)));
    if (existing) {
      await recordAttempt(tx, { ...target, deliveryId: existing.id }, result);
    }
  }

  /**
   * `recordFirstAttempt` for many targets: every new delivery and its first attempt in one
   * statement (the rows travel as one JSON parameter). Targets whose delivery already existed (a
   * redelivery got there first) are recorded on that one, one by one, as before.
   */
  async function recordFirstAttempts(tx: Executor, attempts: ReadonlyArray<{ target: AttemptTarget; result: AttemptResult }>, createdAt: Date): Promise<void> {
    if (attempts.length === 1 && attempts[0]) {
      await recordFirstAttempt(tx, attempts[0].target, attempts[0].result, createdAt);
      return;
    }
    const planned = attempts.map(({ target, result }) => ({ target, result, plan: planAfter(target, result) }));
    const input = planned.map(({ target, result, plan }) => ({
      delivery_id: target.deliveryId,
      event_id: target.event.id,
      endpoint_id: target.endpoint.id,
      merchant_id: target.event.merchantId,
      livemode: target.event.livemode,
      event_type: target.event.type,
      status: plan.status,
      next_attempt_at: plan.nextAttemptAt ? plan.nextAttemptAt.toISOString() : null,
      attempted_at: plan.attemptedAt.toISOString(),
      completed_at: plan.status === 'PENDING' ? null : plan.attemptedAt.toISOString(),
      status_code: result.statusCode,
      error: result.error,
      url: target.endpoint.url,
      outcome: result.ok ? 'SUCCEEDED' : 'FAILED',
      latency_ms: result.latencyMs,
      response_body: result.responseBody,
    }));
    const inserted = await queryRows<{ id: string }>(
      tx,
      sql`with input as (
            select * from jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as r(
              delivery_id text, event_id text, endpoint_id text, merchant_id text, livemode boolean, event_type text, status text,
              next_attempt_at timestamptz, attempted_at timestamptz, completed_at timestamptz, status_code integer, error text,
              url text, outcome text, latency_ms integer, response_body text)
          ), delivery as (
            insert into webhook_deliveries (id, event_id, endpoint_id, merchant_id, livemode, event_type, status, generation, attempt_count,
                                            next_attempt_at, last_attempt_at, last_status_code, last_error, created_at, updated_at, completed_at)
            select delivery_id, event_id, endpoint_id, merchant_id, livemode, event_type, status, 1, 1,
                   next_attempt_at, attempted_at, status_code, error, ${createdAt.toISOString()}::timestamptz, attempted_at, completed_at
            from input
            on conflict (event_id, endpoint_id) do nothing
            returning id
          ), attempt as (
            insert into webhook_delivery_attempts (delivery_id, number, generation, url, outcome, status_code, latency_ms, response_body, error, attempted_at)
            select i.delivery_id, 1, 1, i.url, i.outcome, i.status_code, i.latency_ms, i.response_body, i.error, i.attempted_at
            from input i join delivery d on d.id = i.delivery_id
          )
          select id from delivery`,
    );
    const insertedIds = new Set(inserted.map((row) => row.id));
    for (const { target, result, plan } of planned) {
      if (insertedIds.has(target.deliveryId)) {
        // A success to a healthy endpoint needs nothing more (followUp would find nothing to do).
        if (!(result.ok && !target.endpoint.failingSince && target.endpoint.consecutiveTimeouts === 0)) {
          await followUp(tx, target, result, plan, true);
        }
        continue;
      }
      const [existing] = await tx
        .select({ id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.eventId, target.event.id), eq(webhookDeliveries.endpointId, target.endpoint.id)));
      if (existing) {
        await recordAttempt(tx, { ...target, deliveryId: existing.id }, result);
      }
    }
  }

  return { recordAttempt, recordFirstAttempts };
}
