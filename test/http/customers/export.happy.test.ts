import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { assertSucceeded, decryptPii } from '../../helpers/assertions.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage as createPaymentPage, payPage, testCards } from '../../helpers/payment-pages.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage as createPayoutPage } from '../../helpers/payout-pages.ts';

interface Export {
  exportedAt: number;
  customer: Record<string, unknown> & { id: string; firstName?: string };
  payoutPages: Array<{ id: string; customer: { email?: string } }>;
  paymentPages: Array<{ id: string }>;
  payments: Array<{ id: string; cardholderName: string | null; card: { last4: string } | null }>;
  subscriptions: Array<{ id: string }>;
  kycVerifications: Array<{ id: string; status: string }>;
  emails: Array<{ id: string; to: string; subject: string; text: string; template: string }>;
}

/** `GET /v1/customers/:id/export` (the right of access): every record held about the customer, personal data as JWE under the merchant's key. */
describe('GET /v1/customers/:id/export', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let customerId: string;
  const referenceId = 'export-ref-1';
  const email = 'export.me@example.org';

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    const created = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: { referenceId, signupAt: context.clock.now().getTime(), email, firstName: 'Exporta', lastName: 'Lovelace', dateOfBirth: '1980-02-02', phoneNumber: '+14155550177', address: { line1: '3 Access Road', city: 'Rightsville', state: 'CA', postalCode: '94105', country: 'US' } },
    });
    customerId = assertSucceeded<{ id: string }>(created).id;
    await advanceAndDrain(context);
    const payout = await createPayoutPage(context, merchant, { customer: { referenceId, email } });
    assert.equal((await confirmPage(context, merchant, payout.id, { payoutMethod: bankMethod })).statusCode, 200);
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    const page = await createPaymentPage(context, merchant, { customer: { referenceId, email }, subscription: { productId: 'pro', interval: 'MONTH', intervalCount: 1 } });
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit, { cardholderName: 'Exporta Cardholder' })).statusCode, 200);
    await context.drainJobs();
  });
  after(async () => context.close());

  const exported = async () => assertSucceeded<Export>(await context.request({ method: 'GET', url: `/v1/customers/${customerId}/export`, apiKey: merchant.apiKey }));
  const count = async (query: ReturnType<typeof sql>) => (await queryRows<{ count: number }>(context.database.db, query))[0]?.count ?? -1;

  test('every record of the customer, each as its read answers it; personal data decrypts with the merchant’s PII key', async () => {
    const document = await exported();
    // As GET answers it: the same fields; the JWEs differ (a fresh IV each time) but open to the same values.
    const read = assertSucceeded<Record<string, unknown>>(await context.request({ method: 'GET', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey }));
    assert.deepEqual(Object.keys(document.customer).sort(), Object.keys(read).sort());
    for (const field of ['id', 'referenceId', 'email', 'kycStatus', 'livemode', 'createdAt', 'signupAt']) {
      assert.deepEqual(document.customer[field], read[field], field);
    }
    assert.equal((await decryptPii(context, merchant.id, document.customer.firstName ?? '')).plaintext, 'Exporta');
    assert.equal(document.payoutPages.length, await count(sql`select count(*)::int as count from payout_pages where customer_id = ${customerId}`));
    assert.equal(document.paymentPages.length, await count(sql`select count(*)::int as count from payment_pages where customer_id = ${customerId}`));
    assert.equal(document.payments.length, await count(sql`select count(*)::int as count from payments where customer_id = ${customerId}`));
    assert.equal(document.subscriptions.length, 1);
    assert.equal(document.kycVerifications.length, await count(sql`select count(*)::int as count from kyc_verifications where customer_id = ${customerId}`));
    assert.ok(document.kycVerifications.length >= 1 && document.payments.length >= 1);
    const payment = document.payments[0];
    assert.equal(payment?.card?.last4, '4242');
    assert.equal((await decryptPii(context, merchant.id, payment?.cardholderName ?? '')).plaintext, 'Exporta Cardholder');
    const pages = [...document.payoutPages, ...document.paymentPages].map((item) => item.id);
    assert.equal(document.emails.length, await count(sql`select count(*)::int as count from emails where related_id in (${sql.join(pages.map((id) => sql`${id}`), sql`, `)})`));
    assert.ok(document.emails.length >= 2, 'the payout page e-mails are there');
    for (const sent of document.emails) {
      assert.equal((await decryptPii(context, merchant.id, sent.to)).plaintext, email);
      assert.ok((await decryptPii(context, merchant.id, sent.subject)).plaintext.length > 0);
    }
    assert.ok(!JSON.stringify(document).includes('Exporta Cardholder') && !JSON.stringify(document).includes('3 Access Road'), 'no personal data in plaintext beside the e-mail fields the reads answer');
  });

  test('after an erase: the tombstone, the pages and payments without personal data, no e-mails', async () => {
    assert.equal((await context.request({ method: 'POST', url: `/v1/customers/${customerId}/erase`, apiKey: merchant.apiKey })).statusCode, 200);
    const document = await exported();
    assert.deepEqual(Object.keys(document.customer).sort(), ['createdAt', 'erasedAt', 'id', 'livemode', 'merchantId', 'referenceId']);
    assert.ok(document.payments.every((payment) => payment.cardholderName === null));
    assert.ok(document.payoutPages.every((page) => page.customer.email === ''));
    assert.deepEqual(document.emails, []);
  });
});
