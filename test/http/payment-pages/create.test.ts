import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, pageRequest, type PageBody } from '../../helpers/payment-pages.ts';

type Failure = { status: string; errorCode: string; errorMessage: string; requestId: string };

describe('POST /v1/payment_pages and GET /v1/payment_pages/:pageId', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  async function create(body: unknown, apiKey = merchant.apiKey, query = '?livemode=false') {
    return context.request({ method: 'POST', url: `/v1/payment_pages${query}`, apiKey, body });
  }

  test('required fields only: CREATED, url, default expiry of 24 h, customer created, no optional fields', async () => {
    const now = context.clock.now().getTime();
    const body = pageRequest({ amount: 1999, currency: 'EUR', customer: { referenceId: 'new-customer-1', email: 'Buyer@Example.com' } });
    const response = await create(body);
    assert.equal(response.statusCode, 200, response.body);
    const { status, data } = json<{ status: string; data: PageBody }>(response);
    assert.equal(status, 'SUCCEEDED');
    assert.match(data.id, /^page_[0-9a-z]{36}$/);
    assert.equal(data.status, 'CREATED');
    assert.equal(data.clientReferenceId, body.clientReferenceId);
    assert.equal(data.amount, 1999);
    assert.equal(data.currency, 'EUR');
    assert.equal(data.url, `http://paysail.test/payment-page/${data.id}`);
    assert.equal(data.expiresAt, now + 24 * 60 * 60 * 1000);
    assert.equal(data.createdAt, now);
    assert.equal(data.livemode, false);
    assert.deepEqual(data.metadata, {});
    assert.match(data.customer.id, /^cus_/);
    assert.equal(data.customer.referenceId, 'new-customer-1');
    assert.equal(data.customer.email, 'Buyer@Example.com');
    for (const absent of ['paidAt', 'paymentId', 'subscriptionId', 'payinDetails', 'successReturnUrl', 'failureReturnUrl', 'subscription', 'expiredAt']) {
      assert.equal(absent in data, false, `${absent} is absent on a new page`);
    }
    // The unknown referenceId created the customer, readable through the customers API.
    const customer = await context.request({ method: 'GET', url: `/v1/customers/${data.customer.id}`, apiKey: merchant.apiKey });
    assert.equal(customer.statusCode, 200);
    assert.equal(json<{ data: { referenceId: string; email: string } }>(customer).data.referenceId, 'new-customer-1');

    const read = await context.request({ method: 'GET', url: `/v1/payment_pages/${data.id}`, apiKey: merchant.apiKey });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(json<{ data: PageBody }>(read).data, data);
  });

  test('every optional field is stored and returned', async () => {
    const expiresAt = context.clock.now().getTime() + 3 * 24 * 60 * 60 * 1000;
    const metadata = Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`key${index}`, `value ${index}`]));
    const response = await create(
      pageRequest({
        currency: 'GBP',
        successReturnUrl: 'https://shop.example.com/thanks?order=1',
        failureReturnUrl: 'http://shop.example.com/cart',
        expiresAt,
        metadata,
        subscription: { productId: 'prod_gold', interval: 'MONTH', intervalCount: 3 },
      }),
    );
    assert.equal(response.statusCode, 200, response.body);
    const { data } = json<{ data: PageBody & { subscription: unknown } }>(response);
    assert.equal(data.successReturnUrl, 'https://shop.example.com/thanks?order=1');
    assert.equal(data.failureReturnUrl, 'http://shop.example.com/cart');
    assert.equal(data.expiresAt, expiresAt);
    assert.deepEqual(data.metadata, metadata);
    assert.deepEqual(data.subscription, { productId: 'prod_gold', interval: 'MONTH', intervalCount: 3 });
    const defaulted = json<{ data: { subscription: unknown } }>(await create(pageRequest({ subscription: { productId: 'p', interval: 'YEAR' } }))).data;
    assert.deepEqual(defaulted.subscription, { productId: 'p', interval: 'YEAR', intervalCount: 1 });
  });

  test('an existing customer referenceId reuses the customer', async () => {
    const customer = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'known-1', signupAt: 1_700_000_000_000, email: 'known@example.com' } });
    const customerId = json<{ data: { id: string } }>(customer).data.id;
    const first = await createPage(context, merchant, { customer: { referenceId: 'known-1', email: 'other@example.com' } });
    const second = await createPage(context, merchant, { customer: { referenceId: 'known-1', email: 'known@example.com' } });
    assert.equal(first.customer.id, customerId);
    assert.equal(second.customer.id, customerId);
    // The page keeps the e-mail it was created with.
    assert.equal(first.customer.email, 'other@example.com');
  });

  test('two pages created at once for one new customer both succeed with the same customer', async () => {
    const responses = await Promise.all([0, 1, 2].map(() => create(pageRequest({ customer: { referenceId: 'concurrent-new', email: 'c@example.com' } }))));
    const ids = new Set(responses.map((response) => {
      assert.equal(response.statusCode, 200, response.body);
      return json<{ data: PageBody }>(response).data.customer.id;
    }));
    assert.equal(ids.size, 1);
  });

  test('clientReferenceId is unique per merchant and mode: 409 DUPLICATE_CLIENT_REFERENCE_ID', async () => {
    const body = pageRequest({ clientReferenceId: 'order-42' });
    assert.equal((await create(body)).statusCode, 200);
    const duplicate = await create(pageRequest({ clientReferenceId: 'order-42' }));
    assert.equal(duplicate.statusCode, 409);
    const failure = json<Failure>(duplicate);
    assert.equal(failure.status, 'FAILED');
    assert.equal(failure.errorCode, 'DUPLICATE_CLIENT_REFERENCE_ID');
    assert.match(failure.requestId, /^req_/);
    // Another merchant, and the other mode of a live merchant, may use it.
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), other.apiKey)).statusCode, 200);
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), live.apiKey, '?livemode=false')).statusCode, 200);
    assert.equal((await create(pageRequest({ clientReferenceId: 'order-42' }), live.apiKey, '?livemode=true')).statusCode, 200);
  });

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['amount 0', { amount: 0 }, /^amount /],
    ['amount above 100,000,000', { amount: 100_000_001 }, /^amount /],
    ['fractional amount', { amount: 10.5 }, /^amount must be an integer/],
    ['amount as a string', { amount: '100' }, /^amount must be an integer/],
    ['unsupported currency', { currency: 'JPY' }, /^currency must be one of USD, EUR, GBP/],
    ['empty clientReferenceId', { clientReferenceId: '' }, /^clientReferenceId /],
    ['clientReferenceId over 255', { clientReferenceId: 'x'.repeat(256) }, /^clientReferenceId /],
    ['missing customer', { customer: undefined }, /^customer is required/],
    ['missing customer.email', { customer: { referenceId: 'r' } }, /^customer\.email is required/],
    ['missing customer.referenceId', { customer: { email: 'a@example.com' } }, /^customer\.referenceId is required/],
    ['invalid customer.email', { customer: { referenceId: 'r', email: 'not-an-email' } }, /^customer\.email /],
    ['unknown customer field', { customer: { referenceId: 'r', email: 'a@example.com', name: 'x' } }, /^customer\.name is not a recognised field/],
    ['ftp successReturnUrl', { successReturnUrl: 'ftp://example.com/x' }, /^successReturnUrl must be an absolute http or https URL/],
    ['relative failureReturnUrl', { failureReturnUrl: '/cart' }, /^failureReturnUrl must be an absolute http or https URL/],
    ['expiresAt in the past', { expiresAt: 1_000 }, /^expiresAt must be in the future/],
    ['expiresAt beyond 30 days', { expiresAt: Date.now() + 31 * 24 * 60 * 60 * 1000 }, /^expiresAt must be at most 30 days from now/],
    ['21 metadata entries', { metadata: Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, 'v'])) }, /^metadata must have at most 20 entries/],
    ['metadata key over 40', { metadata: { ['k'.repeat(41)]: 'v' } }, /^metadata keys must be 1-40 characters/],
    ['metadata value not a string', { metadata: { a: 1 } }, /^metadata\.a must be a string/],
    ['subscription interval HOUR', { subscription: { productId: 'p', interval: 'HOUR' } }, /^subscription\.interval must be one of DAY, WEEK, MONTH, YEAR/],
    ['subscription intervalCount 13', { subscription: { productId: 'p', interval: 'DAY', intervalCount: 13 } }, /^subscription\.intervalCount must be at most 12/],
    ['subscription without productId', { subscription: { interval: 'DAY' } }, /^subscription\.productId is required/],
    ['unknown field', { color: 'red' }, /^color is not a recognised field/],
  ];
  for (const [name, overrides, message] of invalid) {
    test(`400 WRONG_PARAMETER: ${name}`, async () => {
      const body = { ...pageRequest(), ...overrides };
      for (const [key, value] of Object.entries(overrides)) {
        if (value === undefined) {
          delete (body as Record<string, unknown>)[key];
        }
      }
      const response = await create(body);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<Failure>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
    });
  }

  test('malformed JSON and non-JSON bodies', async () => {
    const malformed = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: '{"amount":' });
    assert.equal(malformed.statusCode, 400);
    assert.equal(json<Failure>(malformed).errorCode, 'WRONG_PARAMETER');
    const form = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: 'amount=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    assert.equal(form.statusCode, 415);
  });

  test('modes: omitted livemode means live (403 without live access); a live merchant creates live pages', async () => {
    const refused = await create(pageRequest(), merchant.apiKey, '');
    assert.equal(refused.statusCode, 403);
    const failure = json<Failure>(refused);
    assert.equal(failure.errorCode, 'LIVE_MODE_NOT_ENABLED');
    assert.match(failure.errorMessage, /livemode=false/);
    const livePage = json<{ data: PageBody }>(await create(pageRequest(), live.apiKey, '')).data;
    assert.equal(livePage.livemode, true);
  });

  test('reads: another merchant → 404; livemode mismatch → 404; livemode=true without live access → 403; unknown → 404', async () => {
    const page = await createPage(context, merchant);
    const asOther = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: other.apiKey });
    assert.equal(asOther.statusCode, 404);
    assert.equal(json<Failure>(asOther).errorCode, 'NOT_FOUND');
    const liveQuery = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<Failure>(liveQuery).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const sandboxPageOfLive = await createPage(context, live);
    const mismatch = await context.request({ method: 'GET', url: `/v1/payment_pages/${sandboxPageOfLive.id}?livemode=true`, apiKey: live.apiKey });
    assert.equal(mismatch.statusCode, 404);
    const matching = await context.request({ method: 'GET', url: `/v1/payment_pages/${sandboxPageOfLive.id}?livemode=false`, apiKey: live.apiKey });
    assert.equal(matching.statusCode, 200);
    const unknown = await context.request({ method: 'GET', url: '/v1/payment_pages/page_doesnotexist', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);
    assert.equal(json<Failure>(unknown).errorCode, 'NOT_FOUND');
  });

  test('authentication is required', async () => {
    const page = await createPage(context, merchant);
    for (const [method, url] of [
      ['POST', '/v1/payment_pages?livemode=false'],
      ['GET', `/v1/payment_pages/${page.id}`],
      ['POST', `/v1/payment_pages/${page.id}/expire`],
      ['POST', `/v1/test_helpers/payment_pages/${page.id}/pay?livemode=false`],
    ] as const) {
      const response = await context.request({ method, url, body: method === 'POST' ? {} : undefined });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
      assert.equal(json<Failure>(response).errorCode, 'UNAUTHORIZED');
    }
  });

  test('Idempotency-Key replays the create', async () => {
    const body = pageRequest();
    const headers = { 'idempotency-key': 'create-page-1' };
    const first = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body, headers });
    const second = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body, headers });
    assert.equal(first.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
  });
});
