import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, openPaymentPageSuite, payPage, testCards, type PageBody, type PayFailure } from '../../helpers/payment-pages.ts';

describe('POST /v1/test_helpers/payment_pages/:id/pay (the same code as the hosted checkout): paid, with payinDetails and one event', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

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
    assert.equal(json<PayFailure>(declined).declineReason, 'incorrect_cvc');
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
});
