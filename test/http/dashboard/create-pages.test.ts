import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { bankAccount, createCustomer, identity, payPaymentPage, settleJobs } from './fixtures.ts';

interface ApiList {
  data: { payoutPages?: Array<Record<string, unknown>>; paymentPages?: Array<Record<string, unknown>> };
}

describe('creating payout and payment pages from the dashboard', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Form Sails', live: true });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  async function api(url: string): Promise<Record<string, unknown>> {
    const response = await context.request({ method: 'GET', url, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Record<string, unknown> }>(response).data;
  }

  async function count(kind: 'payout_pages' | 'payment_pages', livemode: boolean): Promise<number> {
    const response = await context.request({ method: 'GET', url: `/v1/${kind}?livemode=${livemode}&limit=100`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    const data = json<ApiList>(response).data;
    return (data.payoutPages ?? data.paymentPages ?? []).length;
  }

  function referenceOf(html: string): string {
    const reference = /id="clientReferenceId" name="clientReferenceId" type="text" value="([^"]+)"/.exec(html)?.[1];
    assert.ok(reference, 'the form carries a fresh reference');
    return reference;
  }

  test('payoutPages.create (dashboard).happy: the created page is the API’s, it can be released and paid out, and a second post of the same form makes nothing', async () => {
    const customer = await createCustomer(context, merchant, { ...identity, email: 'form-payee@example.com' });
    await settleJobs(context);
    const list = await client.get('/dashboard/sandbox/payout-pages');
    assert.match(list.body, /<a class="button" href="\/dashboard\/sandbox\/payout-pages\/new">New payout page<\/a>/);
    const form = await client.get('/dashboard/sandbox/payout-pages/new');
    assert.equal(form.statusCode, 200);
    const reference = referenceOf(form.body);
    assert.notEqual(referenceOf((await client.get('/dashboard/sandbox/payout-pages/new')).body), reference, 'each form has its own reference');

    const fields = { customerReferenceId: customer.referenceId, customerEmail: 'form-payee@example.com', amount: '1,234.50', fundingCurrency: 'USD', releaseMethod: 'MANUAL', clientReferenceId: reference };
    const created = await client.post('/dashboard/sandbox/payout-pages', fields);
    assert.equal(created.statusCode, 303, created.body);
    const location = String(created.headers.location);
    const id = /\/dashboard\/sandbox\/payout-pages\/([^?]+)\?notice=payout-page-created$/.exec(location)?.[1];
    assert.ok(id, location);
    const page = await api(`/v1/payout_pages/${id}`);
    assert.equal(page.amount, 123_450);
    assert.equal(page.fundingCurrency, 'USD');
    assert.equal(page.releaseMethod, 'MANUAL');
    assert.equal(page.clientReferenceId, reference);
    assert.equal((page.merchant as { livemode: boolean }).livemode, false);
    const detail = textOf((await client.get(location)).body);
    assert.match(detail, /The payout page was created and its amount reserved\. Send the customer its link \(below\)\./);
    assert.ok(detail.includes(String(page.url)), 'the detail shows the link to send');

    const before = await count('payout_pages', false);
    const again = await client.post('/dashboard/sandbox/payout-pages', fields);
    assert.equal(again.statusCode, 409);
    assert.match(textOf(again.body), /A payout page with clientReferenceId '.+' already exists in this mode/);
    assert.match(again.body, /id="clientReferenceId"[^>]*aria-invalid="true"/);
    assert.equal(await count('payout_pages', false), before, 'the second post created nothing');

    const confirmed = await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${id}/confirm?livemode=false`, apiKey: merchant.apiKey, body: { payoutMethod: bankAccount } });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await client.get(`/dashboard/sandbox/payout-pages/${id}`);
    assert.equal((await client.post(`/dashboard/sandbox/payout-pages/${id}/release`, { confirmed: '1' })).headers.location, `/dashboard/sandbox/payout-pages/${id}?notice=released`);
    await settleJobs(context);
    assert.equal((await api(`/v1/payout_pages/${id}`)).status, 'PROCESSED');
  });

  test('paymentPages.create (dashboard).happy: sandbox page paid with a test card; live page created in live', async () => {
    const form = await client.get('/dashboard/sandbox/payment-pages/new');
    assert.doesNotMatch(form.body, /This is live mode/);
    const created = await client.post('/dashboard/sandbox/payment-pages', {
      customerReferenceId: 'form-buyer-1',
      customerEmail: 'form-buyer@example.com',
      amount: '19.9',
      currency: 'EUR',
      description: 'Two sails',
      clientReferenceId: referenceOf(form.body),
    });
    assert.equal(created.statusCode, 303, created.body);
    const id = /\/payment-pages\/([^?]+)\?notice=payment-page-created$/.exec(String(created.headers.location))?.[1];
    assert.ok(id);
    const page = await api(`/v1/payment_pages/${id}`);
    assert.equal(page.amount, 1_990);
    assert.equal(page.currency, 'EUR');
    assert.equal(page.description, 'Two sails');
    const paid = await payPaymentPage(context, merchant, id);
    assert.equal(paid.status, 'PAID');

    const liveForm = await client.get('/dashboard/live/payment-pages/new');
    assert.match(textOf(liveForm.body), /This is live mode: the page moves real money once the customer completes it\./);
    const live = await client.post('/dashboard/live/payment-pages', { customerReferenceId: 'form-buyer-2', customerEmail: 'live-buyer@example.com', amount: '5', currency: 'USD', clientReferenceId: referenceOf(liveForm.body) });
    assert.equal(live.statusCode, 303, live.body);
    const liveId = /\/dashboard\/live\/payment-pages\/([^?]+)\?/.exec(String(live.headers.location))?.[1];
    assert.ok(liveId);
    const livePage = await api(`/v1/payment_pages/${liveId}?livemode=true`);
    assert.equal(livePage.livemode ?? (livePage.merchant as { livemode?: boolean } | undefined)?.livemode, true);
  });

  test('payoutPages.create (dashboard).errors: each bad field is the API’s 400 WRONG_PARAMETER beside that field, and nothing is written', async () => {
    const form = await client.get('/dashboard/sandbox/payout-pages/new');
    const good = { customerReferenceId: 'form-payee-2', customerEmail: 'payee2@example.com', amount: '10.00', fundingCurrency: 'USD', releaseMethod: 'AUTOMATIC', clientReferenceId: referenceOf(form.body) };
    const before = await count('payout_pages', false);
    const cases: Array<[Record<string, string>, string, RegExp]> = [
      [{ amount: 'ten' }, 'amount', /amount must be an amount such as 25\.00 \(at most two decimals\)/],
      [{ amount: '1.234' }, 'amount', /amount must be an amount such as 25\.00/],
      [{ amount: '0' }, 'amount', /amount must be an integer between 1 and 100000000/],
      [{ amount: '1000001' }, 'amount', /amount must be an integer between 1 and 100000000/],
      [{ fundingCurrency: 'EUR' }, 'fundingCurrency', /fundingCurrency must be one of USDC, USD/],
      [{ releaseMethod: 'LATER' }, 'releaseMethod', /releaseMethod must be one of AUTOMATIC, MANUAL/],
      [{ customerReferenceId: '' }, 'customerReferenceId', /customer\.referenceId/],
      [{ clientReferenceId: '' }, 'clientReferenceId', /clientReferenceId/],
    ];
    for (const [change, name, message] of cases) {
      const response = await client.post('/dashboard/sandbox/payout-pages', { ...good, ...change });
      assert.equal(response.statusCode, 400, `${JSON.stringify(change)}: ${response.statusCode}`);
      assert.match(textOf(response.body), new RegExp(message.source, 'i'), JSON.stringify(change)); // shown as a sentence: "Amount must be …"
      assert.match(response.body, new RegExp(`id="${name}"[^>]*aria-invalid="true"`), `${name} is marked`);
      assert.match(response.body, /value="payee2@example\.com"/, 'the other values are kept');
    }
    assert.equal(await count('payout_pages', false), before, 'nothing was created');
    const payment = await client.post('/dashboard/sandbox/payment-pages', { customerReferenceId: 'b', customerEmail: 'b@example.com', amount: '5', currency: 'JPY', clientReferenceId: 'payment-x' });
    assert.equal(payment.statusCode, 400);
    assert.match(textOf(payment.body), /Currency must be one of USD, EUR, GBP/);
  });
});
