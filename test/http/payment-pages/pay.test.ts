import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { cardBody, createPage, eventsOf, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { queryRows } from '../../../src/db/client.ts';
import { cardTokens, paymentPages, payments, platformSettings } from '../../../src/db/schema/index.ts';
import type { PaidPaymentPage } from '../../../src/modules/payment-pages/service.ts';

type Failure = { status: string; errorCode: string; errorMessage: string; declineReason?: string };

describe('paying a payment page (POST /v1/test_helpers/payment_pages/:id/pay, the same code as the hosted checkout)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;
  const paidCalls: PaidPaymentPage[] = [];
  let failHooks = false;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    live = await context.createMerchant({ live: true });
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
  after(async () => context.close());

  async function paymentsOf(pageId: string) {
    return context.database.db.select().from(payments).where(eq(payments.pageId, pageId)).orderBy(payments.createdAt, payments.id);
  }

  const successCards: Array<[string, string, string, string, string]> = [
    [testCards.visaCredit, 'VISA', 'CREDIT', '424242', 'Paysail Test Bank'],
    [testCards.mastercardCredit, 'MASTERCARD', 'CREDIT', '555555', 'Paysail Test Bank'],
    [testCards.visaDebit, 'VISA', 'DEBIT', '400005', 'Harbor Savings Bank'],
    ['4111111111111111', 'VISA', 'CREDIT', '411111', 'First Sandbox Bank'],
    ['5200828282828210', 'MASTERCARD', 'DEBIT', '520082', 'Harbor Savings Bank'],
    ['2223003122003222', 'MASTERCARD', 'CREDIT', '222300', 'Sandbox Mastercard Issuer'],
    ['6011111111111117', 'DISCOVER', 'CREDIT', '601111', 'Discover Sandbox Bank'],
    ['3566002020360505', 'JCB', 'CREDIT', '356600', 'JCB Sandbox Issuer'],
    ['36227206271667', 'DINERS', 'CREDIT', '362272', 'Diners Club Sandbox'],
    ['6200000000000005', 'UNIONPAY', 'DEBIT', '620000', 'UnionPay Sandbox Issuer'],
    ['9999999999999995', 'UNKNOWN', 'CREDIT', '999999', 'Unknown issuer'],
  ];
  for (const [number, scheme, cardType, bin, issuer] of successCards) {
    test(`${number}: PAID with payinDetails ${scheme} ${cardType} from the BIN table`, async () => {
      const page = await createPage(context, merchant, { amount: 4200, currency: 'GBP' });
      const response = await payPage(context, merchant, page.id, number);
      assert.equal(response.statusCode, 200, response.body);
      const paid = json<{ data: PageBody }>(response).data;
      assert.equal(paid.status, 'PAID');
      assert.match(String(paid.paymentId), /^pay_[0-9a-z]{36}$/);
      assert.equal(paid.paidAt, context.clock.now().getTime());
      assert.deepEqual(paid.payinDetails, { amount: 4200, currency: 'GBP', type: 'CARD', scheme, last4: number.slice(-4), cardType, bin, issuer });
      const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
      assert.deepEqual(read, paid);
    });
  }

  test('American Express: a 4-digit CVC succeeds, a 3-digit one is declined incorrect_cvc', async () => {
    const page = await createPage(context, merchant);
    const declined = await payPage(context, merchant, page.id, '378282246310005', { cvc: '123' });
    assert.equal(declined.statusCode, 402);
    assert.equal(json<Failure>(declined).declineReason, 'incorrect_cvc');
    const paid = await payPage(context, merchant, page.id, '378282246310005', { cvc: '1234' });
    assert.equal(paid.statusCode, 200, paid.body);
    assert.equal(json<{ data: PageBody }>(paid).data.payinDetails?.scheme, 'AMEX');
  });

  test('PAYMENT_SUCCEEDED: one event with exactly the documented data', async () => {
    const page = await createPage(context, merchant, { amount: 1234, currency: 'EUR', customer: { referenceId: 'evt-customer', email: 'evt@example.com' } });
    const paid = json<{ data: PageBody }>(await payPage(context, merchant, page.id, testCards.visaCredit)).data;
    const events = await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, {
      pageId: page.id,
      paymentId: paid.paymentId,
      clientReferenceId: page.clientReferenceId,
      amount: 1234,
      currency: 'EUR',
      customer: { id: page.customer.id, referenceId: 'evt-customer' },
      payinDetails: paid.payinDetails,
    });
    assert.equal(JSON.stringify(events[0]?.data).includes('evt@example.com'), false, 'the event carries no e-mail address');
  });

  const declines: Array<[string, string, Record<string, unknown>]> = [
    [testCards.declined, 'card_declined', {}],
    [testCards.insufficientFunds, 'insufficient_funds', {}],
    ['4000000000000069', 'expired_card', {}],
    ['4000000000000127', 'incorrect_cvc', {}],
    [testCards.visaCredit, 'incorrect_cvc', { cvc: '1234' }],
  ];
  for (const [number, reason, overrides] of declines) {
    test(`${number} ${JSON.stringify(overrides)}: 402 CARD_DECLINED ${reason}; the page stays CREATED and can be paid next`, async () => {
      const page = await createPage(context, merchant);
      const response = await payPage(context, merchant, page.id, number, overrides);
      assert.equal(response.statusCode, 402, response.body);
      const failure = json<Failure>(response);
      assert.equal(failure.status, 'FAILED');
      assert.equal(failure.errorCode, 'CARD_DECLINED');
      assert.equal(failure.declineReason, reason);
      assert.ok(!response.body.includes(number), 'the answer never echoes the card number');
      const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
      assert.equal(read.status, 'CREATED');
      assert.equal(read.paymentId, undefined);
      const [declined] = await paymentsOf(page.id);
      assert.equal(declined?.status, 'DECLINED');
      assert.equal(declined?.declineReason, reason);
      assert.equal(declined?.last4, number.slice(-4));
      assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 0);
      context.clock.advance(1);
      const retry = await payPage(context, merchant, page.id, testCards.visaCredit);
      assert.equal(retry.statusCode, 200, retry.body);
      const attempts = await paymentsOf(page.id);
      assert.deepEqual(
        attempts.map((payment) => payment.status),
        ['DECLINED', 'SUCCEEDED'],
      );
    });
  }

  const badCards: Array<[string, Record<string, unknown>, RegExp]> = [
    ['a number failing the Luhn check', { cardNumber: '4242424242424241' }, /^cardNumber must be a valid card number/],
    ['letters in the number', { cardNumber: '4242abcd42424242' }, /^cardNumber must be a valid card number/],
    ['a short number', { cardNumber: '42424' }, /^cardNumber must be a valid card number/],
    ['an expired card', { expMonth: 1, expYear: 2020 }, /^expYear and expMonth must not be in the past/],
    ['month 13', { expMonth: 13 }, /^expMonth must be at most 12/],
    ['a two-digit year', { expYear: 29 }, /^expYear must be at least 2000/],
    ['a CVC with letters', { cvc: '12a' }, /^cvc must be 3 or 4 digits/],
    ['a 5-digit CVC', { cvc: '12345' }, /^cvc must be 3 or 4 digits/],
    ['a blank cardholder name', { cardholderName: '   ' }, /^cardholderName must be the name printed on the card/],
    ['an unknown field', { saveCard: true }, /^saveCard is not a recognised field/],
    ['expMonth as a string', { expMonth: '12' }, /^expMonth must be an integer/],
  ];
  for (const [name, overrides, message] of badCards) {
    test(`400 WRONG_PARAMETER for ${name}; nothing is charged or recorded`, async () => {
      const page = await createPage(context, merchant);
      const response = await payPage(context, merchant, page.id, String(overrides.cardNumber ?? testCards.visaCredit), overrides);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<Failure>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
      assert.ok(!response.body.includes('4242424242424241') && !response.body.includes(testCards.visaCredit));
      assert.equal((await paymentsOf(page.id)).length, 0);
    });
  }

  test('a PAID page cannot be paid again: 409 INVALID_STATE, one successful payment', async () => {
    const page = await createPage(context, merchant);
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
    const again = await payPage(context, merchant, page.id, testCards.mastercardCredit);
    assert.equal(again.statusCode, 409);
    assert.equal(json<Failure>(again).errorCode, 'INVALID_STATE');
    assert.deepEqual(
      (await paymentsOf(page.id)).map((payment) => payment.status),
      ['SUCCEEDED'],
    );
  });

  test('a double submit: two payments at once, exactly one charge and one PAID', async () => {
    for (let round = 0; round < 5; round += 1) {
      const page = await createPage(context, merchant);
      const answers = await Promise.all([payPage(context, merchant, page.id, testCards.visaCredit), payPage(context, merchant, page.id, testCards.mastercardCredit)]);
      const codes = answers.map((answer) => answer.statusCode).sort();
      assert.deepEqual(codes, [200, 409], answers.map((answer) => answer.body).join('\n'));
      assert.deepEqual(
        (await paymentsOf(page.id)).map((payment) => payment.status),
        ['SUCCEEDED'],
      );
      assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    }
  });

  test('sandbox only: livemode=true → 403 FORBIDDEN; a live page → 403 FORBIDDEN (404 with livemode=false); another merchant → 404', async () => {
    const page = await createPage(context, live);
    const liveQuery = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${page.id}/pay?livemode=true`, apiKey: live.apiKey, body: cardBody(testCards.visaCredit) });
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<Failure>(liveQuery).errorCode, 'FORBIDDEN');
    const livePage = await createPage(context, live, {}, '?livemode=true');
    // Without livemode the page is found in its own (live) mode: refused as live.
    const onLivePage = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${livePage.id}/pay`, apiKey: live.apiKey, body: cardBody(testCards.visaCredit) });
    assert.equal(onLivePage.statusCode, 403);
    assert.equal(json<Failure>(onLivePage).errorCode, 'FORBIDDEN');
    // With livemode=false a live id does not match the given mode: 404 (docs/API.md §1), like any other mode mismatch.
    const sandboxQuery = await payPage(context, live, livePage.id, testCards.visaCredit);
    assert.equal(sandboxQuery.statusCode, 404);
    assert.equal(json<Failure>(sandboxQuery).errorCode, 'NOT_FOUND');
    assert.equal((await paymentsOf(livePage.id)).length, 0);
    const sandboxPage = await createPage(context, merchant);
    const asOther = await payPage(context, other, sandboxPage.id, testCards.visaCredit);
    assert.equal(asOther.statusCode, 404);
    assert.equal((await paymentsOf(sandboxPage.id)).length, 0);
  });

  test('live mode without a live card processor: paying is refused with a clear error and nothing is recorded', async () => {
    const livePage = await createPage(context, live, {}, '?livemode=true');
    await assert.rejects(
      context.platform.services.paymentPages.payPage({ pageId: livePage.id }, { cardNumber: testCards.visaCredit, expMonth: 12, expYear: 2040, cvc: '123', cardholderName: 'A B' }),
      (error: Error & { code?: string }) => error.code === 'FORBIDDEN' && /no live card processor is configured/.test(error.message),
    );
    assert.equal((await paymentsOf(livePage.id)).length, 0);
    await assert.rejects(
      context.platform.services.cardProcessor.createPayment({ paymentId: 'pay_x', livemode: true, amount: 1, currency: 'USD', saveCard: false }),
      /no live card processor is configured/,
    );
  });

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
    const [attempt] = await paymentsOf(page.id);
    assert.equal(attempt?.status, 'PROCESSING');
    const [held] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
    assert.equal(held?.attemptPaymentId, attempt?.id);
    // While held, an expire waits and then answers 409 rather than racing the charge.
    const expire = await context.request({ method: 'POST', url: `/v1/payment_pages/${page.id}/expire`, apiKey: merchant.apiKey });
    assert.equal(expire.statusCode, 409);
    assert.equal(json<Failure>(expire).errorCode, 'INVALID_STATE');
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
});
