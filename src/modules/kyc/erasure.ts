import { and, asc, eq, isNotNull, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { kycVerifications } from '../../db/schema/index.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import type { KycProvider } from './providers/types.ts';

/** The job that asks the provider to delete an erased customer's applicants. */
export const applicantDeletionQueue = 'kyc.delete-applicants';

/** Why a verification still open when its customer was erased ended (never PII). */
export const erasedReason = 'the customer was erased';

/**
 * KYC's part of erasing a customer. Inside the erase transaction: a verification still running ends
 * REJECTED (its job then finds nothing to do: it acts on PENDING verifications only), and when the
 * provider holds applicants for the customer, a job is enqueued to delete them. The job calls the
 * provider outside any transaction (a provider call never holds a database transaction open),
 * records `applicant_deleted_at` per verification, and retries on failure; a provider that answers
 * "no such applicant" has the same outcome as a deletion, so a retry after a lost answer is safe.
 */
export function createKycErasure(deps: { database: Database; clock: Clock; providerFor: (livemode: boolean) => KycProvider | null }) {
  const { database, clock, providerFor } = deps;
  return {
    async eraseCustomer(tx: Executor, customerId: string, now: Date): Promise<void> {
      await tx
        .update(kycVerifications)
        .set({ status: 'REJECTED', reason: erasedReason, decidedAt: now, decidedBy: 'merchant' })
        .where(and(eq(kycVerifications.customerId, customerId), eq(kycVerifications.status, 'PENDING')));
      const [withApplicant] = await tx
        .select({ id: kycVerifications.id })
        .from(kycVerifications)
        .where(and(eq(kycVerifications.customerId, customerId), isNotNull(kycVerifications.providerApplicantId), isNull(kycVerifications.applicantDeletedAt)))
        .limit(1);
      if (withApplicant) {
        await enqueueJob(tx, now, applicantDeletionQueue, { customerId }, { dedupeKey: `${applicantDeletionQueue}:${customerId}`, maxAttempts: 20 });
      }
    },

    deletionJob(): JobDefinition<{ customerId: string }> {
      return {
        queue: applicantDeletionQueue,
        maxAttempts: 20,
        handle: async ({ customerId }) => {
          const pending = await database.db
            .select({ id: kycVerifications.id, livemode: kycVerifications.livemode, provider: kycVerifications.provider, applicantId: kycVerifications.providerApplicantId })
            .from(kycVerifications)
            .where(and(eq(kycVerifications.customerId, customerId), isNotNull(kycVerifications.providerApplicantId), isNull(kycVerifications.applicantDeletedAt)))
            .orderBy(asc(kycVerifications.id));
          for (const verification of pending) {
            const provider = providerFor(verification.livemode);
            if (!provider || provider.name !== verification.provider || verification.applicantId === null) {
              // The provider that holds the applicant is no longer configured: the attempt fails
              // (and is retried) rather than being recorded as done.
              throw new Error(`kyc: cannot delete applicant of verification ${verification.id}: provider ${verification.provider} is not configured`);
            }
            await provider.deleteApplicant(verification.applicantId);
            await database.db.update(kycVerifications).set({ applicantDeletedAt: clock.now() }).where(and(eq(kycVerifications.id, verification.id), isNull(kycVerifications.applicantDeletedAt)));
          }
        },
      };
    },
  };
}

/** A customer's identity verifications, oldest first, for their data export (no PII: reasons and breakdowns never hold any). */
export async function verificationsForExport(executor: Executor, customerId: string) {
  return executor
    .select({
      id: kycVerifications.id,
      provider: kycVerifications.provider,
      status: kycVerifications.status,
      stage: kycVerifications.stage,
      reason: kycVerifications.reason,
      breakdown: kycVerifications.breakdown,
      decidedBy: kycVerifications.decidedBy,
      createdAt: kycVerifications.createdAt,
      decidedAt: kycVerifications.decidedAt,
      applicantDeletedAt: kycVerifications.applicantDeletedAt,
    })
    .from(kycVerifications)
    .where(eq(kycVerifications.customerId, customerId))
    .orderBy(asc(kycVerifications.createdAt), asc(kycVerifications.id));
}
