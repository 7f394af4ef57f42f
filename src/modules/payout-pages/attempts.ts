import { and, asc, eq, inArray, lt } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payoutAttempts, type PayoutAttemptStatus } from '../../db/schema/index.ts';

export type PayoutAttemptRow = typeof payoutAttempts.$inferSelect;
export type PayoutAttemptInsert = typeof payoutAttempts.$inferInsert;

/** An attempt that may still move money: at most one per page (the `payout_attempts_one_live` index). */
export const liveAttemptStatuses: readonly PayoutAttemptStatus[] = ['SUBMITTING', 'SUBMITTED', 'PAID'];

/** SQL of the payout attempts (each hand-over of a payout page to a rail). */
export const payoutAttemptsRepository = {
  async insert(executor: Executor, values: PayoutAttemptInsert): Promise<PayoutAttemptRow> {
    const [row] = await executor.insert(payoutAttempts).values(values).returning();
    if (!row) {
      throw new Error('payout attempt insert returned nothing');
    }
    return row;
  },

  async findById(executor: Executor, id: string): Promise<PayoutAttemptRow | null> {
    const [row] = await executor.select().from(payoutAttempts).where(eq(payoutAttempts.id, id));
    return row ?? null;
  },

  /** The page's attempt that may still move money, if any. */
  async live(executor: Executor, payoutPageId: string): Promise<PayoutAttemptRow | null> {
    const [row] = await executor
      .select()
      .from(payoutAttempts)
      .where(and(eq(payoutAttempts.payoutPageId, payoutPageId), inArray(payoutAttempts.status, [...liveAttemptStatuses])));
    return row ?? null;
  },

  /** Every attempt of a page, oldest first (the dashboard). */
  async ofPage(executor: Executor, payoutPageId: string): Promise<PayoutAttemptRow[]> {
    return executor.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, payoutPageId)).orderBy(asc(payoutAttempts.number));
  },

  /**
   * Moves an attempt from `from` by a conditional UPDATE; null when another run moved it first
   * (a webhook and a poll racing: exactly one applies the change).
   */
  async move(executor: Executor, id: string, from: PayoutAttemptStatus, changes: Partial<PayoutAttemptInsert> & { status: PayoutAttemptStatus }): Promise<PayoutAttemptRow | null> {
    const [row] = await executor
      .update(payoutAttempts)
      .set(changes)
      .where(and(eq(payoutAttempts.id, id), eq(payoutAttempts.status, from)))
      .returning();
    return row ?? null;
  },

  /** Attempts still without a final answer that were handed over before `before` (reconciliation). */
  async unsettled(executor: Executor, before: Date, limit: number): Promise<PayoutAttemptRow[]> {
    return executor
      .select()
      .from(payoutAttempts)
      .where(and(inArray(payoutAttempts.status, ['SUBMITTING', 'SUBMITTED']), lt(payoutAttempts.createdAt, before)))
      .orderBy(asc(payoutAttempts.createdAt))
      .limit(limit);
  },
};
