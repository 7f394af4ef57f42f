import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeBalanceSuite, openBalanceSuite, type BalanceBody as Balance } from '../../helpers/ledger.ts';

describe('POST /v1/test_helpers/balance/fund', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, live } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  test('POST /v1/test_helpers/balance/fund adds sandbox funds; live (or omitted) → 403 FORBIDDEN; bad input → 400', async () => {
    const funded = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 12_345, currency: 'USD' } });
    assert.equal(funded.statusCode, 200, funded.body);
    assert.deepEqual(json<{ data: Balance }>(funded).data, { currency: 'USD', livemode: false, available: 100_012_345, reserved: 0, inFlight: 0 });
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
