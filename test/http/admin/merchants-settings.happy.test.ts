import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded } from '../../helpers/assertions.ts';

interface MerchantView {
  id: string;
  liveEnabled: boolean;
  fraudReportWebhooksEnabled: boolean;
}

describe('POST /admin/v1/merchants/:merchantId/settings (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('turns FRAUD_REPORTED delivery on and off', async () => {
    const merchant = await context.createMerchant();
    const on = assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true }));
    assert.equal(on.fraudReportWebhooksEnabled, true);
    assert.equal(on.liveEnabled, false);
    assert.equal((await context.platform.services.merchants.getMerchant(merchant.id)).fraudReportWebhooksEnabled, true);
    const off = assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: false }));
    assert.equal(off.fraudReportWebhooksEnabled, false);
  });

  test('an empty body changes nothing', async () => {
    const merchant = await context.createMerchant({ live: true });
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true }));
    const unchanged = assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, {}));
    assert.equal(unchanged.fraudReportWebhooksEnabled, true);
    assert.equal(unchanged.liveEnabled, true);
  });
});
