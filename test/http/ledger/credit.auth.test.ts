import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

describe('POST /admin/v1/merchants/:merchantId/balance/credit: auth', () => {
  let context: TestContext;
  let live: TestMerchant;

  before(async () => ({ context, live } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));


  test('no admin token → 401', async () => {
    const anonymous = await context.app.inject({ method: 'POST', url: `/admin/v1/merchants/${live.id}/balance/credit`, payload: { amount: 1, currency: 'USD' } });
    assert.equal(anonymous.statusCode, 401);
  });
});
