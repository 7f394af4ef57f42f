import { and, desc, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { kycReviews, kycVerifications } from '../../db/schema/index.ts';
import { customerReferenceId, lockScopedCustomer } from '../customers/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import type { KycProvider } from './providers/types.ts';
import { latestVerificationFirst, recordDecision, type KycDecisionHook } from './verify.ts';

/** What `kycReason` says of a merchant's rejection (the merchant's own words stay in the audit record). */
export const merchantRejectedReason = 'rejected by the merchant after a manual review';

export interface KycReviewItem {
  verificationId: string;
  customerId: string;
  customerReferenceId: string;
  livemode: boolean;
  provider: string;
  providerCheckId: string | null;
  providerUrl: string | null;
  reason: string | null;
  breakdown: Record<string, string>;
  createdAt: number;
}

export interface KycReviewDecision {
  decision: 'APPROVED' | 'REJECTED';
  reason: string;
}

/**
 * The review queue: verifications the provider could not decide (`providerOutcome` REVIEW) wait for
 * the merchant. A decision is audited (who, when, why; one per verification, a unique index) and
 * lands exactly as a provider decision does: `kycStatus`, then every listener (payout pages move,
 * with their events and e-mails), in one transaction.
 */
export function createKycReviews(deps: { database: Database; clock: Clock; hooks: readonly KycDecisionHook[]; providerFor: (livemode: boolean) => KycProvider | null }) {
  const { database, clock, hooks, providerFor } = deps;

  return {
    async listInReview(merchantId: string, livemode: boolean | undefined, options: { limit?: number } = {}): Promise<KycReviewItem[]> {
      const conditions = [eq(kycVerifications.merchantId, merchantId), eq(kycVerifications.status, 'PENDING'), eq(kycVerifications.providerOutcome, 'REVIEW')];
      if (livemode !== undefined) {
        conditions.push(eq(kycVerifications.livemode, livemode));
      }
      const rows = await database.db
        .select({ verification: kycVerifications, referenceId: customerReferenceId(kycVerifications.customerId) })
        .from(kycVerifications)
        .where(and(...conditions))
        .orderBy(...latestVerificationFirst)
        .limit(options.limit ?? 100);
      return rows.map(({ verification, referenceId }) => {
        const provider = providerFor(verification.livemode);
        return {
          verificationId: verification.id,
          customerId: verification.customerId,
          customerReferenceId: referenceId,
          livemode: verification.livemode,
          provider: verification.provider,
          providerCheckId: verification.providerReference,
          providerUrl: verification.providerReference && provider?.name === verification.provider ? provider.checkUrl(verification.providerReference) : null,
          reason: verification.reason,
          breakdown: verification.breakdown ?? {},
          createdAt: verification.createdAt.getTime(),
        };
      });
    },

    /**
     * The merchant's decision on the customer's verification in review. Unknown or another
     * merchant's (or mode's) customer → 404; not in review → 409 INVALID_STATE; malformed → 400
     * WRONG_PARAMETER; nothing is written in any of these cases.
     */
    async decide(merchantId: string, livemode: boolean | undefined, customerId: string, input: KycReviewDecision, actor: string): Promise<void> {
      if (input.decision !== 'APPROVED' && input.decision !== 'REJECTED') {
        throw wrongParameter('decision', 'must be APPROVED or REJECTED');
      }
      const reason = typeof input.reason === 'string' ? input.reason.trim() : '';
      if (reason.length === 0 || reason.length > 500) {
        throw wrongParameter('reason', 'must be 1–500 characters');
      }
      await database.transaction(async (tx) => {
        const now = clock.now();
        // The customer row lock orders this decision with a concurrent one (and with updates).
        if (!(await lockScopedCustomer(tx, merchantId, livemode, customerId))) {
          throw notFound('customer', customerId);
        }
        const [verification] = await tx
          .select()
          .from(kycVerifications)
          .where(eq(kycVerifications.customerId, customerId))
          .orderBy(...latestVerificationFirst)
          .limit(1);
        const inReview = verification && verification.status === 'PENDING' && verification.providerOutcome === 'REVIEW';
        if (!verification || !inReview) {
          throw new AppError('INVALID_STATE', "the customer's identity verification is not waiting for a review");
        }
        const decided = await recordDecision(
          tx,
          hooks,
          verification,
          { status: input.decision, reason: input.decision === 'REJECTED' ? merchantRejectedReason : null, decidedBy: 'merchant', requireOutcome: 'REVIEW' },
          now,
        );
        if (!decided) {
          throw new AppError('INVALID_STATE', "the customer's identity verification is not waiting for a review");
        }
        await tx.insert(kycReviews).values({
          id: newId('kycReview', now.getTime()),
          merchantId,
          livemode: verification.livemode,
          verificationId: verification.id,
          customerId,
          decision: input.decision,
          reason,
          actor,
          createdAt: now,
        });
      });
    },

    /** The audit trail of a customer's review decisions, newest first. */
    async decisionsOf(merchantId: string, customerId: string) {
      return database.db
        .select()
        .from(kycReviews)
        .where(and(eq(kycReviews.merchantId, merchantId), eq(kycReviews.customerId, customerId)))
        .orderBy(desc(kycReviews.createdAt), sql`${kycReviews.id} desc`);
    },
  };
}

export type KycReviews = ReturnType<typeof createKycReviews>;
