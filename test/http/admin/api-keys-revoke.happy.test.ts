import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded, assertUnauthorized, createCustomer } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants/:merchantId/api_keys/:keyId/revoke (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('a revoked key stops working at once; the other keys keep working; revoking again is a no-op', async () => {
    const merchant = await context.createMerchant();
    const second = assertSucceeded<{ id: string; apiKey: string }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'rotate me' }));
    await createCustomer(context, second.apiKey);
    assert.deepEqual(assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${second.id}/revoke`)), { id: second.id, revoked: true });
    assertUnauthorized(await context.app.inject({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}`, headers: { authorization: basicAuth(second.apiKey) } }));
    await createCustomer(context, merchant.apiKey);
    const revokedAt = (await context.platform.services.merchants.listApiKeys(merchant.id)).find((key) => key.id === second.id)?.revokedAt?.getTime();
    context.clock.advance(10_000);
    assert.deepEqual(assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${second.id}/revoke`, {})), { id: second.id, revoked: true });
    assert.equal((await context.platform.services.merchants.listApiKeys(merchant.id)).find((key) => key.id === second.id)?.revokedAt?.getTime(), revokedAt, 'the first revocation time stays');
  });

  test('a merchant may revoke its only key (and is then locked out)', async () => {
    const merchant = await context.createMerchant();
    const [only] = await context.platform.services.merchants.listApiKeys(merchant.id);
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${String(only?.id)}/revoke`));
    assertUnauthorized(await context.app.inject({ method: 'GET', url: `/v1/customers/cus_${'0'.repeat(36)}`, headers: { authorization: basicAuth(merchant.apiKey) } }));
  });
});
