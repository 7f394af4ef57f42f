import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/pii_keys/rotate (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('an unknown merchant → 404 NOT_FOUND; no key created', async () => {
    const before = await snapshotTable(context.database, 'merchant_pii_keys');
    assertError(await context.admin('POST', `/admin/v1/merchants/mer_${'0'.repeat(36)}/pii_keys/rotate`), 404, 'NOT_FOUND', 'merchant');
    assert.deepEqual(await snapshotTable(context.database, 'merchant_pii_keys'), before);
  });

  test('a body with fields → 400 WRONG_PARAMETER; the active key stays', async () => {
    const before = await snapshotTable(context.database, 'merchant_pii_keys');
    assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/pii_keys/rotate`, { key: 'mine' }), 400, 'WRONG_PARAMETER', 'key');
    assert.deepEqual(await snapshotTable(context.database, 'merchant_pii_keys'), before);
  });
});
