import { and, asc, eq, inArray, isNotNull, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payoutPageStatusHistory, payoutPages } from '../../db/schema/index.ts';
import { lockKycState, payoutMethodsOf } from '../customers/index.ts';
import { merchantContact, merchantName } from '../merchants/index.ts';
import type { PayoutPageState } from './states.ts';

export type PayoutPageRow = typeof payoutPages.$inferSelect;
export type PayoutPageInsert = typeof payoutPages.$inferInsert;
export type PayoutPageHistoryRow = typeof payoutPageStatusHistory.$inferSelect;

/** SQL of the payout-pages module. Every merchant-facing read is scoped by merchant (and mode when given). */
export const payoutPagesRepository = {
  async findById(executor: Executor, id: string): Promise<PayoutPageRow | null> {
    const [row] = await executor.select().from(payoutPages).where(eq(payoutPages.id, id));
    return row ?? null;
  },

  async findScoped(executor: Executor, merchantId: string, livemode: boolean | undefined, id: string): Promise<PayoutPageRow | null> {
    const conditions: SQL[] = [eq(payoutPages.id, id), eq(payoutPages.merchantId, merchantId)];
    if (livemode !== undefined) {
      conditions.push(eq(payoutPages.livemode, livemode));
    }
    const [row] = await executor
      .select()
      .from(payoutPages)
      .where(and(...conditions));
    return row ?? null;
  },

  async insert(executor: Executor, values: PayoutPageInsert): Promise<PayoutPageRow> {
    const [row] = await executor.insert(payoutPages).values(values).returning();
    if (!row) {
      throw new Error('payout page insert returned nothing');
    }
    return row;
  },

  /**
   * The only way a page changes state: `UPDATE … WHERE status = from AND sub_status = from`. Null
   * when the page is no longer in `from` (another transaction moved it first).
   */
  async moveState(executor: Executor, id: string, from: PayoutPageState, changes: Partial<PayoutPageInsert>): Promise<PayoutPageRow | null> {
    const [row] = await executor
      .update(payoutPages)
      .set(changes)
      .where(and(eq(payoutPages.id, id), eq(payoutPages.status, from.status), eq(payoutPages.subStatus, from.subStatus)))
      .returning();
    return row ?? null;
  },

  async recordRailSubmission(executor: Executor, id: string, rail: string, reference: string, now: Date): Promise<void> {
    await executor
      .update(payoutPages)
      .set({ rail, railReference: reference, submittedAt: now, transactionHash: null })
      .where(and(eq(payoutPages.id, id), eq(payoutPages.status, 'PROCESSING')));
  },

  /** PROCESSING payouts waiting for the operator to fund the rail (their statusReason says so), oldest first. */
  async awaitingFunding(executor: Executor, reason: string, limit: number): Promise<PayoutPageRow[]> {
    return executor
      .select()
      .from(payoutPages)
      .where(and(eq(payoutPages.status, 'PROCESSING'), eq(payoutPages.statusReason, reason)))
      .orderBy(asc(payoutPages.updatedAt))
      .limit(limit);
  },

  /** The paid attempt's transaction hash (on-chain rails), on the page itself for its API object and views. */
  async recordTransactionHash(executor: Executor, id: string, transactionHash: string): Promise<void> {
    await executor.update(payoutPages).set({ transactionHash }).where(eq(payoutPages.id, id));
  },

  /** The reason shown while a PROCESSING payout waits (operator funding); null clears it. Not a state change. */
  async setProcessingReason(executor: Executor, id: string, reason: string | null, now: Date): Promise<void> {
    await executor
      .update(payoutPages)
      .set({ statusReason: reason, updatedAt: now })
      .where(and(eq(payoutPages.id, id), eq(payoutPages.status, 'PROCESSING'), reason === null ? isNotNull(payoutPages.statusReason) : isNull(payoutPages.statusReason)));
  },

  async insertHistory(executor: Executor, values: typeof payoutPageStatusHistory.$inferInsert): Promise<void> {
    await executor.insert(payoutPageStatusHistory).values(values);
  },

  async history(executor: Executor, id: string): Promise<PayoutPageHistoryRow[]> {
    return executor.select().from(payoutPageStatusHistory).where(eq(payoutPageStatusHistory.payoutPageId, id)).orderBy(asc(payoutPageStatusHistory.id));
  },

  /** Pages of a customer that wait on its KYC decision, in id order (a stable lock order). */
  async waitingOnKyc(executor: Executor, customerId: string): Promise<PayoutPageRow[]> {
    return executor
      .select()
      .from(payoutPages)
      .where(and(eq(payoutPages.customerId, customerId), eq(payoutPages.status, 'PENDING'), inArray(payoutPages.subStatus, ['KYC_REQUIRED', 'KYC_IN_REVIEW'])))
      .orderBy(asc(payoutPages.id));
  },

  /** Pages of a customer waiting for their release, in id order. */
  async awaitingRelease(executor: Executor, customerId: string): Promise<PayoutPageRow[]> {
    return executor
      .select()
      .from(payoutPages)
      .where(and(eq(payoutPages.customerId, customerId), eq(payoutPages.status, 'PENDING'), eq(payoutPages.subStatus, 'AWAITING_RELEASE')))
      .orderBy(asc(payoutPages.id));
  },

  /**
   * Locks the customer row and reads what a confirmation depends on (the customers module's
   * `lockKycState`: a confirmation and a KYC decision serialize on that row).
   */
  lockCustomer: lockKycState,

  customerPayoutMethods: payoutMethodsOf,

  /** The merchant's display name and account address (where notices to the merchant go). */
  merchantContact,

  /** The merchant's display name, read inside the caller's transaction (e-mails, hosted page). */
  merchantName,
};
