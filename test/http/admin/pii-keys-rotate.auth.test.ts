import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/pii_keys/rotate (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('rotation needs the operator token', async () => {
    const before = await snapshotTable(context.database, 'merchant_pii_keys');
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/merchants/${merchant.id}/pii_keys/rotate`, {}, merchant.apiKey);
    assert.deepEqual(await snapshotTable(context.database, 'merchant_pii_keys'), before);
  });
});
