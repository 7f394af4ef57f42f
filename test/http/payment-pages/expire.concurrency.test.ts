import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, openPaymentPageSuite, pageCalls, payPage, testCards } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { paymentPages, payments } from '../../../src/db/schema/index.ts';

describe('POST /v1/payment_pages/:pageId/expire racing payments', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { expire, read } = pageCalls(() => ({ context, merchant }));

  // At least 20 rounds, and on until both outcomes happened (like the ledger model's coverage
  // check), at most 200: a race that one side always wins proves nothing about the other.
  test('payments racing expires (20+ rounds): exactly one winner each, both outcomes happen, and a consistent final state', async (t) => {
    const outcomes = { paid: 0, expired: 0 };
    const minimumRounds = 20;
    const maximumRounds = 200;
    let rounds = 0;
    for (let round = 0; round < minimumRounds || ((outcomes.paid === 0 || outcomes.expired === 0) && round < maximumRounds); round += 1) {
      rounds += 1;
      const page = await createPage(context, merchant);
      const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const payFirst = round % 2 === 0;
      const [payResponse, expireResponse] = await Promise.all([
        (async () => {
          if (!payFirst) {
            await delay(round % 4);
          }
          return payPage(context, merchant, page.id, testCards.visaCredit);
        })(),
        (async () => {
          if (payFirst) {
            // Spread the expire over the payment's claim → charge → settle steps.
            await delay((round % 5) * 3);
          }
          return expire(page.id);
        })(),
      ]);
      const paidWon = payResponse.statusCode === 200;
      const expiredWon = expireResponse.statusCode === 200;
      assert.ok(paidWon !== expiredWon, `round ${round}: exactly one winner (pay ${payResponse.statusCode} ${payResponse.body} / expire ${expireResponse.statusCode} ${expireResponse.body})`);
      const final = await read(page.id);
      const succeededEvents = await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id);
      const expiredEvents = await eventsOf(context, 'PAYMENT_EXPIRED', page.id);
      const attempts = await context.database.db.select().from(payments).where(eq(payments.pageId, page.id));
      const [row] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
      assert.equal(row?.attemptPaymentId, null, 'no claim is left behind');
      assert.equal(attempts.filter((attempt) => attempt.status === 'PROCESSING').length, 0);
      if (paidWon) {
        outcomes.paid += 1;
        assert.equal(expireResponse.statusCode, 400);
        assert.equal(json<ErrorBody>(expireResponse).errorCode, 'WRONG_PARAMETER');
        assert.equal(final.status, 'PAID');
        assert.equal(succeededEvents.length, 1);
        assert.equal(expiredEvents.length, 0);
        assert.deepEqual(
          attempts.map((attempt) => attempt.status),
          ['SUCCEEDED'],
        );
        assert.equal(final.paymentId, attempts[0]?.id);
      } else {
        outcomes.expired += 1;
        assert.equal(payResponse.statusCode, 409);
        assert.equal(json<ErrorBody>(payResponse).errorCode, 'INVALID_STATE');
        assert.equal(final.status, 'EXPIRED');
        assert.equal(succeededEvents.length, 0);
        assert.equal(expiredEvents.length, 1);
        assert.equal(attempts.length, 0, 'nothing was charged on a page the expire won');
      }
    }
    t.diagnostic(`${rounds} rounds: payment won ${outcomes.paid}, expire won ${outcomes.expired}`);
    assert.equal(outcomes.paid + outcomes.expired, rounds);
    assert.ok(outcomes.paid > 0, `the payment won at least one of ${rounds} rounds`);
    assert.ok(outcomes.expired > 0, `the expire won at least one of ${rounds} rounds`);
  });
});
