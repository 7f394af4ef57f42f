import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { assertSucceeded } from '../../helpers/assertions.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage as createPayoutPage } from '../../helpers/payout-pages.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';

describe('dashboard: erase a customer (confirmation; refused while a payout page is open)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  async function customer(referenceId: string): Promise<string> {
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: context.clock.now().getTime(), email: `${referenceId}@example.com` } });
    return assertSucceeded<{ id: string }>(created).id;
  }

  test('the detail offers the form; unconfirmed nothing is erased (the confirmation page); confirmed the customer is erased through the same service as the API', async () => {
    const id = await customer('dash-erase-1');
    const detail = await client.get(`/dashboard/sandbox/customers/${id}`);
    assert.match(detail.body, /<form method="post" action="\/dashboard\/sandbox\/customers\/[^"]+\/erase"/);
    assert.match(textOf(detail.body), /dash-erase-1@example\.com/);

    assert.match(detail.body, /<dialog id="confirm[^"]*erase" class="confirm"/, 'Erase opens the confirmation dialog');
    assert.doesNotMatch(detail.body, /type="checkbox" name="confirm"/, 'no checkbox any more');

    const unconfirmed = await client.post(`/dashboard/sandbox/customers/${id}/erase`, {});
    assert.equal(unconfirmed.statusCode, 200, 'without confirmed=1: the confirmation page');
    assert.match(textOf(unconfirmed.body), /Erase this customer\? The personal data of customer dash-erase-1 .*Erasure cannot be undone\./);
    assert.equal(assertSucceeded<{ email?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey })).email, 'dash-erase-1@example.com');

    await client.get(`/dashboard/sandbox/customers/${id}`);
    const erased = await client.post(`/dashboard/sandbox/customers/${id}/erase`, { confirmed: '1' });
    assert.equal(erased.headers.location, `/dashboard/sandbox/customers/${id}?notice=customer-erased`);
    const shown = textOf((await client.get(String(erased.headers.location))).body);
    assert.match(shown, /personal data was erased/);
    assert.match(shown, /E-mail erased Erased/);
    assert.doesNotMatch(shown, /dash-erase-1@example\.com/);
    assert.doesNotMatch((await client.get(`/dashboard/sandbox/customers/${id}`)).body, /\/erase"/, 'no erase form once erased');
    const read = assertSucceeded<{ erasedAt?: number }>(await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey }));
    assert.equal(typeof read.erasedAt, 'number');
  });

  test('the export downloads as a JSON attachment: the same document as the API', async () => {
    const id = await customer('dash-export-1');
    assert.match((await client.get(`/dashboard/sandbox/customers/${id}`)).body, new RegExp(`href="/dashboard/sandbox/customers/${id}/export" download`));
    const download = await client.get(`/dashboard/sandbox/customers/${id}/export`);
    assert.equal(download.statusCode, 200);
    assert.equal(download.headers['content-disposition'], `attachment; filename="customer-${id}.json"`);
    assert.match(String(download.headers['content-type']), /^application\/json/);
    const document = JSON.parse(download.body) as { customer: { id: string; email: string }; payoutPages: unknown[] };
    assert.equal(document.customer.id, id);
    assert.equal(document.customer.email, 'dash-export-1@example.com');
    assert.deepEqual(document.payoutPages, []);
    assert.equal((await client.get(`/dashboard/sandbox/customers/cus_${'0'.repeat(36)}/export`)).statusCode, 404);
  });

  test('an open payout page: an error notice naming why, nothing erased', async () => {
    const page = await createPayoutPage(context, merchant, { customer: { referenceId: 'dash-erase-2', email: 'dash-erase-2@example.com' } });
    await client.get(`/dashboard/sandbox/customers/${page.customer.id}`);
    const refused = await client.post(`/dashboard/sandbox/customers/${page.customer.id}/erase`, { confirmed: '1' });
    assert.equal(refused.headers.location, `/dashboard/sandbox/customers/${page.customer.id}?error=erase-open-payout`);
    assert.match(textOf((await client.get(String(refused.headers.location))).body), /payout page that is not final yet/);
    assert.equal(assertSucceeded<{ email?: string }>(await context.request({ method: 'GET', url: `/v1/customers/${page.customer.id}`, apiKey: merchant.apiKey })).email, 'dash-erase-2@example.com');
  });
});
