import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded, assertUnauthorized, createCustomer, type CustomerData } from '../../helpers/assertions.ts';

describe('GET /v1/customers/:customerId (authentication, ownership and modes)', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;
  let liveEnabled: TestMerchant;
  let sandboxCustomer: CustomerData;
  let liveMerchantSandboxCustomer: CustomerData;
  let liveCustomer: CustomerData;

  before(async () => {
    context = await createTestContext();
    sandboxOnly = await context.createMerchant();
    liveEnabled = await context.createMerchant({ live: true });
    sandboxCustomer = await createCustomer(context, sandboxOnly.apiKey, { email: 'owner@example.com' });
    liveMerchantSandboxCustomer = await createCustomer(context, liveEnabled.apiKey, {}, false);
    liveCustomer = await createCustomer(context, liveEnabled.apiKey, {}, true);
  });
  after(async () => context.close());

  const read = (apiKey: string, id: string, query = '') => context.request({ method: 'GET', url: `/v1/customers/${id}${query}`, apiKey });

  test('missing, invalid and password-carrying credentials → 401 envelope with WWW-Authenticate: Basic', async () => {
    for (const authorization of [undefined, basicAuth('sk_nope'), `Bearer ${sandboxOnly.apiKey}`, `Basic ${Buffer.from(`${sandboxOnly.apiKey}:x`).toString('base64')}`]) {
      const response = await context.app.inject({ method: 'GET', url: `/v1/customers/${sandboxCustomer.id}`, headers: authorization === undefined ? {} : { authorization } });
      const error = assertUnauthorized(response);
      assert.doesNotMatch(response.body, /owner@example\.com/);
      assert.doesNotMatch(error.errorMessage, new RegExp(sandboxCustomer.id));
    }
  });

  test('a revoked key → 401', async () => {
    const created = json<{ data: { id: string; apiKey: string } }>(await context.admin('POST', `/admin/v1/merchants/${sandboxOnly.id}/api_keys`, {})).data;
    assertSucceeded(await read(created.apiKey, sandboxCustomer.id));
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${sandboxOnly.id}/api_keys/${created.id}/revoke`));
    assertUnauthorized(await read(created.apiKey, sandboxCustomer.id));
  });

  test("another merchant's customer → 404 NOT_FOUND, exactly like an unknown id", async () => {
    const foreign = assertError(await read(liveEnabled.apiKey, sandboxCustomer.id), 404, 'NOT_FOUND');
    const unknown = assertError(await read(liveEnabled.apiKey, `cus_${'0'.repeat(36)}`), 404, 'NOT_FOUND');
    assert.equal(foreign.errorMessage.replace(sandboxCustomer.id, 'ID'), unknown.errorMessage.replace(`cus_${'0'.repeat(36)}`, 'ID'));
    assertError(await read(sandboxOnly.apiKey, liveCustomer.id), 404, 'NOT_FOUND');
    assertError(await read(liveEnabled.apiKey, sandboxCustomer.id, '?livemode=false'), 404, 'NOT_FOUND');
  });

  test('a sandbox id with livemode=true: 403 LIVE_MODE_NOT_ENABLED for a sandbox-only merchant, 404 for a live-enabled one', async () => {
    assertError(await read(sandboxOnly.apiKey, sandboxCustomer.id, '?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assertError(await read(liveEnabled.apiKey, liveMerchantSandboxCustomer.id, '?livemode=true'), 404, 'NOT_FOUND');
  });

  test('a live id with livemode=false → 404', async () => {
    assertError(await read(liveEnabled.apiKey, liveCustomer.id, '?livemode=false'), 404, 'NOT_FOUND');
    assert.equal(assertSucceeded<CustomerData>(await read(liveEnabled.apiKey, liveCustomer.id, '?livemode=true')).livemode, true);
  });

  test('a sandbox-only merchant reads its own sandbox customers with or without livemode=false', async () => {
    assert.equal(assertSucceeded<CustomerData>(await read(sandboxOnly.apiKey, sandboxCustomer.id)).id, sandboxCustomer.id);
    assert.equal(assertSucceeded<CustomerData>(await read(sandboxOnly.apiKey, sandboxCustomer.id, '?livemode=false')).id, sandboxCustomer.id);
  });
});
