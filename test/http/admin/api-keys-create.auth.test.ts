import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/api_keys (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('a merchant key cannot mint more keys; only the operator token can', async () => {
    const before = await snapshotTable(context.database, 'api_keys');
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'escalate' }, merchant.apiKey);
    assert.deepEqual(await snapshotTable(context.database, 'api_keys'), before);
  });
});
