import { createHash } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import { withoutCommitGuard } from '../../db/commit-guard.ts';
import type { Database, Executor } from '../../db/client.ts';
import { sandboxProviderRecords } from '../../db/schema/index.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import type { ProcessorDispute } from './types.ts';

export const sandboxDisputeQueue = 'card-processor.sandbox-dispute';
/** The sandbox disputes its dispute test card as fraudulent, as Stripe's `4000000000000259`. */
export const sandboxDisputeReason = 'FRAUDULENT';
/** How long the merchant has to answer a sandbox dispute. */
export const sandboxEvidenceWindowMs = 7 * 24 * 60 * 60 * 1000;

/** Where the sandbox processor delivers its disputes (the disputes service), inside the delivering transaction. */
export type DisputeReceiver = (tx: Executor, dispute: ProcessorDispute, now: Date) => Promise<void>;

export interface SandboxDisputePayload {
  paymentId: string;
  livemode: boolean;
  amount: number;
  currency: string;
}

interface DisputeRecord extends SandboxDisputePayload {
  kind: 'dispute';
  status: ProcessorDispute['status'];
  evidenceDueBy: number;
}

/** The sandbox's dispute id for a payment: deterministic, one dispute per payment. */
export function sandboxDisputeReference(paymentId: string): string {
  return `sbxdp_${createHash('sha256').update(`dispute:${paymentId}`).digest('hex').slice(0, 24)}`;
}

/** Schedules the dispute of a charge on the dispute test card, inside the charge's own transaction. */
export async function scheduleSandboxDispute(tx: Executor, now: Date, payload: SandboxDisputePayload, delayMs: number): Promise<void> {
  await enqueueJob(tx, now, sandboxDisputeQueue, payload, { runAt: new Date(now.getTime() + delayMs), dedupeKey: `${sandboxDisputeQueue}:${payload.paymentId}` });
}

/**
 * The sandbox processor's disputes, kept in its own records (`sandbox_provider_records`, reference
 * = the dispute id) as an outside processor would: opened by the dispute job a moment after a
 * charge on the dispute test card, closed won or lost by the test helper (integrators test both).
 */
export function createSandboxDisputes(deps: { database: Database; clock: Clock; processorName: string }) {
  const { database, processorName } = deps;
  const receivers: DisputeReceiver[] = [];

  function toDispute(reference: string, record: DisputeRecord): ProcessorDispute {
    return {
      processor: processorName,
      processorReference: reference,
      paymentId: record.paymentId,
      livemode: record.livemode,
      amount: record.amount,
      currency: record.currency,
      reason: sandboxDisputeReason,
      status: record.status,
      evidenceDueBy: new Date(record.evidenceDueBy),
    };
  }

  async function readRecord(executor: Executor, reference: string, lock = false): Promise<DisputeRecord | null> {
    const query = executor
      .select({ data: sandboxProviderRecords.data })
      .from(sandboxProviderRecords)
      .where(and(eq(sandboxProviderRecords.provider, processorName), eq(sandboxProviderRecords.reference, reference)));
    const [row] = lock ? await query.for('update') : await query;
    const data = row?.data as DisputeRecord | undefined;
    return data && data.kind === 'dispute' ? data : null;
  }

  return {
    /** Where disputes are delivered (the disputes service). */
    onDispute(receiver: DisputeReceiver): void {
      receivers.push(receiver);
    },

    /** Opens the dispute (once) and delivers it; retried until the payment it names is settled on our side. */
    disputeJob(): JobDefinition<SandboxDisputePayload> {
      return {
        queue: sandboxDisputeQueue,
        maxAttempts: 12,
        handle: async (payload, context) => {
          const reference = sandboxDisputeReference(payload.paymentId);
          await context.transaction(async (tx) => {
            const now = context.now;
            const record: DisputeRecord = { kind: 'dispute', ...payload, status: 'NEEDS_RESPONSE', evidenceDueBy: now.getTime() + sandboxEvidenceWindowMs };
            await tx.insert(sandboxProviderRecords).values({ provider: processorName, reference, data: record, readyAt: now, createdAt: now }).onConflictDoNothing();
            const stored = await readRecord(tx, reference);
            if (!stored) {
              throw new Error(`sandbox dispute ${reference} vanished`);
            }
            for (const receiver of receivers) {
              await receiver(tx, toDispute(reference, stored), now);
            }
          });
        },
      };
    },

    /** The dispute as the sandbox processor has it now, or null. */
    async retrieveDispute(reference: string): Promise<ProcessorDispute | null> {
      const record = await readRecord(database.db, reference);
      return record ? toDispute(reference, record) : null;
    },

    /**
     * Closes an open dispute won or lost (the test helper) in the processor's own books and answers
     * it as it now stands: a dispute already closed keeps its outcome. Null when there is none.
     */
    async closeDispute(reference: string, outcome: 'WON' | 'LOST'): Promise<ProcessorDispute | null> {
      return withoutCommitGuard(() =>
        database.transaction(async (tx) => {
          const record = await readRecord(tx, reference, true);
          if (!record) {
            return null;
          }
          if (record.status === 'WON' || record.status === 'LOST') {
            return toDispute(reference, record);
          }
          const closed: DisputeRecord = { ...record, status: outcome };
          await tx
            .update(sandboxProviderRecords)
            .set({ data: closed })
            .where(and(eq(sandboxProviderRecords.provider, processorName), eq(sandboxProviderRecords.reference, reference)));
          return toDispute(reference, closed);
        }),
      );
    },
  };
}

export type SandboxDisputes = ReturnType<typeof createSandboxDisputes>;
