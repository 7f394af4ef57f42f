import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/settings (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('a merchant cannot change its own operator settings', async () => {
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true }, merchant.apiKey);
    assert.equal((await context.platform.services.merchants.getMerchant(merchant.id)).fraudReportWebhooksEnabled, false);
  });
});
