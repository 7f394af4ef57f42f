import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded, createCustomer, snapshotTable } from '../../helpers/assertions.ts';

interface CreatedKey {
  id: string;
  name: string;
  apiKey: string;
  createdAt: number;
}

describe('POST /admin/v1/merchants/:merchantId/api_keys (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('creates a named key that works alongside the first one (rotation)', async () => {
    const merchant = await context.createMerchant();
    const created = assertSucceeded<CreatedKey>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'CI pipeline' }));
    assert.match(created.id, /^key_[0-9a-z]{36}$/);
    assert.equal(created.name, 'CI pipeline');
    assert.equal(created.createdAt, context.clock.now().getTime());
    assert.ok(created.apiKey.startsWith(`sk_${created.id.slice('key_'.length)}_`), 'the key embeds its id for lookup');
    assert.equal((await createCustomer(context, created.apiKey)).merchantId, merchant.id);
    assert.equal((await createCustomer(context, merchant.apiKey)).merchantId, merchant.id);
  });

  test('without a body (or with {}) the key gets a default name', async () => {
    const merchant = await context.createMerchant();
    assert.equal(assertSucceeded<CreatedKey>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`)).name, 'API key');
    assert.equal(assertSucceeded<CreatedKey>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, {})).name, 'API key');
  });

  test('the secret is shown once: the list and the database hold only its last four characters and hash', async () => {
    const merchant = await context.createMerchant();
    const created = assertSucceeded<CreatedKey>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'once' }));
    const secret = created.apiKey.split('_').slice(2).join('_');
    const listResponse = await context.admin('GET', `/admin/v1/merchants/${merchant.id}/api_keys`);
    assert.equal(listResponse.body.includes(secret), false);
    const listed = assertSucceeded<Array<{ id: string; last4: string }>>(listResponse).find((key) => key.id === created.id);
    assert.equal(listed?.last4, secret.slice(-4));
    assert.equal((await snapshotTable(context.database, 'api_keys')).join('').includes(secret), false);
  });
});
