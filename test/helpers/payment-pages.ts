import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { eq, sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { payments } from '../../src/db/schema/index.ts';
import { listCalls } from './lists.ts';
import { createTestContext, json, type TestContext, type TestContextOptions, type TestMerchant } from './context.ts';

export interface PageBody {
  id: string;
  status: string;
  clientReferenceId: string;
  customer: { id: string; referenceId: string; email: string };
  amount: number;
  currency: string;
  url: string;
  expiresAt: number;
  createdAt: number;
  paidAt?: number;
  expiredAt?: number;
  livemode: boolean;
  paymentId?: string;
  subscriptionId?: string;
  payinDetails?: { amount: number; currency: string; type: string; scheme: string; last4: string; cardType: string; bin: string; issuer: string };
  metadata: Record<string, string>;
  description?: string;
  lineItems?: Array<{ name: string; quantity: number; unitAmount: number }>;
  successReturnUrl?: string;
  failureReturnUrl?: string;
}

export const testCards = {
  visaCredit: '4242424242424242',
  mastercardCredit: '5555555555554444',
  visaDebit: '4000056655665556',
  declined: '4000000000000002',
  insufficientFunds: '4000000000009995',
  fraud: '4100000000000019',
} as const;

export function cardBody(cardNumber: string, overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { cardNumber, expMonth: 12, expYear: new Date().getUTCFullYear() + 3, cvc: '737', cardholderName: 'Ada Lovelace', ...overrides };
}

export function pageRequest(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    amount: 2500,
    currency: 'USD',
    clientReferenceId: randomUUID(),
    customer: { referenceId: `user-${randomUUID()}`, email: 'buyer@example.com' },
    ...overrides,
  };
}

export async function createPage(context: TestContext, merchant: TestMerchant, overrides: Record<string, unknown> = {}, query = '?livemode=false'): Promise<PageBody> {
  const response = await context.request({ method: 'POST', url: `/v1/payment_pages${query}`, apiKey: merchant.apiKey, body: pageRequest(overrides) });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: PageBody }>(response).data;
}

export async function payPage(context: TestContext, merchant: TestMerchant, pageId: string, cardNumber: string, overrides: Record<string, unknown> = {}) {
  return context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`, apiKey: merchant.apiKey, body: cardBody(cardNumber, overrides) });
}

export async function eventsOf(context: TestContext, type: string, pageId: string): Promise<Array<{ id: string; data: Record<string, unknown> }>> {
  return queryRows(context.database.db, sql`select id, data from events where type = ${type} and data->>'pageId' = ${pageId} order by created_at, id`);
}

/** A payment-page suite's `before`: a test context (`options` as createTestContext's) with a sandbox merchant, another merchant (scoping) and a live-enabled one. */
export async function openPaymentPageSuite(options: TestContextOptions = {}): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext(options);
  return { context, merchant: await context.createMerchant(), other: await context.createMerchant(), live: await context.createMerchant({ live: true }) };
}

/**
 * The API calls of payment-page tests, made as the suite's merchant (by default): `current` is read
 * at each call, since the suite's context and merchant are set in `before`.
 */
export function pageCalls(current: () => { context: TestContext; merchant: TestMerchant }) {
  return {
    create(body: unknown, apiKey = current().merchant.apiKey, query = '?livemode=false') {
      return current().context.request({ method: 'POST', url: `/v1/payment_pages${query}`, apiKey, body });
    },
    expire(pageId: string, options: { apiKey?: string; query?: string; body?: unknown; headers?: Record<string, string> } = {}) {
      const { context, merchant } = current();
      return context.request({ method: 'POST', url: `/v1/payment_pages/${pageId}/expire${options.query ?? ''}`, apiKey: options.apiKey ?? merchant.apiKey, body: options.body, headers: options.headers });
    },
    async read(pageId: string): Promise<PageBody> {
      const { context, merchant } = current();
      return json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}`, apiKey: merchant.apiKey })).data;
    },
  };
}

/** What is being paid for (docs/API.md §9): three lines that add up to 16500, one name to escape. */
export const sampleLineItems = [
  { name: 'Annual plan <Pro>', quantity: 1, unitAmount: 12000 },
  { name: 'Extra seats', quantity: 3, unitAmount: 1500 },
  { name: 'Welcome gift', quantity: 1, unitAmount: 0 },
];

/** The error answer of a refused payment. */
export type PayFailure = { status: string; errorCode: string; errorMessage: string; declineReason?: string };

/** A page's payment rows, oldest first. */
export function paymentsOf(context: TestContext, pageId: string) {
  return context.database.db.select().from(payments).where(eq(payments.pageId, pageId)).orderBy(payments.createdAt, payments.id);
}

/**
 * The `before` of the GET /v1/payment_pages suites: a live-enabled merchant with 23 pages (every fourth
 * live, some expired, some paid, two customers, two per millisecond so the id breaks the tie) and another
 * live-enabled merchant with one page for customer A. `created` is newest first, as GET by id answers each.
 */
export async function openPaymentPageListSuite(): Promise<{
  context: TestContext;
  merchant: TestMerchant;
  other: TestMerchant;
  created: PageBody[];
  customerA: { referenceId: string; email: string };
}> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant({ live: true });
  const customerA = { referenceId: `list-a-${randomUUID()}`, email: 'a@example.com' };
  const customerB = { referenceId: `list-b-${randomUUID()}`, email: 'b@example.com' };
  const pages: PageBody[] = [];
  for (let index = 0; index < 23; index += 1) {
    // Two pages share each millisecond: the id breaks the tie.
    if (index % 2 === 0) {
      context.clock.advance(1_000);
    }
    const livemode = index % 4 === 0;
    const page = await createPage(context, merchant, { customer: index % 3 === 0 ? customerA : customerB }, `?livemode=${livemode}`);
    if (index % 5 === 1) {
      assert.equal((await context.request({ method: 'POST', url: `/v1/payment_pages/${page.id}/expire`, apiKey: merchant.apiKey })).statusCode, 200);
    } else if (index % 7 === 2 && !livemode) {
      assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
    }
    pages.push(page);
  }
  const created = await Promise.all(pages.map(async (page) => json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data));
  created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
  await createPage(context, other, { customer: customerA });
  return { context, merchant, other, created, customerA };
}

/** GET /v1/payment_pages as the suite's merchant (`listCalls`: `list`, `all`, `ids`). */
export function pageLists(current: () => { context: TestContext; merchant: TestMerchant }) {
  return listCalls<PageBody, 'paymentPages'>(current, '/v1/payment_pages', 'paymentPages');
}
