import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import { queryNamedRows, type Executor } from '../../db/client.ts';
import { refunds, type RefundStatus } from '../../db/schema/index.ts';
import { olderThan, type PagePosition } from '../../http/paging.ts';
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

/** A new PENDING refund as `createRefund` makes it: `requestKey` when the dashboard's form made it. */
export type NewPendingRefund = Pick<RefundRow, 'id' | 'merchantId' | 'livemode' | 'paymentPageId' | 'paymentId' | 'amount' | 'currency' | 'reason' | 'createdAt'> & { requestKey: string | null };

/**
 * Inserts a PENDING refund and, only when it was inserted, the job that processes it (`job`: a
 * `jobInsertStatement` made with the condition it is given), without a NOTIFY (the caller wakes the
 * workers after its commit): one statement (a named one: it is the same text every time). Null when the refund's `requestKey` made one already (nothing written); a concurrent
 * insert with the same key waits here for the first to commit or roll back.
 */
export async function insertRefundWithJob(tx: Executor, refund: NewPendingRefund, job: (onlyIf: SQL) => SQL): Promise<RefundRow | null> {
  const at = refund.createdAt.toISOString();
  const rows = await queryNamedRows<{ id: string }>(
    tx,
    'refunds_insert_with_job',
    sql`with refund as (
      insert into refunds (id, merchant_id, livemode, payment_page_id, payment_id, amount, currency, reason, status, request_key, created_at, updated_at)
      values (${refund.id}::text, ${refund.merchantId}::text, ${refund.livemode}::boolean, ${refund.paymentPageId}::text, ${refund.paymentId}::text,
              ${refund.amount}::int, ${refund.currency}::text, ${refund.reason}::text, 'PENDING', ${refund.requestKey}::text, ${at}::timestamptz, ${at}::timestamptz)
      on conflict (merchant_id, livemode, request_key) do nothing
      returning id
    ),
    job as (${job(sql`exists (select 1 from refund)`)})
    select refund.id from refund`,
  );
  if (rows.length === 0) {
    return null;
  }
  return { ...refund, status: 'PENDING', failureReason: null, processorReference: null, updatedAt: refund.createdAt, settledAt: null };
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
