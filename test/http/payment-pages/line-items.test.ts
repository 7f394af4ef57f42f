import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { queryRows } from '../../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { createPage, pageRequest, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { createRefund, settleSandboxRefunds } from '../../helpers/refunds.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { signedInClient, textOf } from '../dashboard/client.ts';

/**
 * What is being paid for (docs/API.md §9): a payment page's optional `description` and `lineItems`
 * (their sum equals `amount`) are answered by the API, shown on the hosted checkout, the paid page
 * and the dashboard, and repeated in the receipt e-mail the customer gets when the page is paid; a
 * refund that succeeds sends the customer a refund notice.
 */
describe('payment pages: description, line items, receipts and refund notices', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let smtp: SmtpSink;
  const lineItems = [
    { name: 'Annual plan <Pro>', quantity: 1, unitAmount: 12000 },
    { name: 'Extra seats', quantity: 3, unitAmount: 1500 },
    { name: 'Welcome gift', quantity: 1, unitAmount: 0 },
  ];

  before(async () => {
    smtp = await startSmtpSink();
    context = await createTestContext({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } });
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
    await smtp.close();
  });

  const mailsTo = (address: string): ParsedMail[] => smtp.received.filter((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((to) => to?.text === address));
  const pageCount = async () => (await queryRows<{ n: number }>(context.database.db, sql`select count(*)::int as n from payment_pages where merchant_id = ${merchant.id}`))[0]?.n ?? 0;

  test('create, read and list answer the description and line items exactly as given', async () => {
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems });
    assert.equal(page.description, 'Pro plan for Example Ltd, 2027');
    assert.deepEqual(page.lineItems, lineItems);
    const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
    assert.deepEqual([read.description, read.lineItems], [page.description, lineItems]);
    const listed = json<{ data: { paymentPages: PageBody[] } }>(await context.request({ method: 'GET', url: `/v1/payment_pages?livemode=false&clientReferenceId=${page.clientReferenceId}`, apiKey: merchant.apiKey })).data.paymentPages;
    assert.deepEqual(listed.map((listedPage) => [listedPage.description, listedPage.lineItems]), [[page.description, lineItems]]);
    const plain = await createPage(context, merchant);
    assert.ok(!('description' in plain) && !('lineItems' in plain), 'absent when not given');
  });

  test('bad descriptions and line items are 400 WRONG_PARAMETER naming the field, and nothing is written', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ amount: 16501, lineItems }, /^lineItems must add up to amount \(16501\): the lines' quantity × unitAmount add up to 16500/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: 50 }] }, /lineItems/],
      [{ description: 'x'.repeat(501) }, /description/],
      [{ description: '' }, /description/],
      [{ lineItems: [] }, /lineItems/],
      [{ lineItems: Array.from({ length: 101 }, () => ({ name: 'a', quantity: 1, unitAmount: 0 })) }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: '', quantity: 1, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'x'.repeat(201), quantity: 1, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 0, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1.5, unitAmount: 100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: -100 }] }, /lineItems/],
      [{ amount: 100, lineItems: [{ name: 'a', quantity: 1, unitAmount: 100, sku: 'x' }] }, /lineItems/],
    ];
    const before = await pageCount();
    for (const [overrides, field] of cases) {
      const response = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: pageRequest(overrides) });
      assert.equal(response.statusCode, 400, `${JSON.stringify(overrides).slice(0, 120)}: ${response.body}`);
      const failure = json<{ errorCode: string; errorMessage: string }>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, field);
    }
    assert.equal(await pageCount(), before, 'no page was written');
  });

  test('the hosted checkout and the paid page show the description and each line with the total, escaped; every state keeps the sandbox note', async () => {
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems });
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
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems });
    const client = await signedInClient(context, merchant);
    const screen = await client.get(`/dashboard/sandbox/payment-pages/${page.id}`);
    assert.equal(screen.statusCode, 200);
    const text = textOf(screen.body).replace(/\s+/g, ' ');
    assert.match(text, /Description Pro plan for Example Ltd, 2027/);
    assert.match(text, /Item Quantity Unit price Amount Annual plan <Pro> 1 120\.00 USD 120\.00 USD Extra seats 3 15\.00 USD 45\.00 USD Welcome gift 1 0\.00 USD 0\.00 USD/);
  });

  test('a paid page e-mails the customer one receipt; a refund that succeeds e-mails one refund notice; no e-mail address or card number in either', async () => {
    const address = `receipt-${Date.now()}@example.com`;
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems, customer: { referenceId: `receipt-${Date.now()}`, email: address } });
    const paid = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(paid.statusCode, 200, paid.body);
    const paymentId = json<{ data: PageBody }>(paid).data.paymentId ?? '';
    await context.drainJobs();
    const receipts = mailsTo(address);
    assert.equal(receipts.length, 1, 'one receipt');
    const receipt = receipts[0];
    assert.ok(receipt);
    assert.match(receipt.subject ?? '', /^(\[Sandbox\] )?Your receipt from /);
    const text = receipt.text ?? '';
    for (const expected of ['Pro plan for Example Ltd, 2027', 'Annual plan <Pro>: $120.00', 'Extra seats × 3: $45.00', 'Welcome gift: $0.00', 'Amount paid: $165.00', 'Paid with: Visa ending in 4242', `Payment ID: ${paymentId}`, 'Sandbox: this is a test payment']) {
      assert.ok(text.includes(expected), `receipt text has ${expected}:\n${text}`);
    }
    assert.match(text, /Questions about this payment\? Contact .+ at .+@/);
    assert.match(receipt.html || '', /Annual plan &lt;Pro&gt;/);
    for (const body of [text, String(receipt.html)]) {
      assert.ok(!body.includes(address), 'the customer address is not in the body');
      assert.ok(!body.includes('4242424242424242'), 'no card number');
    }

    // Paying again or replaying the settlement sends nothing more.
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 409);
    await context.drainJobs();
    assert.equal(mailsTo(address).length, 1);

    const refund = await createRefund(context, merchant, { paymentPageId: page.id, amount: 4500 });
    await context.drainJobs();
    assert.equal(mailsTo(address).length, 1, 'no notice while the refund is PENDING');
    await settleSandboxRefunds(context);
    const notices = mailsTo(address).slice(1);
    assert.equal(notices.length, 1, 'one refund notice');
    const notice = notices[0];
    assert.ok(notice);
    assert.match(notice.subject ?? '', /Your refund from /);
    for (const expected of ['Refund: $45.00', 'Refunded to: Visa ending in 4242', `Refund ID: ${refund.id}`, `Payment ID: ${paymentId}`, 'of your payment of $165.00 for “Pro plan for Example Ltd, 2027”']) {
      assert.ok((notice.text ?? '').includes(expected), `notice text has ${expected}:\n${notice.text}`);
    }
    const stored = await queryRows<{ template: string }>(context.database.db, sql`select template from emails where related_id = ${page.id} order by created_at, id`);
    assert.deepEqual(stored.map((row) => row.template), ['payment_receipt', 'payment_refunded'], 'both related to the page (erasure and export find them there)');
  });

  test('a refund that fails sends no notice', async () => {
    const address = `failing-${Date.now()}@example.com`;
    const page = await createPage(context, merchant, { amount: 3000, customer: { referenceId: `failing-${Date.now()}`, email: address } });
    assert.equal((await payPage(context, merchant, page.id, '4000000000005126')).statusCode, 200);
    await context.drainJobs();
    assert.equal(mailsTo(address).length, 1, 'the receipt');
    const refund = await createRefund(context, merchant, { paymentPageId: page.id });
    await settleSandboxRefunds(context);
    const [row] = await queryRows<{ status: string }>(context.database.db, sql`select status from refunds where id = ${refund.id}`);
    assert.equal(row?.status, 'FAILED');
    assert.equal(mailsTo(address).length, 1, 'no refund notice for a failed refund');
  });
});
