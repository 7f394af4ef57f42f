import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/api_keys (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const cases: Array<[string, unknown, string]> = [
    ['name empty', { name: '' }, 'name'],
    ['name blank', { name: '  ' }, 'name'],
    ['name over 100 characters', { name: 'k'.repeat(101) }, 'name'],
    ['name a number', { name: 5 }, 'name'],
    ['an unknown field', { name: 'x', scopes: ['all'] }, 'scopes'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; no key created`, async () => {
      const before = await snapshotTable(context.database, 'api_keys');
      assertError(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, body), 400, 'WRONG_PARAMETER', field);
      assert.deepEqual(await snapshotTable(context.database, 'api_keys'), before);
    });
  }

  test('an unknown merchant → 404 NOT_FOUND; no key created', async () => {
    const before = await snapshotTable(context.database, 'api_keys');
    assertError(await context.admin('POST', `/admin/v1/merchants/mer_${'0'.repeat(36)}/api_keys`, { name: 'x' }), 404, 'NOT_FOUND', 'merchant');
    assert.deepEqual(await snapshotTable(context.database, 'api_keys'), before);
  });
});
