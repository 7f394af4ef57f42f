import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError, assertSucceeded, createCustomer } from '../../helpers/assertions.ts';

interface MerchantView {
  id: string;
  liveEnabled: boolean;
  fraudReportWebhooksEnabled: boolean;
  warnings?: string[];
}

describe('POST /admin/v1/merchants/:merchantId/live (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('enables live mode: live creates then work, sandbox keeps working', async () => {
    const merchant = await context.createMerchant();
    assertError(await context.request({ method: 'POST', url: '/v1/customers', apiKey: merchant.apiKey, body: { referenceId: 'before', signupAt: 1 } }), 403, 'LIVE_MODE_NOT_ENABLED');
    const enabled = assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`));
    assert.equal(enabled.id, merchant.id);
    assert.equal(enabled.liveEnabled, true);
    assert.equal(enabled.fraudReportWebhooksEnabled, false);
    assert.equal((await createCustomer(context, merchant.apiKey, {}, 'omit')).livemode, true);
    assert.equal((await createCustomer(context, merchant.apiKey, {}, false)).livemode, false);
    assert.equal(assertSucceeded<MerchantView>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}`)).liveEnabled, true);
  });

  test('is idempotent and accepts an empty JSON body', async () => {
    const merchant = await context.createMerchant();
    assert.equal(assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`, {})).liveEnabled, true);
    assert.equal(assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`)).liveEnabled, true);
  });

  test('only that merchant is enabled', async () => {
    const enabled = await context.createMerchant();
    const other = await context.createMerchant();
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${enabled.id}/live`));
    assert.equal(assertSucceeded<MerchantView>(await context.admin('GET', `/admin/v1/merchants/${other.id}`)).liveEnabled, false);
  });

  test('warns the operator when sandbox webhooks may reach private addresses (WEBHOOK_ALLOW_PRIVATE_TARGETS=true); no warnings key otherwise', async () => {
    assert.equal(context.config.webhookAllowPrivateTargets, true, 'the test server listens on loopback: private targets are the default');
    const merchant = await context.createMerchant();
    const enabled = assertSucceeded<MerchantView>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`));
    assert.equal(enabled.warnings?.length, 1);
    assert.match(enabled.warnings?.[0] ?? '', /^WEBHOOK_ALLOW_PRIVATE_TARGETS is true on this installation: the sandbox webhook endpoints of this merchant may reach loopback and private addresses/);

    const strict = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false' } });
    try {
      const other = await strict.createMerchant();
      const quiet = assertSucceeded<MerchantView>(await strict.admin('POST', `/admin/v1/merchants/${other.id}/live`));
      assert.equal(quiet.liveEnabled, true);
      assert.ok(!('warnings' in quiet), 'no warnings key when there is nothing to warn about');
    } finally {
      await strict.close();
    }
  });
});
