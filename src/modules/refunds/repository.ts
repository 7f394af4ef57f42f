import { and, desc, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { numberedGroupRows } from '../../db/recordset.ts';
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

/**
 * The atomic refund's own writes (decision 0039), as CTEs after the posting: the PENDING refund with
 * the gate's amount, mode, currency and payment, and (`job`, a `jobInsertStatement` made with the
 * condition it is given) its processing job, both only when the posting is written (`ok`). No
 * `on conflict`: a `requestKey` used already fails the whole statement (nothing written).
 */
export function refundInsertCtes(refund: Pick<RefundRow, 'id' | 'merchantId' | 'paymentPageId' | 'reason' | 'createdAt'> & { requestKey: string | null }, job: (onlyIf: SQL) => SQL): SQL {
  const at = refund.createdAt.toISOString();
  return sql`refund as (
      insert into refunds (id, merchant_id, livemode, payment_page_id, payment_id, amount, currency, reason, status, request_key, created_at, updated_at)
      select ${refund.id}::text, ${refund.merchantId}::text, g.livemode, ${refund.paymentPageId}::text, g.payment_id, g.amount::int, g.currency,
             ${refund.reason}::text, 'PENDING', ${refund.requestKey}::text, ${at}::timestamptz, ${at}::timestamptz
      from gate g where exists (select 1 from ok)
      returning id, livemode, payment_id, amount, currency
    ),
    job as (${job(sql`exists (select 1 from refund)`)})`;
}

/**
 * A batch's refund rows and their `refunds.process` jobs (CTEs `refund_input`, `refund`, `job`), one per
 * member the ledger accepted (`accepted (grp, ord, take)`), each on its group's page and payment
 * (`gate`: `grp, payment_id, livemode, currency`); `groups` in the order of the batch's groups.
 */
export function refundBatchInsertCtes(
  batch: { queue: string; groups: ReadonlyArray<{ merchantId: string; paymentPageId: string; refunds: ReadonlyArray<{ id: string; reason: string | null; createdAt: Date; jobId: string }> }> },
  jobs: (source: SQL) => SQL,
): SQL {
  const rows = numberedGroupRows(
    batch.groups,
    (group) => group.refunds,
    (refund, group) => ({
      merchant_id: group.merchantId,
      page_id: group.paymentPageId,
      id: refund.id,
      reason: refund.reason,
      at: refund.createdAt.toISOString(),
      job_id: refund.jobId,
    }),
  );
  return sql`refund_input as materialized (
      select * from json_to_recordset(${rows}::json) as r(grp int, ord int, merchant_id text, page_id text, id text, reason text, at timestamptz, job_id text)
    ),
    refund as (
      insert into refunds (id, merchant_id, livemode, payment_page_id, payment_id, amount, currency, reason, status, request_key, created_at, updated_at)
      select r.id, r.merchant_id, g.livemode, r.page_id, g.payment_id, a.take::int, g.currency, r.reason, 'PENDING', null, r.at, r.at
      from accepted a join refund_input r on r.grp = a.grp and r.ord = a.ord join gate g on g.grp = a.grp
      returning id, livemode, payment_id, amount, currency
    ),
    job as (${jobs(sql`select r.job_id as id, json_build_object('refundId', r.id)::jsonb as payload, ${`${batch.queue}:`}::text || r.id as dedupe_key, r.at
      from accepted a join refund_input r on r.grp = a.grp and r.ord = a.ord`)})`;
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
