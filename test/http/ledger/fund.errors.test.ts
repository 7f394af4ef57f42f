import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

describe('POST /v1/test_helpers/balance/fund: errors', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, live } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  test('live (or mode omitted) → 403 FORBIDDEN; bad input → 400 WRONG_PARAMETER', async () => {
    for (const query of ['', '?livemode=true']) {
      const refused = await context.request({ method: 'POST', url: `/v1/test_helpers/balance/fund${query}`, apiKey: live.apiKey, body: { amount: 1, currency: 'USD' } });
      assert.equal(refused.statusCode, 403, query);
      assert.equal(json(refused).errorCode, 'FORBIDDEN');
    }
    for (const body of [{ amount: 0, currency: 'USD' }, { amount: 1.5, currency: 'USD' }, { amount: '5', currency: 'USD' }, { amount: 5, currency: 'EUR' }, { amount: 5 }, { amount: 5, currency: 'USD', extra: 1 }]) {
      const bad = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body });
      assert.equal(bad.statusCode, 400, JSON.stringify(body));
      assert.equal(json(bad).errorCode, 'WRONG_PARAMETER');
    }
    const currency = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 5, currency: 'EUR' } });
    assert.match(String(json(currency).errorMessage), /^currency must be one of USDC, USD/);
  });
});
