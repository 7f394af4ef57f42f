import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, payPage, testCards } from '../../helpers/payment-pages.ts';
import { payments } from '../../../src/db/schema/index.ts';
import { fraudReportCalls, openFraudReportSuite } from '../../helpers/fraud-reports.ts';
import type { ErrorBody as Failure } from '../../helpers/assertions.ts';

describe('POST /v1/test_helpers/fraud_reports: refusals', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openFraudReportSuite()));
  after(async () => context.close());

  const { paidPage, report, fraudEvents } = fraudReportCalls(() => context);

  test('test helper errors: validation 400, unknown or foreign payment 404, declined payment 409, live 403', async () => {
    const page = await paidPage(merchant, testCards.visaCredit);
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ paymentId: page.paymentId }, /^fraudReason is required/],
      [{ paymentId: page.paymentId, fraudReason: '' }, /^fraudReason /],
      [{ paymentId: page.paymentId, fraudReason: '   ' }, /^fraudReason must not be blank/],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: '12.345' }, /^fraudAmountUSD /],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: 1.234 }, /^fraudAmountUSD /],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: '0' }, /^fraudAmountUSD /],
      [{ fraudReason: 'x' }, /^paymentId is required/],
      [{ paymentId: page.paymentId, fraudReason: 'x', extra: 1 }, /^extra is not a recognised field/],
    ];
    for (const [body, message] of bad) {
      const response = await report(merchant, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)} ${response.body}`);
      assert.equal(json<Failure>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<Failure>(response).errorMessage, message);
    }
    const unknown = await report(merchant, { paymentId: 'pay_unknown', fraudReason: 'x' });
    assert.equal(unknown.statusCode, 404);
    const foreign = await report(other, { paymentId: page.paymentId, fraudReason: 'x' });
    assert.equal(foreign.statusCode, 404);
    const declinedPage = await createPage(context, merchant);
    await payPage(context, merchant, declinedPage.id, testCards.declined);
    const [declined] = await context.database.db.select().from(payments).where(eq(payments.pageId, declinedPage.id));
    const onDeclined = await report(merchant, { paymentId: declined?.id, fraudReason: 'x' });
    assert.equal(onDeclined.statusCode, 409);
    assert.equal(json<Failure>(onDeclined).errorCode, 'INVALID_STATE');
    const liveQuery = await report(live, { paymentId: page.paymentId, fraudReason: 'x' }, '?livemode=true');
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<Failure>(liveQuery).errorCode, 'FORBIDDEN');
    assert.equal((await fraudEvents(String(page.paymentId))).length, 0);
  });
});
