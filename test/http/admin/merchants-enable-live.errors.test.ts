import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/live (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('an unknown merchant → 404 NOT_FOUND', async () => {
    assertError(await context.admin('POST', `/admin/v1/merchants/mer_${'0'.repeat(36)}/live`), 404, 'NOT_FOUND', 'merchant');
    assertError(await context.admin('POST', '/admin/v1/merchants/not-a-merchant/live'), 404, 'NOT_FOUND');
  });

  test('a body with fields → 400 WRONG_PARAMETER; the merchant stays sandbox-only', async () => {
    const before = await snapshotTable(context.database, 'merchants');
    assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`, { liveEnabled: false }), 400, 'WRONG_PARAMETER', 'liveEnabled');
    assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/live`, [1]), 400, 'WRONG_PARAMETER');
    assert.deepEqual(await snapshotTable(context.database, 'merchants'), before);
  });

  test('a merchant id longer than the limit → 400 or 404 envelope, never a framework page', async () => {
    const response = await context.admin('POST', `/admin/v1/merchants/mer_${'x'.repeat(150)}/live`);
    assert.ok([400, 404].includes(response.statusCode), response.body);
    assertError(response, response.statusCode, response.statusCode === 404 ? 'NOT_FOUND' : 'WRONG_PARAMETER');
  });
});
