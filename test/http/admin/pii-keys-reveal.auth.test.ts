import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired } from '../../helpers/assertions.ts';

describe('GET /admin/v1/merchants/:merchantId/pii_keys (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('key material is revealed only with the operator token', async () => {
    await assertAdminAuthRequired(context, 'GET', `/admin/v1/merchants/${merchant.id}/pii_keys`, undefined, merchant.apiKey);
    const [key] = await context.platform.services.merchants.revealPiiKeys(merchant.id);
    const unauthenticated = await context.app.inject({ method: 'GET', url: `/admin/v1/merchants/${merchant.id}/pii_keys` });
    assert.equal(unauthenticated.body.includes(String(key?.key)), false);
  });
});
