import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded, assertUnauthorized, createCustomer, snapshotCustomerTables, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /v1/customers/:customerId (authentication, ownership and modes)', () => {
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
    liveMerchantSandboxCustomer = await createCustomer(context, liveEnabled.apiKey, { email: 'sandbox@example.com' }, false);
    liveCustomer = await createCustomer(context, liveEnabled.apiKey, { email: 'live@example.com' }, true);
  });
  after(async () => context.close());

  const update = (apiKey: string, id: string, query = '') =>
    context.request({ method: 'POST', url: `/v1/customers/${id}${query}`, apiKey, body: { email: 'intruder@example.com' } });

  test('missing, invalid and password-carrying credentials → 401 envelope with WWW-Authenticate: Basic; nothing changes', async () => {
    const before = await snapshotCustomerTables(context.database);
    for (const authorization of [undefined, basicAuth('sk_nope'), `Basic ${Buffer.from(`${sandboxOnly.apiKey}:pw`).toString('base64')}`]) {
      const response = await context.app.inject({
        method: 'POST',
        url: `/v1/customers/${sandboxCustomer.id}`,
        headers: { 'content-type': 'application/json', ...(authorization === undefined ? {} : { authorization }) },
        payload: JSON.stringify({ email: 'intruder@example.com' }),
      });
      assertUnauthorized(response);
    }
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test("another merchant's customer → 404 NOT_FOUND and it is not changed", async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await update(liveEnabled.apiKey, sandboxCustomer.id), 404, 'NOT_FOUND');
    assertError(await update(liveEnabled.apiKey, sandboxCustomer.id, '?livemode=false'), 404, 'NOT_FOUND');
    assertError(await update(sandboxOnly.apiKey, liveCustomer.id), 404, 'NOT_FOUND');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('a sandbox id with livemode=true: 403 for a sandbox-only merchant, 404 for a live-enabled one', async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await update(sandboxOnly.apiKey, sandboxCustomer.id, '?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assertError(await update(liveEnabled.apiKey, liveMerchantSandboxCustomer.id, '?livemode=true'), 404, 'NOT_FOUND');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('a live id with livemode=false → 404', async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await update(liveEnabled.apiKey, liveCustomer.id, '?livemode=false'), 404, 'NOT_FOUND');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('the owner updates in the matching mode', async () => {
    assert.equal(assertSucceeded<CustomerData>(await update(sandboxOnly.apiKey, sandboxCustomer.id, '?livemode=false')).email, 'intruder@example.com');
    assert.equal(assertSucceeded<CustomerData>(await update(liveEnabled.apiKey, liveCustomer.id, '?livemode=true')).email, 'intruder@example.com');
  });
});
