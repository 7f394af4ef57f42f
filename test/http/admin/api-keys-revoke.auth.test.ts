import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, createCustomer } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/api_keys/:keyId/revoke (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('revoking needs the operator token; the key survives every other attempt', async () => {
    const [key] = await context.platform.services.merchants.listApiKeys(merchant.id);
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/merchants/${merchant.id}/api_keys/${String(key?.id)}/revoke`, {}, merchant.apiKey);
    assert.equal((await context.platform.services.merchants.listApiKeys(merchant.id))[0]?.revokedAt, null);
    await createCustomer(context, merchant.apiKey);
  });
});
