import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext } from '../../helpers/context.ts';
import { closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

describe('POST /admin/v1/merchants/:merchantId/balance/credit: errors', () => {
  let context: TestContext;

  before(async () => ({ context } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));


  test('an unknown merchant → 404', async () => {
    const unknown = await context.admin('POST', `/admin/v1/merchants/mer_unknown/balance/credit`, { amount: 1, currency: 'USD' });
    assert.equal(unknown.statusCode, 404);
  });
});
