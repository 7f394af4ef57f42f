import { and, desc, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { customers, kycVerifications } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { enqueueJob, type EnqueueOptions } from '../../jobs/queue.ts';
import type { Clock, JobDefinition } from '../../jobs/worker.ts';
import type { KycProvider } from './providers/types.ts';
import { missingKycFields, type KycData } from '../customers/rules.ts';

export const kycVerifyQueue = 'kyc.verify';

export type KycDecisionHook = (tx: Executor, decision: { customerId: string; merchantId: string; livemode: boolean; status: 'APPROVED' | 'REJECTED' }, now: Date) => Promise<void>;

/** A verification about to start: its row, and the job that submits it (none without a provider). */
export interface KycStartPlan {
  verification: typeof kycVerifications.$inferInsert & { id: string; status: 'PENDING'; createdAt: Date };
  job: { queue: string; payload: { verificationId: string }; options: EnqueueOptions } | null;
}

export const noLiveProviderReason = 'No live KYC provider is configured: live verifications stay PENDING until the operator configures one.';

/**
 * KYC: when a customer's identity data is complete it is submitted to the provider in the
 * background; the decision updates `kycStatus` and notifies listeners (payout pages wait on it)
 * in the same transaction.
 */
export function createKycService(deps: {
  database: Database;
  clock: Clock;
  sandboxProvider: KycProvider;
  liveProvider: KycProvider | null;
  readKycData: (executor: Executor, customerId: string) => Promise<KycData>;
}) {
  const { database, clock, sandboxProvider, liveProvider, readKycData } = deps;
  const decisionHooks: KycDecisionHook[] = [];

  function providerFor(livemode: boolean): KycProvider | null {
    return livemode ? liveProvider : sandboxProvider;
  }

  /**
   * What starting verification means for this customer, or null when it does not start (data
   * incomplete, or already started): the verification row and, when a provider is configured,
   * the job that submits it. `startIfComplete` applies it; a create applies it in its own insert.
   */
  function planStart(customer: { id: string; merchantId: string; livemode: boolean; kycStatus: string }, data: KycData, now: Date): KycStartPlan | null {
    if (customer.kycStatus !== 'NOT_STARTED' || missingKycFields(data).length > 0) {
      return null;
    }
    const provider = providerFor(customer.livemode);
    const id = newId('kycVerification', now.getTime());
    return {
      verification: {
        id,
        merchantId: customer.merchantId,
        livemode: customer.livemode,
        customerId: customer.id,
        provider: provider?.name ?? 'none',
        status: 'PENDING',
        reason: provider ? null : noLiveProviderReason,
        createdAt: now,
      },
      job: provider ? { queue: kycVerifyQueue, payload: { verificationId: id }, options: { dedupeKey: `kyc.verify:${id}`, maxAttempts: 20 } } : null,
    };
  }

  return {
    onDecision(hook: KycDecisionHook): void {
      decisionHooks.push(hook);
    },

    planStart,

    /**
     * Starts verification if the data is complete and none has started. Runs inside the caller's
     * transaction with the customer row locked (or just inserted) by the caller.
     */
    async startIfComplete(tx: Executor, customer: { id: string; merchantId: string; livemode: boolean; kycStatus: string }, data: KycData, now: Date): Promise<'PENDING' | null> {
      const plan = planStart(customer, data, now);
      if (!plan) {
        return null;
      }
      await tx.insert(kycVerifications).values(plan.verification);
      await tx
        .update(customers)
        .set({ kycStatus: 'PENDING', updatedAt: now })
        .where(and(eq(customers.id, customer.id), eq(customers.kycStatus, 'NOT_STARTED')));
      if (plan.job) {
        await enqueueJob(tx, now, plan.job.queue, plan.job.payload, plan.job.options);
      }
      return 'PENDING';
    },

    async latestVerification(customerId: string) {
      const [row] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId)).orderBy(desc(kycVerifications.createdAt)).limit(1);
      return row ?? null;
    },

    /** The job that submits to the provider and applies its decision. */
    verifyJob(): JobDefinition<{ verificationId: string }> {
      return {
        queue: kycVerifyQueue,
        maxAttempts: 20,
        handle: async ({ verificationId }, context) => {
          const [verification] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.id, verificationId));
          if (!verification || verification.status !== 'PENDING') {
            return;
          }
          const provider = providerFor(verification.livemode);
          if (!provider) {
            return;
          }
          let reference = verification.providerReference;
          if (!reference) {
            const data = await readKycData(database.db, verification.customerId);
            ({ reference } = await provider.submit({ verificationId, livemode: verification.livemode, data }));
            await database.db.update(kycVerifications).set({ providerReference: reference }).where(eq(kycVerifications.id, verificationId));
          }
          const decision = await provider.fetchDecision(reference);
          if (decision.status === 'PENDING') {
            const now = clock.now().getTime();
            const retryAt = decision.retryAt && decision.retryAt.getTime() > now ? decision.retryAt.getTime() : now + provider.pollIntervalMs;
            return { rescheduleAt: new Date(Math.min(retryAt, now + 60 * 60 * 1000)) };
          }
          await context.transaction(async (tx) => {
            const now = clock.now();
            const decided = await tx
              .update(kycVerifications)
              .set({ status: decision.status, reason: decision.status === 'REJECTED' ? decision.reason : null, decidedAt: now })
              .where(and(eq(kycVerifications.id, verificationId), eq(kycVerifications.status, 'PENDING')))
              .returning({ id: kycVerifications.id });
            if (decided.length === 0) {
              return;
            }
            await tx
              .update(customers)
              .set({ kycStatus: decision.status, updatedAt: now })
              .where(and(eq(customers.id, verification.customerId), eq(customers.kycStatus, 'PENDING')));
            for (const hook of decisionHooks) {
              await hook(tx, { customerId: verification.customerId, merchantId: verification.merchantId, livemode: verification.livemode, status: decision.status }, now);
            }
          });
          return;
        },
      };
    },
  };
}

export type KycService = ReturnType<typeof createKycService>;
