import { and, inArray, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { kycVerifications } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { countKycDetailsDue, lockKycDetailsDue, purgeKycDetails, type CustomerActivity } from '../customers/index.ts';
import type { RetentionPurge } from '../../db/retention-purge.ts';
import { applicantDeletionQueue } from './erasure.ts';

/** The sealed record's fields that stay when the KYC details go: the contact address (payout e-mails, the e-mail lookup). */
const keptFields = new Set(['email']);

/** A verification PENDING, or created or decided since `since`: the customer's KYC goes on. */
function verificationActivity(customerId: SQL, since: SQL): SQL {
  return sql`exists (select 1 from kyc_verifications v where v.customer_id = ${customerId} and (v.status = 'PENDING' or v.created_at >= ${since} or v.decided_at >= ${since}))`;
}

/**
 * KYC details past retention (RETENTION_KYC_DETAILS_DAYS after the customer's last activity): the
 * identity fields (names, date of birth, phone, address) leave the customer's sealed record, which
 * is re-sealed with the e-mail only, and `kyc_details_purged_at` is set; `updated_at` is left alone
 * (a purge is not activity). The KYC outcome (status, verifications, reviews; no PII) stays. When
 * the KYC provider holds an applicant for the customer, the erasure's applicant-deletion job is
 * enqueued (it deletes every applicant not yet deleted and records when). Each batch is one
 * transaction whose rows are locked (SKIP LOCKED: a concurrent batch takes others).
 *
 * A customer's last activity is the newest of: their record's `updated_at` (created, updated,
 * identity completed, KYC status changed), a verification created or decided, and what each
 * `activity` condition of another module looks at (retention/service.ts passes payout pages',
 * payment pages' and subscriptions'). Never due while something still needs the details or the
 * relationship goes on: a PENDING verification, an open payout page (CREATED, PENDING, PROCESSING),
 * a subscription not CANCELED.
 */
export function createKycDetailsRetention(deps: { keyRing: KeyRing; activity: readonly CustomerActivity[] }): RetentionPurge {
  const { keyRing } = deps;
  const activity = [verificationActivity, ...deps.activity];
  return {
    async countDue(executor: Executor, cutoff: Date): Promise<number> {
      return countKycDetailsDue(executor, cutoff, activity);
    },

    async purgeBatch(database: Database, cutoff: Date, now: Date, limit: number): Promise<number> {
      return database.transaction(async (tx) => {
        const ids = await lockKycDetailsDue(tx, cutoff, activity, limit);
        if (ids.length === 0) {
          return 0;
        }
        await purgeKycDetails(tx, keyRing, ids, keptFields, now);
        const withApplicants = await tx
          .selectDistinct({ customerId: kycVerifications.customerId })
          .from(kycVerifications)
          .where(and(inArray(kycVerifications.customerId, ids), isNotNull(kycVerifications.providerApplicantId), isNull(kycVerifications.applicantDeletedAt)));
        for (const { customerId } of withApplicants) {
          await enqueueJob(tx, now, applicantDeletionQueue, { customerId }, { dedupeKey: `${applicantDeletionQueue}:${customerId}:retention:${now.toISOString()}`, maxAttempts: 20 });
        }
        return ids.length;
      });
    },
  };
}
