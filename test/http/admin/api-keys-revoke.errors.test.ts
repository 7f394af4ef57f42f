import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, createCustomer, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/api_keys/:keyId/revoke (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let otherKeyId: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    otherKeyId = String((await context.platform.services.merchants.listApiKeys(other.id))[0]?.id);
  });
  after(async () => context.close());

  test('an unknown key → 404 NOT_FOUND', async () => {
    assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/key_${'0'.repeat(36)}/revoke`), 404, 'NOT_FOUND', 'API key');
  });

  test("another merchant's key → 404 NOT_FOUND and it keeps working", async () => {
    const before = await snapshotTable(context.database, 'api_keys');
    assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${otherKeyId}/revoke`), 404, 'NOT_FOUND');
    assert.deepEqual(await snapshotTable(context.database, 'api_keys'), before);
    await createCustomer(context, other.apiKey);
  });

  test('an unknown merchant → 404 NOT_FOUND', async () => {
    assertError(await context.admin('POST', `/admin/v1/merchants/mer_${'0'.repeat(36)}/api_keys/${otherKeyId}/revoke`), 404, 'NOT_FOUND');
  });

  test('a body with fields → 400 WRONG_PARAMETER; nothing revoked', async () => {
    const before = await snapshotTable(context.database, 'api_keys');
    assertError(await context.admin('POST', `/admin/v1/merchants/${other.id}/api_keys/${otherKeyId}/revoke`, { reason: 'leak' }), 400, 'WRONG_PARAMETER', 'reason');
    assert.deepEqual(await snapshotTable(context.database, 'api_keys'), before);
  });
});
