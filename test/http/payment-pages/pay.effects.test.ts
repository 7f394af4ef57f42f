import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import type { ParsedMail } from 'mailparser';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { createRefund, settleSandboxRefunds } from '../../helpers/refunds.ts';
import { startSmtpSink, type SmtpSink } from '../../helpers/smtp.ts';
import { createPage, eventsOf, openPaymentPageSuite, payPage, paymentsOf, sampleLineItems, testCards, type PageBody, type PayFailure } from '../../helpers/payment-pages.ts';
import { queryRows } from '../../../src/db/client.ts';
import { cardTokens, paymentPages, payments, platformSettings } from '../../../src/db/schema/index.ts';
import type { PaidPaymentPage } from '../../../src/modules/payment-pages/service.ts';

/**
 * What follows when a page is paid: the onPaid hooks (a stand-in for the subscriptions module), the
 * saved card, the resolve job that finishes an attempt a failure left open, and the e-mails (docs/API.md
 * §9): one receipt repeating what was paid for, and a refund notice when a refund succeeds.
 */
describe('POST /v1/test_helpers/payment_pages/:id/pay: onPaid hooks, saved cards, the resolve job, receipts and refund notices', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let smtp: SmtpSink;
  const paidCalls: PaidPaymentPage[] = [];
  let failHooks = false;

  before(async () => {
    smtp = await startSmtpSink();
    ({ context, merchant, other } = await openPaymentPageSuite({ env: { SMTP_URL: smtp.url, MAIL_FROM: 'Paysail <no-reply@paysail.test>' } }));
    // A stand-in for the subscriptions module: what it writes commits with the payment.
    context.platform.services.paymentPages.onPaid(async (tx, paid, now) => {
      if (failHooks) {
        throw new Error('hook failure (test)');
      }
      paidCalls.push(paid);
      await tx.insert(platformSettings).values({ key: `paid:${paid.paymentId}`, value: paid.pageId, updatedAt: now });
      if (paid.subscription) {
        return { subscriptionId: `sub_test_${paid.pageId.slice(-8)}` };
      }
      return undefined;
    });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
    await smtp.close();
  });

  const mailsTo = (address: string): ParsedMail[] => smtp.received.filter((mail) => (Array.isArray(mail.to) ? mail.to : [mail.to]).some((to) => to?.text === address));

  test('onPaid hooks run in the payment transaction; a subscription page saves the card and stores the returned subscriptionId', async () => {
    const plain = await createPage(context, merchant, { amount: 500 });
    const plainPaid = json<{ data: PageBody }>(await payPage(context, merchant, plain.id, testCards.visaCredit)).data;
    const plainCall = paidCalls.find((call) => call.pageId === plain.id);
    assert.ok(plainCall);
    assert.deepEqual(plainCall, {
      merchantId: merchant.id,
      livemode: false,
      pageId: plain.id,
      paymentId: plainPaid.paymentId,
      customerId: plain.customer.id,
      amount: 500,
      currency: 'USD',
      subscription: null,
      cardTokenId: null,
      paidAt: new Date(plainPaid.paidAt ?? 0),
    });
    assert.equal(plainPaid.subscriptionId, undefined);

    const withSubscription = await createPage(context, merchant, { amount: 900, subscription: { productId: 'prod_1', interval: 'WEEK', intervalCount: 2 } });
    const subscribed = json<{ data: PageBody }>(await payPage(context, merchant, withSubscription.id, testCards.mastercardCredit)).data;
    const call = paidCalls.find((entry) => entry.pageId === withSubscription.id);
    assert.ok(call);
    assert.deepEqual(call.subscription, { productId: 'prod_1', interval: 'WEEK', intervalCount: 2 });
    assert.match(String(call.cardTokenId), /^ctok_[0-9a-z]{36}$/);
    assert.equal(subscribed.subscriptionId, `sub_test_${withSubscription.id.slice(-8)}`);
    const [written] = await context.database.db.select().from(platformSettings).where(eq(platformSettings.key, `paid:${subscribed.paymentId}`));
    assert.equal(written?.value, withSubscription.id);

    const token = await context.platform.services.payments.findCardToken(context.database.db, String(call.cardTokenId));
    assert.ok(token);
    assert.equal(token.customerId, withSubscription.customer.id);
    assert.equal(token.last4, '4444');
    assert.equal(token.scheme, 'MASTERCARD');
    assert.match(token.processorToken, /^sbxtok_/);
    const tokenRecord = await queryRows<{ data: unknown }>(context.database.db, sql`select data from sandbox_provider_records where provider = 'sandbox-card' and reference = ${token.processorToken}`);
    assert.equal(tokenRecord.length, 1);
    assert.ok(!JSON.stringify(tokenRecord[0]?.data).includes(testCards.mastercardCredit), 'the token record holds the description, never the number');

    // Renewals charge the saved card with its test behaviour, once per payment id.
    const renewal = await context.platform.services.payments.chargeSavedCard({ merchantId: merchant.id, livemode: false, cardTokenId: token.id, amount: 900, currency: 'USD', pageId: withSubscription.id });
    assert.equal(renewal.status, 'SUCCEEDED');
    assert.equal(renewal.payinDetails?.last4, '4444');
    const retried = await context.platform.services.payments.chargeSavedCard({ merchantId: merchant.id, livemode: false, cardTokenId: token.id, amount: 900, currency: 'USD', paymentId: renewal.paymentId });
    assert.equal(retried.paymentId, renewal.paymentId);
    const [renewalRow] = await context.database.db.select().from(payments).where(eq(payments.id, renewal.paymentId));
    assert.equal(renewalRow?.kind, 'RENEWAL');
    assert.equal(renewalRow?.cardTokenId, token.id);
    // After the card's expiry the processor declines renewals.
    const expiresAfter = Date.UTC(token.expYear, token.expMonth, 1);
    const saved = context.clock.now().getTime();
    context.clock.set(expiresAfter + 1000);
    const expired = await context.platform.services.payments.chargeSavedCard({ merchantId: merchant.id, livemode: false, cardTokenId: token.id, amount: 900, currency: 'USD' });
    context.clock.set(saved);
    assert.equal(expired.status, 'DECLINED');
    assert.equal(expired.declineReason, 'expired_card');
    await assert.rejects(context.platform.services.payments.chargeSavedCard({ merchantId: other.id, livemode: false, cardTokenId: token.id, amount: 1, currency: 'USD' }), /No card token found/);
  });

  test('a page without a subscription saves no card', async () => {
    const page = await createPage(context, merchant);
    await payPage(context, merchant, page.id, testCards.visaCredit);
    const rows = await context.database.db.select().from(cardTokens).where(eq(cardTokens.customerId, page.customer.id));
    assert.equal(rows.length, 0);
  });

  test('a failing hook rolls the settlement back; the resolve job settles it from the processor record later', async () => {
    const page = await createPage(context, merchant);
    failHooks = true;
    const failed = await payPage(context, merchant, page.id, testCards.visaCredit);
    failHooks = false;
    assert.equal(failed.statusCode, 500);
    const [attempt] = await paymentsOf(context, page.id);
    assert.equal(attempt?.status, 'PROCESSING');
    const [held] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
    assert.equal(held?.attemptPaymentId, attempt?.id);
    // While held, an expire waits and then answers 409 rather than racing the charge.
    const expire = await context.request({ method: 'POST', url: `/v1/payment_pages/${page.id}/expire`, apiKey: merchant.apiKey });
    assert.equal(expire.statusCode, 409);
    assert.equal(json<PayFailure>(expire).errorCode, 'INVALID_STATE');
    context.clock.advance(2 * 60_000);
    await context.drainJobs();
    const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
    assert.equal(read.status, 'PAID');
    assert.equal(read.paymentId, attempt?.id);
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
  });

  test('an attempt that never reached the processor is released by the resolve job (declined processing_error)', async () => {
    const page = await createPage(context, merchant);
    const now = context.clock.now();
    const paymentId = `pay_${'0'.repeat(10)}${'a'.repeat(26)}`;
    await context.database.transaction(async (tx) => {
      await tx.update(paymentPages).set({ attemptPaymentId: paymentId }).where(eq(paymentPages.id, page.id));
      await tx.insert(payments).values({
        id: paymentId,
        merchantId: merchant.id,
        livemode: false,
        kind: 'CHECKOUT',
        pageId: page.id,
        customerId: page.customer.id,
        amount: page.amount,
        currency: page.currency,
        status: 'PROCESSING',
        processor: 'sandbox-card',
        bin: '424242',
        last4: '4242',
        expMonth: 12,
        expYear: 2040,
        createdAt: now,
        updatedAt: now,
      });
    });
    await context.database.db.execute(sql`insert into jobs (id, queue, payload, status, run_at, max_attempts, created_at, updated_at) values ('job_test_resolve', 'payment-pages.resolve-attempt', ${JSON.stringify({ paymentId })}::jsonb, 'pending', ${new Date(now.getTime() + 120_000)}, 5, ${now}, ${now})`);
    const busy = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(busy.statusCode, 409);
    context.clock.advance(120_000);
    await context.drainJobs();
    const [settled] = await context.database.db.select().from(payments).where(eq(payments.id, paymentId));
    assert.equal(settled?.status, 'DECLINED');
    assert.equal(settled?.declineReason, 'processing_error');
    const paid = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(paid.statusCode, 200, paid.body);
  });

  test('a paid page e-mails the customer one receipt; a refund that succeeds e-mails one refund notice; no e-mail address or card number in either', async () => {
    const address = `receipt-${Date.now()}@example.com`;
    const page = await createPage(context, merchant, { amount: 16500, description: 'Pro plan for Example Ltd, 2027', lineItems: sampleLineItems, customer: { referenceId: `receipt-${Date.now()}`, email: address } });
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
