import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { cardBody, createPage, openPaymentPageSuite, payPage, paymentsOf, testCards, type PayFailure } from '../../helpers/payment-pages.ts';

describe('POST /v1/test_helpers/payment_pages/:id/pay: sandbox only, one merchant', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openPaymentPageSuite()));
  after(async () => context.close());

  test('sandbox only: livemode=true → 403 FORBIDDEN; a live page → 403 FORBIDDEN (404 with livemode=false); another merchant → 404', async () => {
    const page = await createPage(context, live);
    const liveQuery = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${page.id}/pay?livemode=true`, apiKey: live.apiKey, body: cardBody(testCards.visaCredit) });
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<PayFailure>(liveQuery).errorCode, 'FORBIDDEN');
    const livePage = await createPage(context, live, {}, '?livemode=true');
    // Without livemode the page is found in its own (live) mode: refused as live.
    const onLivePage = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${livePage.id}/pay`, apiKey: live.apiKey, body: cardBody(testCards.visaCredit) });
    assert.equal(onLivePage.statusCode, 403);
    assert.equal(json<PayFailure>(onLivePage).errorCode, 'FORBIDDEN');
    // With livemode=false a live id does not match the given mode: 404 (docs/API.md §1), like any other mode mismatch.
    const sandboxQuery = await payPage(context, live, livePage.id, testCards.visaCredit);
    assert.equal(sandboxQuery.statusCode, 404);
    assert.equal(json<PayFailure>(sandboxQuery).errorCode, 'NOT_FOUND');
    assert.equal((await paymentsOf(context, livePage.id)).length, 0);
    const sandboxPage = await createPage(context, merchant);
    const asOther = await payPage(context, other, sandboxPage.id, testCards.visaCredit);
    assert.equal(asOther.statusCode, 404);
    assert.equal((await paymentsOf(context, sandboxPage.id)).length, 0);
  });

  test('live mode without a live card processor: paying is refused with a clear error and nothing is recorded', async () => {
    const livePage = await createPage(context, live, {}, '?livemode=true');
    await assert.rejects(
      context.platform.services.paymentPages.payPage({ pageId: livePage.id }, { cardNumber: testCards.visaCredit, expMonth: 12, expYear: 2040, cvc: '123', cardholderName: 'A B' }),
      (error: Error & { code?: string }) => error.code === 'FORBIDDEN' && /no live card processor is configured/.test(error.message),
    );
    assert.equal((await paymentsOf(context, livePage.id)).length, 0);
    await assert.rejects(
      context.platform.services.cardProcessor.createPayment({ paymentId: 'pay_x', livemode: true, amount: 1, currency: 'USD', saveCard: false }),
      /no live card processor is configured/,
    );
  });
});
