import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, openPaymentPageSuite, payPage, paymentsOf, testCards, type PageBody, type PayFailure } from '../../helpers/payment-pages.ts';

describe('POST /v1/test_helpers/payment_pages/:id/pay: declines, bad cards, a page already paid, a double submit', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

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
      const failure = json<PayFailure>(response);
      assert.equal(failure.status, 'FAILED');
      assert.equal(failure.errorCode, 'CARD_DECLINED');
      assert.equal(failure.declineReason, reason);
      assert.ok(!response.body.includes(number), 'the answer never echoes the card number');
      const read = json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data;
      assert.equal(read.status, 'CREATED');
      assert.equal(read.paymentId, undefined);
      const [declined] = await paymentsOf(context, page.id);
      assert.equal(declined?.status, 'DECLINED');
      assert.equal(declined?.declineReason, reason);
      assert.equal(declined?.last4, number.slice(-4));
      assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 0);
      context.clock.advance(1);
      const retry = await payPage(context, merchant, page.id, testCards.visaCredit);
      assert.equal(retry.statusCode, 200, retry.body);
      const attempts = await paymentsOf(context, page.id);
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
      const failure = json<PayFailure>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
      assert.ok(!response.body.includes('4242424242424241') && !response.body.includes(testCards.visaCredit));
      assert.equal((await paymentsOf(context, page.id)).length, 0);
    });
  }

  test('a PAID page cannot be paid again: 409 INVALID_STATE, one successful payment', async () => {
    const page = await createPage(context, merchant);
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
    const again = await payPage(context, merchant, page.id, testCards.mastercardCredit);
    assert.equal(again.statusCode, 409);
    assert.equal(json<PayFailure>(again).errorCode, 'INVALID_STATE');
    assert.deepEqual(
      (await paymentsOf(context, page.id)).map((payment) => payment.status),
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
        (await paymentsOf(context, page.id)).map((payment) => payment.status),
        ['SUCCEEDED'],
      );
      assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    }
  });
});
