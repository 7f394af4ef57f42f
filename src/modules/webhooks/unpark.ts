import { and, eq, isNotNull, sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../db/client.ts';
import { webhookDeliveries, webhookEndpoints } from '../../db/schema/index.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { claimProbe, ensureUnpark, unparkQueue } from './deferral.ts';
import { afterCircuit, circuitState, type DeliveryGate } from './fairness.ts';

/** Parked deliveries handed back per endpoint and round (a round a second), when its circuit is closed. */
export const unparkBatch = 64;

type EndpointRow = typeof webhookEndpoints.$inferSelect;

/**
 * `webhooks.unpark` {endpointId}: hands an endpoint's parked first attempts (deferral.ts) back to
 * the retry lane once it may be tried — a circuit still open, or too many slow attempts here, and
 * the job reschedules itself. Closed: up to `unparkBatch` oldest, then another round a second later
 * while any are left. Half-open: one, as the probe (this job claims it, so the delivery job sends).
 * A disabled or deleted endpoint fails them, as its delivery jobs would.
 */
export function createUnparkJob(deps: {
  database: Database;
  clock: Clock;
  gate: DeliveryGate;
  random: () => number;
  retryGateAt: (now: Date) => Date;
  probeMs: (endpoint: EndpointRow) => number;
  deliverQueue: string;
}): JobDefinition<{ endpointId: string }> {
  const { database, clock, gate, random } = deps;
  return {
    queue: unparkQueue,
    async handle({ endpointId }, context) {
      const [endpoint] = await database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpointId));
      if (!endpoint) {
        return;
      }
      const now = clock.now();
      const parked = and(eq(webhookDeliveries.endpointId, endpointId), isNotNull(webhookDeliveries.parkedAt), eq(webhookDeliveries.status, 'PENDING'));
      if (endpoint.deletedAt || endpoint.status !== 'ENABLED') {
        await context.transaction((tx) =>
          tx
            .update(webhookDeliveries)
            .set({ status: 'FAILED', parkedAt: null, nextAttemptAt: null, lastError: endpoint.deletedAt ? 'the endpoint was deleted' : 'the endpoint is disabled', completedAt: now, updatedAt: now })
            .where(parked),
        );
        return;
      }
      const circuit = circuitState(endpoint, now);
      if (circuit === 'open') {
        return { rescheduleAt: afterCircuit(endpoint, now, random) };
      }
      if (gate.isolated(endpoint.id, endpoint.merchantId)) {
        return { rescheduleAt: deps.retryGateAt(now) };
      }
      let limit = unparkBatch;
      let next = new Date(now.getTime() + 1_000);
      if (circuit === 'half-open') {
        const probeUntil = await claimProbe(database.db, endpoint.id, now, deps.probeMs(endpoint));
        if (!probeUntil) {
          return { rescheduleAt: afterCircuit(endpoint, now, random) };
        }
        limit = 1;
        next = probeUntil;
      }
      await context.transaction(async (tx) => {
        const handed = await queryRows<{ id: string; generation: number }>(
          tx,
          sql`update webhook_deliveries d set parked_at = null, next_attempt_at = ${now.toISOString()}::timestamptz, updated_at = ${now.toISOString()}::timestamptz
              where d.id in (select id from webhook_deliveries where endpoint_id = ${endpointId} and parked_at is not null and status = 'PENDING'
                             order by created_at limit ${limit} for update skip locked)
              returning d.id, d.generation`,
        );
        for (const delivery of handed) {
          await enqueueJob(tx, now, deps.deliverQueue, { deliveryId: delivery.id, generation: delivery.generation, attempt: 1, ...(circuit === 'half-open' ? { probe: true } : {}) }, {
            dedupeKey: `${deps.deliverQueue}:${delivery.id}:${delivery.generation}:u${now.getTime()}`,
          });
        }
        if (handed.length === limit) {
          await ensureUnpark(tx, endpointId, next, now);
        }
      });
      return undefined;
    },
  };
}
