import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceReader, closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

describe('GET /v1/balance: modes and authentication', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, live } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  const balances = balanceReader(() => context);

  test('without livemode: every mode the merchant can use; live starts empty; live for a sandbox-only merchant is 403', async () => {
    assert.deepEqual(
      (await balances(merchant.apiKey, '')).map((balance) => `${balance.livemode}:${balance.currency}`),
      ['false:USDC', 'false:USD'],
    );
    assert.deepEqual(await balances(live.apiKey, '?livemode=true'), [
      { currency: 'USDC', livemode: true, available: 0, reserved: 0, inFlight: 0 },
      { currency: 'USD', livemode: true, available: 0, reserved: 0, inFlight: 0 },
    ]);
    assert.equal((await balances(live.apiKey, '')).length, 4);
    const forbidden = await context.request({ method: 'GET', url: '/v1/balance?livemode=true', apiKey: merchant.apiKey });
    assert.equal(forbidden.statusCode, 403);
    assert.equal(json(forbidden).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const anonymous = await context.request({ method: 'GET', url: '/v1/balance?livemode=false' });
    assert.equal(anonymous.statusCode, 401);
  });
});
