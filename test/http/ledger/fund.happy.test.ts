import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeBalanceSuite, openBalanceSuite, type BalanceBody as Balance } from '../../helpers/ledger.ts';

describe('POST /v1/test_helpers/balance/fund: happy', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  test('adds sandbox funds', async () => {
    const funded = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 12_345, currency: 'USD' } });
    assert.equal(funded.statusCode, 200, funded.body);
    assert.deepEqual(json<{ data: Balance }>(funded).data, { currency: 'USD', livemode: false, available: 100_012_345, reserved: 0, inFlight: 0 });
  });
});
