import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { refunds, type RefundStatus } from '../../db/schema/index.ts';
import { olderThan, type PagePosition } from '../events/paging.ts';
import type { RefundView } from './schemas.ts';

export type RefundRow = typeof refunds.$inferSelect;
export type NewRefundRow = typeof refunds.$inferInsert;

/** The public Refund object. */
export function refundView(row: RefundRow): RefundView {
  return {
    id: row.id,
    paymentPageId: row.paymentPageId,
    paymentId: row.paymentId,
    amount: row.amount,
    currency: row.currency,
    reason: row.reason,
    status: row.status,
    ...(row.failureReason !== null ? { failureReason: row.failureReason } : {}),
    createdAt: row.createdAt.getTime(),
    livemode: row.livemode,
  };
}

export interface RefundScope {
  merchantId: string;
  /** undefined: either mode. */
  livemode: boolean | undefined;
}

function scoped(scope: RefundScope, ...extra: Array<SQL | undefined>): SQL | undefined {
  return and(eq(refunds.merchantId, scope.merchantId), scope.livemode === undefined ? undefined : eq(refunds.livemode, scope.livemode), ...extra);
}

export async function insertRefund(tx: Executor, row: NewRefundRow): Promise<RefundRow> {
  const [inserted] = await tx.insert(refunds).values(row).returning();
  if (!inserted) {
    throw new Error(`refund ${row.id} was not inserted`);
  }
  return inserted;
}

/**
 * Inserts a refund made with a one-time `requestKey` (the dashboard's refund form), or nothing when
 * that key made one already (a double click, a resubmitted form): null, and the caller reads that
 * refund. A concurrent insert with the same key waits here for the first to commit or roll back.
 */
export async function insertKeyedRefund(tx: Executor, row: NewRefundRow & { requestKey: string }): Promise<RefundRow | null> {
  const [inserted] = await tx.insert(refunds).values(row).onConflictDoNothing().returning();
  return inserted ?? null;
}

/** The refund a one-time request key made, in its merchant's mode. */
export async function findRefundByRequestKey(executor: Executor, scope: { merchantId: string; livemode: boolean }, requestKey: string): Promise<RefundRow | null> {
  const [row] = await executor.select().from(refunds).where(and(eq(refunds.merchantId, scope.merchantId), eq(refunds.livemode, scope.livemode), eq(refunds.requestKey, requestKey)));
  return row ?? null;
}

/** A refund by id, unscoped (jobs and provider webhooks, which carry our own ids). */
export async function findRefund(executor: Executor, refundId: string): Promise<RefundRow | null> {
  const [row] = await executor.select().from(refunds).where(eq(refunds.id, refundId));
  return row ?? null;
}

/** A refund of this merchant (and mode, when given); null for another merchant's or mode's. */
export async function findScopedRefund(executor: Executor, scope: RefundScope, refundId: string): Promise<RefundRow | null> {
  const [row] = await executor.select().from(refunds).where(scoped(scope, eq(refunds.id, refundId)));
  return row ?? null;
}

/**
 * PENDING → SUCCEEDED or FAILED, and SUCCEEDED → FAILED (a card network can refuse a refund after the
 * processor accepted it, as Stripe reports with `refund.updated`): conditional on the status read, so
 * the one caller that moves it gets the row. A null `processorReference` (the processor refused to
 * make the refund at all) keeps the row's.
 */
export async function finishRefund(tx: Executor, refundId: string, change: { status: Exclude<RefundStatus, 'PENDING'>; failureReason: string | null; processorReference: string | null; now: Date }): Promise<RefundRow | null> {
  const from: RefundStatus[] = change.status === 'FAILED' ? ['PENDING', 'SUCCEEDED'] : ['PENDING'];
  const [row] = await tx
    .update(refunds)
    .set({
      status: change.status,
      failureReason: change.failureReason,
      // A refusal (the processor made no refund) leaves whatever reference the row has.
      ...(change.processorReference !== null ? { processorReference: change.processorReference } : {}),
      settledAt: change.now,
      updatedAt: change.now,
    })
    .where(and(eq(refunds.id, refundId), inArray(refunds.status, from)))
    .returning();
  return row ?? null;
}

/** Notes the processor's id of a refund still PENDING there (first answer wins). */
export async function recordProcessorReference(executor: Executor, refundId: string, processorReference: string, now: Date): Promise<void> {
  await executor.update(refunds).set({ processorReference, updatedAt: now }).where(and(eq(refunds.id, refundId), eq(refunds.status, 'PENDING')));
}

/** Newest first, keyset-paged after `position`; `limit + 1` rows so the caller can tell whether more follow. */
export async function listRefunds(executor: Executor, scope: RefundScope, filter: { paymentPageId?: string | undefined; after?: PagePosition | undefined; limit: number }): Promise<RefundRow[]> {
  return executor
    .select()
    .from(refunds)
    .where(
      scoped(
        scope,
        filter.paymentPageId === undefined ? undefined : eq(refunds.paymentPageId, filter.paymentPageId),
        filter.after === undefined ? undefined : olderThan(refunds.createdAt, refunds.id, filter.after),
      ),
    )
    .orderBy(desc(refunds.createdAt), desc(refunds.id))
    .limit(filter.limit + 1);
}
