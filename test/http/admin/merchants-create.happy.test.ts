import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError, assertSucceeded, createCustomer, snapshotTable } from '../../helpers/assertions.ts';

interface CreatedMerchant {
  merchant: { id: string; name: string; liveEnabled: boolean };
  apiKey: string;
  dashboardUser: { email: string; password: string };
}

describe('POST /admin/v1/merchants (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('creates a sandbox-only merchant with a working API key and a dashboard login, each shown once', async () => {
    const created = assertSucceeded<CreatedMerchant>(await context.admin('POST', '/admin/v1/merchants', { name: '  Acme Payouts ', email: 'Ops@Acme.example' }));
    assert.match(created.merchant.id, /^mer_[0-9a-z]{36}$/);
    assert.equal(created.merchant.name, 'Acme Payouts');
    assert.equal(created.merchant.liveEnabled, false);
    assert.match(created.apiKey, /^sk_[0-9a-z]{36}_[A-Za-z0-9_-]{43}$/);
    assert.equal(created.dashboardUser.email, 'ops@acme.example');
    assert.ok(created.dashboardUser.password.length >= 20, 'a strong generated password');

    const customer = await createCustomer(context, created.apiKey);
    assert.equal(customer.merchantId, created.merchant.id);
    assertError(await context.request({ method: 'POST', url: '/v1/customers', apiKey: created.apiKey, body: { referenceId: 'live', signupAt: 1 } }), 403, 'LIVE_MODE_NOT_ENABLED');

    const secret = created.apiKey.split('_').slice(2).join('_');
    const stored = [...(await snapshotTable(context.database, 'api_keys')), ...(await snapshotTable(context.database, 'dashboard_users'))].join('\n');
    assert.equal(stored.includes(secret), false, 'the API key secret is stored only as a hash');
    assert.equal(stored.includes(created.dashboardUser.password), false, 'the dashboard password is stored only as a hash');
    assert.match(stored, /\$argon2id\$/);
  });

  test('the merchant gets a PII key and appears in the merchant list and read', async () => {
    const created = assertSucceeded<CreatedMerchant>(await context.admin('POST', '/admin/v1/merchants', { name: 'Listed', email: 'listed@example.com' }));
    const keys = assertSucceeded<Array<{ id: string; active: boolean }>>(await context.admin('GET', `/admin/v1/merchants/${created.merchant.id}/pii_keys`));
    assert.equal(keys.length, 1);
    assert.equal(keys[0]?.active, true);
    const list = assertSucceeded<Array<{ id: string; name: string; email: string; liveEnabled: boolean; fraudReportWebhooksEnabled: boolean }>>(await context.admin('GET', '/admin/v1/merchants'));
    const listed = list.find((merchant) => merchant.id === created.merchant.id);
    assert.deepEqual(
      { ...listed, createdAt: undefined },
      { id: created.merchant.id, name: 'Listed', email: 'listed@example.com', liveEnabled: false, fraudReportWebhooksEnabled: false, rateLimitPerSecond: null, rateLimitBurst: null, createdAt: undefined },
    );
    const read = assertSucceeded<{ id: string; createdAt: number }>(await context.admin('GET', `/admin/v1/merchants/${created.merchant.id}`));
    assert.equal(read.id, created.merchant.id);
    assert.equal(read.createdAt, context.clock.now().getTime());
  });

  test('two merchants never share keys or customers', async () => {
    const first = assertSucceeded<CreatedMerchant>(await context.admin('POST', '/admin/v1/merchants', { name: 'One', email: 'one@example.com' }));
    const second = assertSucceeded<CreatedMerchant>(await context.admin('POST', '/admin/v1/merchants', { name: 'Two', email: 'two@example.com' }));
    assert.notEqual(first.apiKey, second.apiKey);
    const customer = await createCustomer(context, first.apiKey);
    assertError(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: second.apiKey }), 404, 'NOT_FOUND');
  });
});
