import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded, createCustomer } from '../../helpers/assertions.ts';

interface ListedKey {
  id: string;
  name: string;
  last4: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
}

describe('GET /admin/v1/merchants/:merchantId/api_keys (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  const list = async (merchantId: string) => assertSucceeded<ListedKey[]>(await context.admin('GET', `/admin/v1/merchants/${merchantId}/api_keys`));

  test('lists the merchant’s keys oldest first with lastUsedAt and revokedAt, never secrets', async () => {
    const merchant = await context.createMerchant();
    context.clock.advance(1_000);
    const second = assertSucceeded<{ id: string; apiKey: string }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'second' }));
    const keys = await list(merchant.id);
    assert.deepEqual(
      keys.map((key) => key.name),
      ['Default key', 'second'],
    );
    assert.deepEqual(Object.keys(keys[0] ?? {}).sort(), ['createdAt', 'id', 'last4', 'lastUsedAt', 'name', 'revokedAt']);
    assert.ok(keys.every((key) => key.lastUsedAt === null && key.revokedAt === null));
    assert.equal(keys[1]?.createdAt, (keys[0]?.createdAt ?? 0) + 1_000);

    context.clock.advance(1_000);
    await createCustomer(context, second.apiKey);
    // lastUsedAt is written off the request path; give it a moment.
    let used: ListedKey | undefined;
    for (let attempt = 0; attempt < 50; attempt += 1) {
      used = (await list(merchant.id)).find((key) => key.id === second.id);
      if (used?.lastUsedAt !== null) {
        break;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(used?.lastUsedAt, context.clock.now().getTime());
    assert.equal((await list(merchant.id)).find((key) => key.name === 'Default key')?.lastUsedAt, null);

    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${second.id}/revoke`));
    assert.equal((await list(merchant.id)).find((key) => key.id === second.id)?.revokedAt, context.clock.now().getTime());
  });

  test("does not list another merchant's keys", async () => {
    const first = await context.createMerchant();
    const second = await context.createMerchant();
    const firstIds = (await list(first.id)).map((key) => key.id);
    const secondIds = (await list(second.id)).map((key) => key.id);
    assert.equal(firstIds.length, 1);
    assert.equal(secondIds.length, 1);
    assert.notDeepEqual(firstIds, secondIds);
  });
});
