import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { createPage, payPage, testCards, type PageBody } from './payment-pages.ts';

export interface RefundBody {
  id: string;
  paymentPageId: string;
  paymentId: string;
  amount: number;
  currency: string;
  reason: string | null;
  status: 'PENDING' | 'SUCCEEDED' | 'FAILED';
  failureReason?: string;
  createdAt: number;
  livemode: boolean;
}

/** The sandbox card whose payments succeed and whose refunds fail (as Stripe's). */
export const refundsFailCard = '4000000000005126';

/** A sandbox page paid with `card`, as the API then reads it. */
export async function paidPage(context: TestContext, merchant: TestMerchant, overrides: Record<string, unknown> = {}, card: string = testCards.visaCredit): Promise<PageBody & { refundedAmount: number }> {
  const page = await createPage(context, merchant, overrides);
  const paid = await payPage(context, merchant, page.id, card);
  assert.equal(paid.statusCode, 200, paid.body);
  return json<{ data: PageBody & { refundedAmount: number } }>(paid).data;
}

export function postRefund(context: TestContext, merchant: TestMerchant, body: unknown, options: { query?: string; headers?: Record<string, string> } = {}) {
  return context.request({ method: 'POST', url: `/v1/refunds${options.query ?? '?livemode=false'}`, apiKey: merchant.apiKey, body, ...(options.headers ? { headers: options.headers } : {}) });
}

export async function createRefund(context: TestContext, merchant: TestMerchant, body: Record<string, unknown>): Promise<RefundBody> {
  const response = await postRefund(context, merchant, body);
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: RefundBody }>(response).data;
}

/** Runs the refund jobs: the processor call now, then its answer after the sandbox delay (SANDBOX_PAYOUT_DELAY_MS). */
export async function settleSandboxRefunds(context: TestContext): Promise<void> {
  await context.drainJobs();
  context.clock.advance(context.config.sandboxPayoutDelayMs);
  await context.drainJobs();
}

export async function readRefund(context: TestContext, merchant: TestMerchant, refundId: string): Promise<RefundBody> {
  const response = await context.request({ method: 'GET', url: `/v1/refunds/${refundId}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: RefundBody }>(response).data;
}

export async function readPage(context: TestContext, merchant: TestMerchant, pageId: string): Promise<PageBody & { refundedAmount: number }> {
  const response = await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: PageBody & { refundedAmount: number } }>(response).data;
}

/** Events about one refund, oldest first. */
export async function refundEvents(context: TestContext, refundId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
  return queryRows(context.database.db, sql`select type, data from events where data->>'id' = ${refundId} and type in ('PAYMENT_REFUNDED', 'REFUND_FAILED') order by created_at, id`);
}

/** Ledger rows that mention a reference (a payment or refund id). */
export async function ledgerMovements(context: TestContext, reference: string): Promise<Array<{ kind: string; currency: string }>> {
  return queryRows(context.database.db, sql`select kind, currency from ledger_transactions where reference = ${reference} order by created_at, id`);
}

/** Counts of what refunds write: nothing of it may appear after a refused request. */
export async function refundFootprint(context: TestContext): Promise<{ refunds: number; refundLedger: number; refundJobs: number; refundEvents: number; refunded: number }> {
  const [row] = await queryRows<{ refunds: number; refundLedger: number; refundJobs: number; refundEvents: number; refunded: number }>(
    context.database.db,
    sql`select (select count(*) from refunds)::int as "refunds",
               (select count(*) from ledger_transactions where kind in ('refund', 'refund_failed'))::int as "refundLedger",
               (select count(*) from jobs where queue = 'refunds.process')::int as "refundJobs",
               (select count(*) from events where type in ('PAYMENT_REFUNDED', 'REFUND_FAILED'))::int as "refundEvents",
               (select coalesce(sum(refunded_amount), 0) from payments)::int as "refunded"`,
  );
  assert.ok(row);
  return row;
}

/**
 * The `before` of the GET /v1/refunds suites: a merchant with two paid pages, five refunds on the first
 * (pageA, oldest first) and one on the second (pageB), 10 ms apart; another merchant with none.
 */
export async function openRefundListSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; pageA: string; pageB: string; madeOnA: RefundBody[]; madeOnB: RefundBody }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant();
  const other = await context.createMerchant();
  const pageA = (await paidPage(context, merchant, { amount: 1000 })).id;
  const pageB = (await paidPage(context, merchant, { amount: 1000 })).id;
  const madeOnA: RefundBody[] = [];
  for (let index = 0; index < 5; index += 1) {
    context.clock.advance(10);
    madeOnA.push(await createRefund(context, merchant, { paymentPageId: pageA, amount: 100 + index }));
  }
  context.clock.advance(10);
  const madeOnB = await createRefund(context, merchant, { paymentPageId: pageB, amount: 50 });
  return { context, merchant, other, pageA, pageB, madeOnA, madeOnB };
}

/** A page of GET /v1/refunds. */
export type RefundList = { refunds: RefundBody[]; hasMore: boolean; nextCursor?: string };

/** GET /v1/refunds`query` as the suite's merchant unless another is given (the answer unchecked); `current` is read at each call. */
export function refundLists(current: () => { context: TestContext; merchant: TestMerchant }) {
  return (query: string, as: TestMerchant = current().merchant) => current().context.request({ method: 'GET', url: `/v1/refunds${query}`, apiKey: as.apiKey });
}
