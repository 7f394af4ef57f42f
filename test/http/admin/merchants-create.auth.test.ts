import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, snapshotTable } from '../../helpers/assertions.ts';
import { ensureAdminKey } from '../../../src/auth/admin-key.ts';

describe('POST /admin/v1/merchants (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('only the operator bearer token creates merchants; nothing is created otherwise', async () => {
    const before = await snapshotTable(context.database, 'merchants');
    await assertAdminAuthRequired(context, 'POST', '/admin/v1/merchants', { name: 'Sneaky', email: 'sneaky@example.com' }, merchant.apiKey);
    assert.deepEqual(await snapshotTable(context.database, 'merchants'), before);
  });

  test('listing and reading merchants need the bearer token too', async () => {
    await assertAdminAuthRequired(context, 'GET', '/admin/v1/merchants', undefined, merchant.apiKey);
    await assertAdminAuthRequired(context, 'GET', `/admin/v1/merchants/${merchant.id}`, undefined, merchant.apiKey);
  });

  test('without ADMIN_API_KEY a key is generated once, stored only as a hash, and verified', async () => {
    const first = await ensureAdminKey(context.database, undefined, context.clock.now());
    assert.ok(first.generated, 'the first start generates a key');
    assert.equal(first.verify(first.generated), true);
    assert.equal(first.verify(`${first.generated}x`), false);
    const second = await ensureAdminKey(context.database, undefined, context.clock.now());
    assert.equal(second.generated, undefined, 'printed once: later starts do not generate or reveal it');
    assert.equal(second.verify(first.generated), true);
    assert.equal((await snapshotTable(context.database, 'platform_settings')).join('').includes(first.generated), false);
  });
});
