import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, snapshotTable } from '../../helpers/assertions.ts';

describe('/admin/v1/retention (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('a merchant can neither read nor change the retention settings', async () => {
    await assertAdminAuthRequired(context, 'GET', '/admin/v1/retention', undefined, merchant.apiKey);
    await assertAdminAuthRequired(context, 'POST', '/admin/v1/retention', { emailBodiesDays: 1 }, merchant.apiKey);
    assert.deepEqual(await snapshotTable(context.database, 'retention_settings'), []);
  });
});
