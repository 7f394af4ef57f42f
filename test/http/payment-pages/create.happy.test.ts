import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, openPaymentPageSuite, pageCalls, pageRequest, payPage, sampleLineItems, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { signedInClient, textOf } from '../dashboard/client.ts';

describe('POST /v1/payment_pages: pages created, customers found or created, replays; the description and line items wherever the page is shown', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { create } = pageCalls(() => ({ context, merchant }));

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

  test('Idempotency-Key replays the create', async () => {
    const body = pageRequest();
    const headers = { 'idempotency-key': 'create-page-1' };
    const first = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body, headers });
    const second = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body, headers });
    assert.equal(first.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
  });

  test('create, read and list answer the description and line items exactly as given', async () => {
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems: sampleLineItems });
    assert.equal(page.description, 'Pro plan for Example Ltd, 2027');
    assert.deepEqual(page.lineItems, sampleLineItems);
    const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
    assert.deepEqual([read.description, read.lineItems], [page.description, sampleLineItems]);
    const listed = json<{ data: { paymentPages: PageBody[] } }>(await context.request({ method: 'GET', url: `/v1/payment_pages?livemode=false&clientReferenceId=${page.clientReferenceId}`, apiKey: merchant.apiKey })).data.paymentPages;
    assert.deepEqual(listed.map((listedPage) => [listedPage.description, listedPage.lineItems]), [[page.description, sampleLineItems]]);
    const plain = await createPage(context, merchant);
    assert.ok(!('description' in plain) && !('lineItems' in plain), 'absent when not given');
  });

  test('the hosted checkout and the paid page show the description and each line with the total, escaped; every state keeps the sandbox note', async () => {
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems: sampleLineItems });
    const checkout = await context.request({ method: 'GET', url: `/payment-page/${page.id}` });
    assert.equal(checkout.statusCode, 200);
    assert.match(checkout.body, /Pro plan for Example Ltd, 2027/);
    assert.match(checkout.body, /Annual plan &lt;Pro&gt;/);
    assert.ok(!checkout.body.includes('<Pro>'), 'names are escaped');
    assert.match(checkout.body, /Extra seats<span class="quantity">3 × \$15\.00<\/span><\/th><td>\$45\.00<\/td>/);
    assert.match(checkout.body, /Total<\/th><td>\$165\.00<\/td>/);
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
    const paid = await context.request({ method: 'GET', url: `/payment-page/${page.id}` });
    assert.match(paid.body, /Payment complete/);
    assert.match(paid.body, /Extra seats/);
    assert.match(paid.body, /A receipt is on its way/);
    assert.match(paid.body, /<p class="sandbox" role="note">Sandbox: a test payment, no money moves\.<\/p>/, 'the sandbox note stays after paying');
    const expiring = await createPage(context, merchant);
    assert.equal((await context.request({ method: 'POST', url: `/v1/payment_pages/${expiring.id}/expire`, apiKey: merchant.apiKey })).statusCode, 200);
    const expired = await context.request({ method: 'GET', url: `/payment-page/${expiring.id}` });
    assert.match(expired.body, /This payment page has expired/);
    assert.match(expired.body, /<p class="sandbox" role="note">Sandbox: a test payment, no money moves\.<\/p>/, 'and on the expired page');
  });

  test("the dashboard's payment page screen shows the description and a line-items table", async () => {
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems: sampleLineItems });
    const client = await signedInClient(context, merchant);
    const screen = await client.get(`/dashboard/sandbox/payment-pages/${page.id}`);
    assert.equal(screen.statusCode, 200);
    const text = textOf(screen.body).replace(/\s+/g, ' ');
    assert.match(text, /Description Pro plan for Example Ltd, 2027/);
    assert.match(text, /Item Quantity Unit price Amount Annual plan <Pro> 1 120\.00 USD 120\.00 USD Extra seats 3 15\.00 USD 45\.00 USD Welcome gift 1 0\.00 USD 0\.00 USD/);
  });
});
