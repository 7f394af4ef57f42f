import assert from 'node:assert/strict';
import { inArray, sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { queryRows } from '../../src/db/client.ts';
import { subscriptions as subscriptionRows } from '../../src/db/schema/index.ts';
import { listCalls } from './lists.ts';
import { TestClock } from './clock.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { createPage, payPage, testCards, type PageBody } from './payment-pages.ts';

export interface InvoiceBody {
  id: string;
  status: string;
  amount: number;
  currency: string;
  paymentId: string;
  periodStart: number;
  periodEnd: number;
  paidAt: number;
  createdAt: number;
}

export interface SubscriptionBody {
  id: string;
  status: 'ACTIVE' | 'PAST_DUE' | 'CANCELED';
  merchantId: string;
  livemode: boolean;
  customerId: string;
  productId: string;
  pageId: string;
  interval: string;
  intervalCount: number;
  amount: number;
  currency: string;
  currentPeriodStart: number;
  currentPeriodEnd: number;
  cancelAtPeriodEnd: boolean;
  canceledAt?: number;
  endedAt?: number;
  failedRenewalAttempts: number;
  nextRenewalAttemptAt?: number;
  lastDeclineReason?: string;
  renewalPaymentPageId?: string;
  renewalPaymentUrl?: string;
  latestInvoice?: InvoiceBody;
  createdAt: number;
  updatedAt: number;
}

export interface EntitlementBody {
  id: string;
  createdAt: number;
  updatedAt?: number;
  subscriptionId: string;
  productId: string;
  invoiceId?: string;
  livemode: boolean;
  customerId: string;
  merchantId: string;
  startPeriod: number;
  endPeriod: number;
  idempotencyKey: string;
}

export interface EntitlementsPage {
  entitlements: EntitlementBody[];
  hasMore: boolean;
  nextPageToken?: string;
}

export const entitlementFields = ['id', 'createdAt', 'updatedAt', 'subscriptionId', 'productId', 'invoiceId', 'livemode', 'customerId', 'merchantId', 'startPeriod', 'endPeriod', 'idempotencyKey'];

export const dayMs = 24 * 60 * 60 * 1000;

/** Creates a sandbox payment page carrying `subscription`, pays it by card, and returns the page and its subscription. */
export async function startSubscription(
  context: TestContext,
  merchant: TestMerchant,
  options: { interval: 'DAY' | 'WEEK' | 'MONTH' | 'YEAR'; intervalCount?: number; productId?: string; amount?: number; currency?: string; customerReferenceId?: string; cardNumber?: string; card?: Record<string, unknown> },
): Promise<{ page: PageBody; subscription: SubscriptionBody }> {
  const page = await createPage(context, merchant, {
    amount: options.amount ?? 1500,
    currency: options.currency ?? 'USD',
    subscription: { productId: options.productId ?? 'prod_pro', interval: options.interval, ...(options.intervalCount ? { intervalCount: options.intervalCount } : {}) },
    ...(options.customerReferenceId ? { customer: { referenceId: options.customerReferenceId, email: 'subscriber@example.com' } } : {}),
  });
  const paid = await payPage(context, merchant, page.id, options.cardNumber ?? testCards.visaCredit, options.card ?? {});
  assert.equal(paid.statusCode, 200, paid.body);
  const paidPage = json<{ data: PageBody }>(paid).data;
  assert.match(String(paidPage.subscriptionId), /^sub_[0-9a-z]{36}$/);
  return { page: paidPage, subscription: await readSubscription(context, merchant, String(paidPage.subscriptionId)) };
}

export async function readSubscription(context: TestContext, merchant: TestMerchant, subscriptionId: string): Promise<SubscriptionBody> {
  const response = await context.request({ method: 'GET', url: `/v1/subscriptions/${subscriptionId}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: SubscriptionBody }>(response).data;
}

export function renewNow(context: TestContext, merchant: TestMerchant, subscriptionId: string, query = '?livemode=false'): Promise<LightMyRequestResponse> {
  return context.request({ method: 'POST', url: `/v1/test_helpers/subscriptions/${subscriptionId}/renew${query}`, apiKey: merchant.apiKey });
}

export function cancelSubscription(context: TestContext, merchant: TestMerchant, subscriptionId: string): Promise<LightMyRequestResponse> {
  return context.request({ method: 'POST', url: `/v1/subscriptions/${subscriptionId}/cancel`, apiKey: merchant.apiKey });
}

export function queryEntitlements(context: TestContext, merchant: TestMerchant, query: Record<string, string | number | boolean> = {}): Promise<LightMyRequestResponse> {
  const search = new URLSearchParams(Object.entries(query).map(([key, value]): [string, string] => [key, String(value)])).toString();
  return context.request({ method: 'GET', url: `/v1/entitlements${search ? `?${search}` : ''}`, apiKey: merchant.apiKey });
}

export async function listEntitlements(context: TestContext, merchant: TestMerchant, query: Record<string, string | number | boolean> = {}): Promise<EntitlementsPage> {
  const response = await queryEntitlements(context, merchant, query);
  assert.equal(response.statusCode, 200, response.body);
  return json<EntitlementsPage>(response);
}

/** Every entitlement of a subscription, oldest first. */
export async function entitlementsOf(context: TestContext, merchant: TestMerchant, subscriptionId: string): Promise<EntitlementBody[]> {
  return (await listEntitlements(context, merchant, { subscriptionId })).entitlements;
}

export async function renewalPayments(context: TestContext, subscription: { pageId: string }): Promise<Array<{ id: string; status: string; declineReason: string | null; amount: number }>> {
  return queryRows(
    context.database.db,
    sql`select id, status, decline_reason as "declineReason", amount from payments where kind = 'RENEWAL' and page_id = ${subscription.pageId} order by created_at, id`,
  );
}

export async function entitlementEvents(context: TestContext, subscriptionId: string): Promise<Array<Record<string, unknown>>> {
  const rows = await queryRows<{ data: Record<string, unknown> }>(
    context.database.db,
    sql`select data from events where type = 'ENTITLEMENT_CREATED' and data->>'subscriptionId' = ${subscriptionId} order by created_at, id`,
  );
  return rows.map((row) => row.data);
}

/** Moves the test clock to `time` and runs every job that is due by then. */
export async function runUntil(context: TestContext, time: number): Promise<void> {
  context.clock.set(time);
  await context.drainJobs();
}

/** Epoch ms of an ISO date-time without a zone, read as UTC. */
export const utc = (iso: string): number => new Date(`${iso}Z`).getTime();

/** A subscriptions suite's `before`: a test context whose clock starts at `start` (UTC), with one sandbox merchant. */
export async function openSubscriptionSuite(start: string): Promise<{ context: TestContext; merchant: TestMerchant }> {
  const context = await createTestContext({ clock: new TestClock(utc(start)) });
  return { context, merchant: await context.createMerchant() };
}

/**
 * The `before` of the GET /v1/subscriptions suites: a live-enabled merchant with nine sandbox monthly
 * subscriptions (two customers, three and six; two CANCELED; two per second) and another merchant with
 * one weekly subscription for the first customer's reference. `created` is newest first, each as GET by
 * id answers it.
 */
export async function openSubscriptionListSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; created: SubscriptionBody[] }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant();
  const referenceA = `sub-list-a-${Date.now()}`;
  const referenceB = `sub-list-b-${Date.now()}`;
  const ids: string[] = [];
  for (let index = 0; index < 9; index += 1) {
    if (index % 2 === 0) {
      context.clock.advance(1_000);
    }
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH', customerReferenceId: index % 3 === 0 ? referenceA : referenceB });
    ids.push(subscription.id);
  }
  // Two ended subscriptions, for the status filter.
  await context.database.db
    .update(subscriptionRows)
    .set({ status: 'CANCELED', endedAt: context.clock.now(), canceledAt: context.clock.now() })
    .where(inArray(subscriptionRows.id, [ids[1] ?? '', ids[5] ?? '']));
  const created = await Promise.all(ids.map((id) => readSubscription(context, merchant, id)));
  created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
  await startSubscription(context, other, { interval: 'WEEK', customerReferenceId: referenceA });
  return { context, merchant, other, created };
}

/** GET /v1/subscriptions as the suite's merchant (`listCalls`, two a page: `list`, `all`, `ids`). */
export function subscriptionLists(current: () => { context: TestContext; merchant: TestMerchant }) {
  return listCalls<SubscriptionBody, 'subscriptions'>(current, '/v1/subscriptions', 'subscriptions', 2);
}
