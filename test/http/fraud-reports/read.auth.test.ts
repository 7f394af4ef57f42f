import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testCards } from '../../helpers/payment-pages.ts';
import { fraudReportCalls, openFraudReportSuite, type FraudReportList as ListBody } from '../../helpers/fraud-reports.ts';
import type { ErrorBody as Failure } from '../../helpers/assertions.ts';

describe('GET /v1/fraud_reports/:id and the list: scoping and modes', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openFraudReportSuite()));
  after(async () => context.close());

  const { paidPage, report, list } = fraudReportCalls(() => context);

  test('reads are scoped: another merchant → 404; livemode=true without live → 403; a sandbox report with livemode=true → 404', async () => {
    const page = await paidPage(merchant, testCards.visaCredit);
    await report(merchant, { paymentId: page.paymentId, fraudReason: 'x' });
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}`, apiKey: other.apiKey })).statusCode, 404);
    const noLive = await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(noLive.statusCode, 403);
    assert.equal(json<Failure>(noLive).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const livePage = await paidPage(live, testCards.visaCredit);
    await report(live, { paymentId: livePage.paymentId, fraudReason: 'x' });
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${livePage.paymentId}?livemode=true`, apiKey: live.apiKey })).statusCode, 404);
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${livePage.paymentId}?livemode=false`, apiKey: live.apiKey })).statusCode, 200);
    const liveList = json<{ data: ListBody }>(await list(live, '?livemode=true')).data;
    assert.equal(liveList.count, 0);
    const otherList = json<{ data: ListBody }>(await list(other, '')).data;
    assert.equal(otherList.count, 0);
    assert.equal((await context.request({ method: 'GET', url: '/v1/fraud_reports' })).statusCode, 401);
  });
});
