import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, assertError } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/live (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('a merchant cannot enable live mode for itself; only the operator token can', async () => {
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/merchants/${merchant.id}/live`, {}, merchant.apiKey);
    assertError(await context.request({ method: 'POST', url: '/v1/customers', apiKey: merchant.apiKey, body: { referenceId: 'x', signupAt: 1 } }), 403, 'LIVE_MODE_NOT_ENABLED');
    assert.equal((await context.platform.services.merchants.getMerchant(merchant.id)).liveEnabled, false);
  });
});
