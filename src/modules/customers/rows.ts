import { and, eq, type Column, inArray, sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';
import { customers, type KycStatus } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openRecord, sealRecord } from '../../crypto/pii.ts';
import { location } from './identity.ts';

/**
 * What other modules read and write of a customer row, inside their own transaction (`executor`):
 * KYC's status and reason, the locks that order a KYC decision with a payout confirmation, the
 * reference shown beside a page, and the retention of KYC details. Customers owns the table
 * (docs/ARCHITECTURE.md, "Module boundaries"); these are its only doors to it besides its service.
 */

/** KYC moves the customer's `kycStatus` (conditional on it still being `from`); `reason` is the new `kycReason`. */
export async function moveKycStatus(tx: Executor, customerId: string, change: { from: KycStatus; to: KycStatus; reason: string | null }, now: Date): Promise<void> {
  await tx
    .update(customers)
    .set({ kycStatus: change.to, kycReason: change.reason, updatedAt: now })
    .where(and(eq(customers.id, customerId), eq(customers.kycStatus, change.from)));
}

/** Why a PENDING verification waits (in review, documents asked for or being checked); no change unless the customer is PENDING. */
export async function setPendingKycReason(tx: Executor, customerId: string, reason: string | null, now: Date): Promise<void> {
  await tx
    .update(customers)
    .set({ kycReason: reason, updatedAt: now })
    .where(and(eq(customers.id, customerId), eq(customers.kycStatus, 'PENDING')));
}

/** Locks the customer row of this merchant (and mode when given) for the transaction; false when there is no such customer. */
export async function lockScopedCustomer(tx: Executor, merchantId: string, livemode: boolean | undefined, customerId: string): Promise<boolean> {
  const scope = [eq(customers.id, customerId), eq(customers.merchantId, merchantId)];
  if (livemode !== undefined) {
    scope.push(eq(customers.livemode, livemode));
  }
  const [customer] = await tx.select({ id: customers.id }).from(customers).where(and(...scope)).for('update');
  return customer !== undefined;
}

/**
 * Locks the customer row and reads what a payout confirmation depends on. The KYC decision updates
 * the same row, so a confirmation and a decision serialize: either the confirmation sees the
 * decision, or the decision's hook sees the confirmed page.
 */
export async function lockKycState(tx: Executor, customerId: string): Promise<{ kycStatus: KycStatus; supportedPayoutMethods: string[] | null } | null> {
  const [row] = await tx
    .select({ kycStatus: customers.kycStatus, supportedPayoutMethods: customers.supportedPayoutMethods })
    .from(customers)
    .where(eq(customers.id, customerId))
    .for('update');
  return row ?? null;
}

/** The payout methods the merchant allows the customer (null: every method). */
export async function payoutMethodsOf(executor: Executor, customerId: string): Promise<string[] | null> {
  const [row] = await executor.select({ supportedPayoutMethods: customers.supportedPayoutMethods }).from(customers).where(eq(customers.id, customerId));
  return row?.supportedPayoutMethods ?? null;
}

/** The customer's `referenceId` ('' when there is no such customer). */
export async function referenceIdOf(executor: Executor, customerId: string): Promise<string> {
  const [row] = await executor.select({ referenceId: customers.referenceId }).from(customers).where(eq(customers.id, customerId));
  return row?.referenceId ?? '';
}

/**
 * The `referenceId` of the customer whose id is `customerId` (a column of the caller's query), as a
 * column of that query: a list shows each row's customer reference in the same round trip.
 */
export function customerReferenceId(customerId: Column | SQL): SQL<string> {
  return sql<string>`(select c.reference_id from customers c where c.id = ${customerId})`;
}

/** A condition on the customer (`customerId`, SQL) that is true while another module still needs its KYC details. */
export type CustomerActivity = (customerId: SQL, since: SQL) => SQL;

/**
 * Customers whose KYC details are due: not erased, not purged since their record last changed, the
 * record unchanged since the cutoff, and no `activity` of another kind (each given condition false).
 */
function kycDetailsDue(cutoff: Date, activity: readonly CustomerActivity[]): SQL {
  const at = sql`${cutoff.toISOString()}::timestamptz`;
  const busy = activity.map((active) => sql` and not ${active(sql`c.id`, at)}`);
  return sql`c.erased_at is null
    and c.updated_at < ${at}
    and (c.kyc_details_purged_at is null or c.kyc_details_purged_at < c.updated_at)${sql.join(busy)}`;
}

/** How many customers' KYC details are due (see `lockKycDetailsDue`). */
export async function countKycDetailsDue(executor: Executor, cutoff: Date, activity: readonly CustomerActivity[]): Promise<number> {
  const [row] = await queryRows<{ due: number | string }>(executor, sql`select count(*) as due from customers c where ${kycDetailsDue(cutoff, activity)}`);
  return Number(row?.due ?? 0);
}

/** Up to `limit` customers whose KYC details are due, oldest change first, row-locked (SKIP LOCKED: a concurrent batch takes others). */
export async function lockKycDetailsDue(tx: Executor, cutoff: Date, activity: readonly CustomerActivity[], limit: number): Promise<string[]> {
  const due = await queryRows<{ id: string }>(tx, sql`select c.id from customers c where ${kycDetailsDue(cutoff, activity)} order by c.updated_at limit ${limit}::integer for update of c skip locked`);
  return due.map((row) => row.id);
}

/**
 * Removes the identity fields from the customers' sealed records, keeping `keptFields` (re-sealed
 * with those only), and sets `kyc_details_purged_at`; `updated_at` is left alone (a purge is not activity).
 */
export async function purgeKycDetails(tx: Executor, keyRing: KeyRing, customerIds: readonly string[], keptFields: ReadonlySet<string>, now: Date): Promise<void> {
  const rows = await tx.select({ id: customers.id, merchantId: customers.merchantId, pii: customers.pii }).from(customers).where(inArray(customers.id, [...customerIds]));
  for (const row of rows) {
    const fields = openRecord(keyRing, location(row), row.pii);
    const kept = Object.fromEntries(Object.entries(fields).filter(([name]) => keptFields.has(name)));
    const changed = Object.keys(kept).length !== Object.keys(fields).length;
    await tx
      .update(customers)
      .set({ ...(changed ? { pii: sealRecord(keyRing, location(row), kept) } : {}), kycDetailsPurgedAt: now })
      .where(eq(customers.id, row.id));
  }
}
