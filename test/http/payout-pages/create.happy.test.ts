import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { closePayoutPageSuite, createPage, getPage, openPayoutPageCreateSuite, pageBody, pageEmails, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { customers } from '../../../src/db/schema/index.ts';

const dayMs = 24 * 60 * 60 * 1000;


describe('POST /v1/payout_pages and GET: the answer', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageCreateSuite()));
  after(async () => closePayoutPageSuite(context));

  test('the response: every field of the documented answer, `sub-status` with its hyphen, defaults applied', async () => {
    const body = pageBody({ amount: 100, successReturnUrl: 'https://merchant.example/done?x=1', failureReturnUrl: 'http://merchant.example/failed', metadata: { order: '42', note: '' } });
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body });
    assert.equal(response.statusCode, 200, response.body);
    const envelope = json<{ status: string; data: PayoutPageData }>(response);
    assert.equal(envelope.status, 'SUCCEEDED');
    const page = envelope.data;
    assert.match(page.id, /^payout_page_[0-9a-z]{36}$/);
    const now = context.clock.now().getTime();
    assert.deepEqual(page, {
      id: page.id,
      status: 'CREATED',
      'sub-status': 'AWAITING_CUSTOMER',
      amount: 100,
      fundingCurrency: 'USDC',
      clientReferenceId: body.clientReferenceId,
      releaseMethod: 'AUTOMATIC',
      customer: { id: page.customer.id, referenceId: (body.customer as { referenceId: string }).referenceId, email: 'ada@example.com' },
      merchant: { id: merchant.id, livemode: false },
      url: `http://paysail.test/payout-page/${page.id}`,
      successReturnUrl: 'https://merchant.example/done?x=1',
      failureReturnUrl: 'http://merchant.example/failed',
      metadata: { order: '42', note: '' },
      expiresAt: now + 7 * dayMs,
      createdAt: now,
      updatedAt: now,
    });
    assert.match(page.customer.id, /^cus_/);
    assert.deepEqual(await getPage(context, merchant, page.id), page);
    // The page-created e-mail: link, merchant name escaped in HTML, no PII beyond the first name.
    const [created] = await pageEmails(context, page.id);
    assert.equal(created?.template, 'payout_page_created');
    assert.ok(created?.text.includes(page.url));
    assert.ok(created?.html.includes('Acme &lt;Payouts&gt; &amp; Co'));
    assert.equal(created?.html.includes('<Payouts>'), false);
  });

  test('Idempotency-Key: a retried create replays the first answer and reserves once', async () => {
    const body = pageBody({ amount: 777 });
    const before = await balanceOf(context.database, merchant.id, false, 'USDC');
    const first = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': 'create-777' } });
    const second = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': 'create-777' } });
    assert.equal(first.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal(second.headers['idempotent-replayed'], 'true');
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USDC')).reserved, before.reserved + 777);
  });

  test('a customer created by a payout page has the page e-mail and signupAt = now', async () => {
    const page = await createPage(context, merchant, { customer: { referenceId: 'brand-new-customer', email: 'New.Person@Example.com' } });
    const customer = await context.request({ method: 'GET', url: `/v1/customers/${page.customer.id}`, apiKey: merchant.apiKey });
    const data = json<{ data: { referenceId: string; email: string; signupAt: number; kycStatus: string } }>(customer).data;
    assert.equal(data.referenceId, 'brand-new-customer');
    assert.equal(data.email, 'New.Person@Example.com');
    assert.equal(data.signupAt, context.clock.now().getTime());
    assert.equal(data.kycStatus, 'NOT_STARTED');
    const [row] = await context.database.db.select().from(customers).where(eq(customers.id, page.customer.id));
    assert.ok(row);
  });
});
