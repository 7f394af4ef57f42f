import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceReader, closeBalanceSuite, openBalanceSuite, type BalanceBody as Balance } from '../../helpers/ledger.ts';

describe('POST /admin/v1/merchants/:merchantId/balance/credit: happy', () => {
  let context: TestContext;
  let live: TestMerchant;

  before(async () => ({ context, live } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  const balances = balanceReader(() => context);


  test('the operator credits live balances (admin API): the live balance grows, the sandbox one is untouched', async () => {
    const credited = await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 500_000, currency: 'USDC' });
    assert.equal(credited.statusCode, 200, credited.body);
    assert.deepEqual(json<{ data: Balance }>(credited).data, { currency: 'USDC', livemode: true, available: 500_000, reserved: 0, inFlight: 0 });
    assert.equal((await balances(live.apiKey, '?livemode=true'))[0]?.available, 500_000);
    assert.equal((await balances(live.apiKey, '?livemode=false'))[0]?.available, 100_000_000, 'sandbox untouched');
    const read = await context.admin('GET', `/admin/v1/merchants/${live.id}/balance`);
    assert.equal(json<{ data: Balance[] }>(read).data.length, 4);
  });
});
