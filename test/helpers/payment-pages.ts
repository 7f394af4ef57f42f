import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';

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

/** A payment-page suite's `before`: a test context with a sandbox merchant, another merchant (scoping) and a live-enabled one. */
export async function openPaymentPageSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext();
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
