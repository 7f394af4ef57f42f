import { and, eq, inArray, isNotNull, isNull, sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../db/client.ts';
import { customers, kycVerifications } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openRecord, sealRecord } from '../../crypto/pii.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { location } from '../customers/index.ts';
import type { RetentionPurge } from '../../db/retention-purge.ts';
import { applicantDeletionQueue } from './erasure.ts';

/** The sealed record's fields that stay when the KYC details go: the contact address (payout e-mails, the e-mail lookup). */
const keptFields = new Set(['email']);

/**
 * Customers whose KYC details are due: not erased, not purged since their record last changed, and
 * no activity since the cutoff. A customer's last activity is the newest of: their record's
 * `updated_at` (created, updated, identity completed, KYC status changed), a verification created or
 * decided, a payout page or payment page changed, a subscription changed. Never due while something
 * still needs the details or the relationship goes on: a PENDING verification, an open payout page
 * (CREATED, PENDING, PROCESSING; as in payout-pages/erasure.ts), a subscription not CANCELED.
 */
function dueCustomers(cutoff: Date) {
  const at = sql`${cutoff.toISOString()}::timestamptz`;
  return sql`c.erased_at is null
    and c.updated_at < ${at}
    and (c.kyc_details_purged_at is null or c.kyc_details_purged_at < c.updated_at)
    and not exists (select 1 from kyc_verifications v where v.customer_id = c.id and (v.status = 'PENDING' or v.created_at >= ${at} or v.decided_at >= ${at}))
    and not exists (select 1 from payout_pages p where p.customer_id = c.id and (p.status in ('CREATED', 'PENDING', 'PROCESSING') or p.updated_at >= ${at}))
    and not exists (select 1 from payment_pages p where p.customer_id = c.id and p.updated_at >= ${at})
    and not exists (select 1 from subscriptions s where s.customer_id = c.id and (s.status <> 'CANCELED' or s.updated_at >= ${at}))`;
}

/**
 * KYC details past retention (RETENTION_KYC_DETAILS_DAYS after the customer's last activity): the
 * identity fields (names, date of birth, phone, address) leave the customer's sealed record, which
 * is re-sealed with the e-mail only, and `kyc_details_purged_at` is set; `updated_at` is left alone
 * (a purge is not activity). The KYC outcome (status, verifications, reviews; no PII) stays. When
 * the KYC provider holds an applicant for the customer, the erasure's applicant-deletion job is
 * enqueued (it deletes every applicant not yet deleted and records when). Each batch is one
 * transaction whose rows are locked (SKIP LOCKED: a concurrent batch takes others).
 */
export function createKycDetailsRetention(deps: { keyRing: KeyRing }): RetentionPurge {
  const { keyRing } = deps;
  return {
    async countDue(executor: Executor, cutoff: Date): Promise<number> {
      const [row] = await queryRows<{ due: number | string }>(executor, sql`select count(*) as due from customers c where ${dueCustomers(cutoff)}`);
      return Number(row?.due ?? 0);
    },

    async purgeBatch(database: Database, cutoff: Date, now: Date, limit: number): Promise<number> {
      return database.transaction(async (tx) => {
        const due = await queryRows<{ id: string }>(tx, sql`select c.id from customers c where ${dueCustomers(cutoff)} order by c.updated_at limit ${limit}::integer for update of c skip locked`);
        if (due.length === 0) {
          return 0;
        }
        const ids = due.map((row) => row.id);
        const rows = await tx.select({ id: customers.id, merchantId: customers.merchantId, pii: customers.pii }).from(customers).where(inArray(customers.id, ids));
        for (const row of rows) {
          const fields = openRecord(keyRing, location(row), row.pii);
          const kept = Object.fromEntries(Object.entries(fields).filter(([name]) => keptFields.has(name)));
          const changed = Object.keys(kept).length !== Object.keys(fields).length;
          await tx
            .update(customers)
            .set({ ...(changed ? { pii: sealRecord(keyRing, location(row), kept) } : {}), kycDetailsPurgedAt: now })
            .where(eq(customers.id, row.id));
        }
        const withApplicants = await tx
          .selectDistinct({ customerId: kycVerifications.customerId })
          .from(kycVerifications)
          .where(and(inArray(kycVerifications.customerId, ids), isNotNull(kycVerifications.providerApplicantId), isNull(kycVerifications.applicantDeletedAt)));
        for (const { customerId } of withApplicants) {
          await enqueueJob(tx, now, applicantDeletionQueue, { customerId }, { dedupeKey: `${applicantDeletionQueue}:${customerId}:retention:${now.toISOString()}`, maxAttempts: 20 });
        }
        return due.length;
      });
    },
  };
}
