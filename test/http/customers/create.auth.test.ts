import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { basicAuth, createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded, assertUnauthorized, snapshotCustomerTables, uniqueReference, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /v1/customers (authentication and modes)', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;
  let liveEnabled: TestMerchant;

  before(async () => {
    context = await createTestContext();
    sandboxOnly = await context.createMerchant();
    liveEnabled = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  const body = () => ({ referenceId: uniqueReference('auth'), signupAt: 1_700_000_000_000 });

  function postWith(authorization: string | undefined, query = '?livemode=false') {
    return context.app.inject({
      method: 'POST',
      url: `/v1/customers${query}`,
      headers: { 'content-type': 'application/json', ...(authorization !== undefined ? { authorization } : {}) },
      payload: JSON.stringify(body()),
    });
  }

  test('missing, malformed and unknown credentials → 401 envelope with WWW-Authenticate: Basic; nothing written', async () => {
    const before = await snapshotCustomerTables(context.database);
    const [, lookup] = /^sk_([0-9a-z]{36})_/.exec(sandboxOnly.apiKey) ?? [];
    const attempts: Array<[string, string | undefined]> = [
      ['no header', undefined],
      ['empty header', ''],
      ['Basic without credentials', 'Basic '],
      ['Basic with invalid base64', 'Basic !!!!'],
      ['the key as a Bearer token', `Bearer ${sandboxOnly.apiKey}`],
      ['the key without Basic encoding', sandboxOnly.apiKey],
      ['an unknown key', basicAuth('sk_unknown_key')],
      ['a well-formed key with a wrong secret', basicAuth(`sk_${String(lookup)}_${'A'.repeat(43)}`)],
      ['a truncated key', basicAuth(sandboxOnly.apiKey.slice(0, -1))],
      ['the key with a non-empty password', `Basic ${Buffer.from(`${sandboxOnly.apiKey}:secret`).toString('base64')}`],
      ['an empty user name with the key as password', `Basic ${Buffer.from(`:${sandboxOnly.apiKey}`).toString('base64')}`],
    ];
    for (const [label, authorization] of attempts) {
      const response = await postWith(authorization);
      assert.equal(response.statusCode, 401, label);
      assertUnauthorized(response);
    }
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('the key without a trailing colon (no password part) is accepted', async () => {
    const response = await postWith(`Basic ${Buffer.from(sandboxOnly.apiKey).toString('base64')}`);
    assertSucceeded(response);
  });

  test('a revoked key → 401; the merchant’s other keys keep working', async () => {
    const merchant = await context.createMerchant();
    const second = json<{ data: { id: string; apiKey: string } }>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys`, { name: 'second' })).data;
    assertSucceeded(await postWith(basicAuth(second.apiKey)));
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/api_keys/${second.id}/revoke`));
    const before = await snapshotCustomerTables(context.database);
    const error = assertUnauthorized(await postWith(basicAuth(second.apiKey)));
    assert.match(error.errorMessage, /revoked|invalid/);
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
    assertSucceeded(await postWith(basicAuth(merchant.apiKey)));
  });

  test('livemode omitted for a sandbox-only merchant → 403 LIVE_MODE_NOT_ENABLED telling to pass livemode=false', async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await postWith(basicAuth(sandboxOnly.apiKey), ''), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assertError(await postWith(basicAuth(sandboxOnly.apiKey), '?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('livemode selects the mode for a live-enabled merchant; omitted means live', async () => {
    const omitted = assertSucceeded<CustomerData>(await postWith(basicAuth(liveEnabled.apiKey), ''));
    const live = assertSucceeded<CustomerData>(await postWith(basicAuth(liveEnabled.apiKey), '?livemode=true'));
    const sandbox = assertSucceeded<CustomerData>(await postWith(basicAuth(liveEnabled.apiKey), '?livemode=false'));
    assert.equal(omitted.livemode, true);
    assert.equal(live.livemode, true);
    assert.equal(sandbox.livemode, false);
  });

  test('the customer belongs to the key’s merchant, whatever the body says', async () => {
    const response = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: sandboxOnly.apiKey,
      body: { ...body(), merchantId: liveEnabled.id },
    });
    assertError(response, 400, 'WRONG_PARAMETER', 'merchantId');
    const created = assertSucceeded<CustomerData>(await postWith(basicAuth(sandboxOnly.apiKey)));
    assert.equal(created.merchantId, sandboxOnly.id);
  });

  test('logs never contain the Authorization header or an API key', async () => {
    await postWith(basicAuth(sandboxOnly.apiKey));
    await postWith(`Basic ${Buffer.from(`${liveEnabled.apiKey}:wrong`).toString('base64')}`);
    const logs = context.logs.join('');
    assert.ok(context.logs.length > 0, 'requests were logged');
    for (const secret of [sandboxOnly.apiKey, liveEnabled.apiKey, basicAuth(sandboxOnly.apiKey), Buffer.from(`${sandboxOnly.apiKey}:`).toString('base64')]) {
      assert.equal(logs.includes(secret), false, 'a credential reached the logs');
    }
    for (const merchant of [sandboxOnly, liveEnabled]) {
      const secretPart = merchant.apiKey.split('_').slice(2).join('_');
      assert.equal(logs.includes(secretPart), false, 'the secret part of a key reached the logs');
    }
    assert.doesNotMatch(logs, /"authorization"\s*:\s*"Basic/i);
  });
});
