import { and, eq } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { BatchContext, BatchJob, JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { deliveryEvents, eventFanoutQueue } from '../events/index.ts';
import { merchantEmailOf } from '../merchants/index.ts';
import type { AttemptResult, WebhookHttpClient } from './http-client.ts';
import { subscribes } from './rules.ts';
import { afterCircuit, attemptTimeoutMs, circuitState, DeliveryGate, spread, type FairnessLimits } from './fairness.ts';
import { claimProbe, parkDelivery, parkNewDeliveries, type DeferredDelivery } from './deferral.ts';
import { createUnparkJob } from './unpark.ts';
import { createEndpointHealth } from './health.ts';
import { createAttemptLog, deliverQueue, type AttemptTarget, type DeliverPayload } from './attempt-log.ts';
import { createAttemptSender } from './sender.ts';
import { readFanoutRows } from './fanout-read.ts';

export { deliverQueue, type DeliverPayload } from './attempt-log.ts';
export { secretAssociatedData } from './sender.ts';

export { failureDisableAfterMs, failureWarningAfterMs } from './health.ts';

/** What a delivery reads of its event: the events module's subquery (decision 0049). */
const eventColumns = { id: deliveryEvents.id, merchantId: deliveryEvents.merchantId, livemode: deliveryEvents.livemode, type: deliveryEvents.type, createdAt: deliveryEvents.createdAt, data: deliveryEvents.data };

/** Fan-out jobs in flight per worker (each one event's first attempts), and claimed per round trip. */
export const fanoutConcurrency = 256;
export const fanoutBatchSize = 64;
/**
 * Retries, redeliveries and deferred first attempts in flight per worker: twice a merchant's cap
 * (fairness.ts), so one merchant's slow receivers leave at least half of it to the others.
 */
export const deliverConcurrency = 128;
/** A fan-out batch writes what has answered by then, and the rest when it has answered too. */
export const fanoutFlushAfterMs = 250;

/** Enqueues the first attempt of each (redelivered) delivery, inside the caller's transaction. */
export async function enqueueDeliveries(tx: Executor, now: Date, deliveries: ReadonlyArray<{ id: string; generation: number }>): Promise<void> {
  for (const delivery of deliveries) {
    await enqueueJob(tx, now, deliverQueue, { deliveryId: delivery.id, generation: delivery.generation, attempt: 1 } satisfies DeliverPayload, {
      dedupeKey: `${deliverQueue}:${delivery.id}:${delivery.generation}`,
    });
  }
}

export interface DeliveryJobsDeps {
  database: Database;
  clock: Clock;
  /** Real time for `webhook-timestamp` and Retry-After dates: receivers compare them with their own clocks. */
  wallClock: Clock;
  keyRing: KeyRing;
  logger: Logger;
  client: WebhookHttpClient;
  publicUrl: string;
  /** The configured attempt timeout (WEBHOOK_TIMEOUT_MS); endpoints that timed out get a shorter one. */
  timeoutMs: number;
  /** In-flight caps of this process (fairness.ts); default `defaultFairnessLimits`. */
  fairness?: FairnessLimits;
  random?: () => number;
}

/**
 * The two delivery jobs.
 *
 * `webhooks.fanout` {eventId} (enqueued by recordEvent with the event) makes the first attempt to
 * every enabled endpoint of the event's merchant and mode that subscribes to its type —
 * FRAUD_REPORTED only when the operator enabled it for the merchant — in parallel, then writes one
 * delivery per endpoint together with that attempt, in the transaction that completes the job: one
 * job hop from the event to the receiver. A worker that dies before that commit leaves the job to
 * be run again (the attempts are made again; at least once).
 *
 * `webhooks.deliver` {deliveryId, generation, attempt} makes a retry (or a redelivery's first
 * attempt).
 *
 * Each HTTP attempt is made outside any transaction; one transaction then records it, moves the
 * delivery on (SUCCEEDED, FAILED, or PENDING with the next attempt enqueued at its retry time),
 * updates the endpoint's health, and completes the job. Delivery is at least once; every copy
 * carries the same `webhook-id` (the event id).
 */
export function createDeliveryJobs(deps: DeliveryJobsDeps): { fanout: JobDefinition<{ eventId: string }>; deliver: JobDefinition<DeliverPayload>; unpark: JobDefinition<{ endpointId: string }> } {
  const { database, clock, wallClock, keyRing, logger, client } = deps;
  const random = deps.random ?? Math.random;
  const gate = new DeliveryGate(deps.fairness);
  /** When a deferred attempt is tried again: after the attempts in flight had time to answer. */
  const retryGateAt = (now: Date) => spread(now, 2_000, Math.max(3_000, deps.timeoutMs), random);
  const { updateEndpointHealth } = createEndpointHealth({ keyRing, logger, publicUrl: deps.publicUrl });
  const { recordAttempt, recordFirstAttempts } = createAttemptLog({ clock, wallClock, random, updateEndpointHealth });
  const { send } = createAttemptSender({ clock, wallClock, keyRing, client, timeoutMs: deps.timeoutMs });

  function deferredRow(target: AttemptTarget, wakeAt: Date | undefined): DeferredDelivery[] {
    if (!wakeAt) {
      return [];
    }
    const { event, endpoint } = target;
    return [{ deliveryId: target.deliveryId, eventId: event.id, endpointId: endpoint.id, merchantId: event.merchantId, livemode: event.livemode, eventType: event.type, wakeAt }];
  }

  /**
   * The fan-out of several events (one job each): the events, their merchants and candidate
   * endpoints in one query; every first attempt in parallel; then one transaction completes the
   * jobs and writes their deliveries with the attempts. The jobs whose attempts have all answered
   * within `fanoutFlushAfterMs` are written then, so one slow receiver does not hold up the others'
   * bookkeeping; the rest in the following windows (each twice as long), as they answer (or time out).
   */
  async function fanoutBatch(jobs: BatchJob<{ eventId: string }>[], context: BatchContext<{ eventId: string }>): Promise<void> {
    const now = context.now;
    const rows = await readFanoutRows(database.db, [...new Set(jobs.map((job) => job.payload.eventId))]);
    const byEvent = new Map<string, typeof rows>();
    for (const row of rows) {
      const list = byEvent.get(row.event.id) ?? [];
      list.push(row);
      byEvent.set(row.event.id, list);
    }
    const targetsByJob = new Map<string, AttemptTarget[]>();
    for (const job of jobs) {
      const eventRows = byEvent.get(job.payload.eventId) ?? [];
      const first = eventRows[0];
      if (!first || (first.event.type === 'FRAUD_REPORTED' && !first.fraudEnabled)) {
        targetsByJob.set(job.id, []);
        continue;
      }
      const { event, merchantEmail } = first;
      targetsByJob.set(
        job.id,
        eventRows.flatMap((row) =>
          row.endpoint && subscribes(row.endpoint.enabledEvents, event.type)
            ? [{ deliveryId: newId('webhookDelivery', now.getTime()), generation: 1, attempt: 1, endpoint: row.endpoint, event, merchantEmail }]
            : [],
        ),
      );
    }
    // First attempts in parallel; the deliveries are written with them, and each job completes in
    // the same transaction (a crash before then runs it all again: at least once). An endpoint whose
    // circuit is not closed, or that has too many slow attempts (fairness.ts), gets no attempt now:
    // its delivery is deferred to the retry lane, so the job does not wait on it.
    const results = new Map<AttemptTarget, AttemptResult>();
    const deferred = new Map<AttemptTarget, Date>();
    const attemptOrDefer = async (target: AttemptTarget): Promise<void> => {
      const circuit = circuitState(target.endpoint, now);
      if (circuit !== 'closed') {
        deferred.set(target, afterCircuit(target.endpoint, now, random));
        return;
      }
      const slot = await gate.acquire(target.endpoint.id, target.event.merchantId);
      if (!slot) {
        deferred.set(target, retryGateAt(clock.now()));
        return;
      }
      try {
        results.set(target, await send(target));
      } finally {
        slot.release();
      }
    };
    const sent = Promise.all([...targetsByJob.values()].flat().map(attemptOrDefer));
    const ready = (job: BatchJob<{ eventId: string }>) => (targetsByJob.get(job.id) ?? []).every((target) => results.has(target) || deferred.has(target));
    const flush = async (batch: BatchJob<{ eventId: string }>[]) =>
      context.transaction(batch, async (tx, held) => {
        const targets = held.flatMap((job) => targetsByJob.get(job.id) ?? []);
        const attempts = targets.flatMap((target) => {
          const result = results.get(target);
          return result ? [{ target, result }] : [];
        });
        if (attempts.length > 0) {
          await recordFirstAttempts(tx, attempts, now);
        }
        await parkNewDeliveries(tx, targets.flatMap((target) => deferredRow(target, deferred.get(target))), now);
      });
    // After `fanoutFlushAfterMs`, then after windows twice as long each time, the jobs that are ready
    // by then are written: a receiver that answers after the first window (a loaded machine, a
    // slowish endpoint) is written in a later one, not held back until the slowest of the batch
    // answers; a batch that takes long (a backlog queued on the per-endpoint cap) is written in a few
    // transactions, not one every window. Once all have answered (or been deferred), every job is ready.
    let open = jobs;
    let windowMs = fanoutFlushAfterMs;
    while (open.length > 0) {
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([sent, new Promise<void>((resolve) => (timer = setTimeout(resolve, windowMs)))]);
      windowMs *= 2;
      clearTimeout(timer);
      const due = open.filter(ready);
      if (due.length > 0) {
        open = open.filter((job) => !due.includes(job));
        await flush(due);
      }
    }
  }

  const fanout: JobDefinition<{ eventId: string }> = {
    queue: eventFanoutQueue,
    // A lane of its own: first attempts neither wait behind other jobs nor hold them up.
    concurrency: fanoutConcurrency,
    batchSize: fanoutBatchSize,
    handleBatch: fanoutBatch,
    async handle(payload, context) {
      await fanoutBatch([{ id: context.jobId, payload, attempt: context.attempt }], {
        now: context.now,
        transaction: (batch, work) => context.transaction((tx, afterCommit) => work(tx, [...batch], afterCommit)),
      });
    },
  };

  const deliver: JobDefinition<DeliverPayload> = {
    queue: deliverQueue,
    // Retries wait on receivers (up to the attempt timeout each): a lane of their own, wider than the default.
    concurrency: deliverConcurrency,
    // Attempts of the job itself (database trouble); delivery attempts are counted on the delivery.
    maxAttempts: 10,
    async handle(payload, context) {
      const [row] = await database.db
        .select({
          delivery: webhookDeliveries,
          endpoint: webhookEndpoints,
          event: eventColumns,
          merchantEmail: merchantEmailOf(webhookDeliveries.merchantId),
        })
        .from(webhookDeliveries)
        .innerJoin(webhookEndpoints, eq(webhookEndpoints.id, webhookDeliveries.endpointId))
        .innerJoin(deliveryEvents, eq(deliveryEvents.id, webhookDeliveries.eventId))
        .where(eq(webhookDeliveries.id, payload.deliveryId));
      if (!row || row.delivery.status !== 'PENDING' || row.delivery.generation !== payload.generation) {
        return;
      }
      const { delivery, endpoint, event, merchantEmail } = row;
      if (endpoint.deletedAt || endpoint.status !== 'ENABLED') {
        const now = clock.now();
        await context.transaction(async (tx) => {
          await tx
            .update(webhookDeliveries)
            .set({ status: 'FAILED', nextAttemptAt: null, lastError: endpoint.deletedAt ? 'the endpoint was deleted' : 'the endpoint is disabled', completedAt: now, updatedAt: now })
            .where(and(eq(webhookDeliveries.id, delivery.id), eq(webhookDeliveries.generation, payload.generation), eq(webhookDeliveries.status, 'PENDING')));
        });
        return;
      }
      // Fairness (fairness.ts): an open circuit waits; a half-open one lets one worker probe; an
      // endpoint or merchant with too many slow attempts waits without holding a slot. A first
      // attempt waits parked (no job of its own); a retry keeps its job, rescheduled.
      const now = clock.now();
      const wait = async (wakeAt: Date) => {
        if (payload.attempt !== 1) {
          return { rescheduleAt: wakeAt };
        }
        await context.transaction((tx) => parkDelivery(tx, { id: delivery.id, generation: payload.generation, endpointId: endpoint.id }, wakeAt, now));
        return undefined;
      };
      const circuit = payload.probe ? 'closed' : circuitState(endpoint, now);
      if (circuit === 'open') {
        return wait(afterCircuit(endpoint, now, random));
      }
      if (circuit === 'half-open' && !(await claimProbe(database.db, endpoint.id, now, attemptTimeoutMs(endpoint, deps.timeoutMs) + 5_000))) {
        return wait(afterCircuit(endpoint, now, random));
      }
      const slot = await gate.acquire(endpoint.id, endpoint.merchantId);
      if (!slot) {
        return wait(retryGateAt(clock.now()));
      }
      const target: AttemptTarget = { deliveryId: delivery.id, generation: payload.generation, attempt: payload.attempt, endpoint, event, merchantEmail };
      let result: AttemptResult;
      try {
        result = await send(target);
      } finally {
        slot.release();
      }
      await context.transaction((tx) => recordAttempt(tx, target, result));
    },
  };

  const unpark = createUnparkJob({ database, clock, gate, random, retryGateAt, probeMs: (endpoint) => attemptTimeoutMs(endpoint, deps.timeoutMs) + 5_000, deliverQueue });
  return { fanout, deliver, unpark };
}
