import assert from 'node:assert/strict';
import { inArray } from 'drizzle-orm';
import { customers as customerRows } from '../../src/db/schema/index.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { listCalls } from './lists.ts';

export interface CustomerBody {
  id: string;
  referenceId: string;
  kycStatus: string;
  livemode: boolean;
  createdAt: number;
}

async function readCustomer(context: TestContext, merchant: TestMerchant, id: string): Promise<CustomerBody> {
  const response = await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: CustomerBody }>(response).data;
}

async function postCustomer(context: TestContext, target: TestMerchant, livemode: boolean, referenceId: string): Promise<string> {
  const response = await context.request({
    method: 'POST',
    url: `/v1/customers?livemode=${livemode}`,
    apiKey: target.apiKey,
    body: { referenceId, signupAt: context.clock.now().getTime(), email: `${referenceId}@example.com` },
  });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: { id: string } }>(response).data.id;
}

/**
 * The `before` of the GET /v1/customers suites: a live-enabled merchant with 13 customers
 * (list-customer-0…12, every fourth live, three APPROVED, two per second) and another merchant with one
 * (list-customer-0). `created` is newest first, each as GET by id answers it.
 */
export async function openCustomerListSuite(): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; created: CustomerBody[] }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant({ live: true });
  const other = await context.createMerchant();
  const ids: string[] = [];
  for (let index = 0; index < 13; index += 1) {
    if (index % 2 === 0) {
      context.clock.advance(1_000);
    }
    ids.push(await postCustomer(context, merchant, index % 4 === 0, `list-customer-${index}`));
  }
  await context.database.db.update(customerRows).set({ kycStatus: 'APPROVED' }).where(inArray(customerRows.id, [ids[2] ?? '', ids[3] ?? '', ids[8] ?? '']));
  const created = await Promise.all(ids.map((id) => readCustomer(context, merchant, id)));
  created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
  await postCustomer(context, other, false, 'list-customer-0');
  return { context, merchant, other, created };
}

/** GET /v1/customers as the suite's merchant (`listCalls`, three a page: `list`, `all`, `ids`). */
export function customerLists(current: () => { context: TestContext; merchant: TestMerchant }) {
  return listCalls<CustomerBody, 'customers'>(current, '/v1/customers', 'customers', 3);
}

/**
 * The `before` of the customer-rights suites (export, erase): a merchant with one sandbox customer
 * (`referenceId`, `email`) and another merchant. `email(id)` reads the merchant's customer's e-mail.
 */
export async function openCustomerRightsSuite(referenceId: string, email: string): Promise<{ context: TestContext; merchant: TestMerchant; other: TestMerchant; customerId: string }> {
  const context = await createTestContext();
  const merchant = await context.createMerchant();
  const other = await context.createMerchant();
  const customerId = await postCustomerWith(context, merchant, { referenceId, signupAt: context.clock.now().getTime(), email });
  return { context, merchant, other, customerId };
}

async function postCustomerWith(context: TestContext, target: TestMerchant, body: Record<string, unknown>): Promise<string> {
  const response = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: target.apiKey, body });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: { id: string } }>(response).data.id;
}

/** The e-mail of one of the suite merchant's customers, as GET /v1/customers/:id answers it. */
export function customerEmailCall(current: () => { context: TestContext; merchant: TestMerchant }) {
  return async (customerId: string): Promise<string | undefined> => {
    const { context, merchant } = current();
    const response = await context.request({ method: 'GET', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: { email?: string } }>(response).data.email;
  };
}
