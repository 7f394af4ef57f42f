import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired } from '../../helpers/assertions.ts';

describe('GET /admin/v1/merchants/:merchantId/api_keys (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('listing keys needs the operator token', async () => {
    await assertAdminAuthRequired(context, 'GET', `/admin/v1/merchants/${merchant.id}/api_keys`, undefined, merchant.apiKey);
  });
});
