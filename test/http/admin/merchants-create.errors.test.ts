import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError, assertSucceeded, snapshotTable } from '../../helpers/assertions.ts';

describe('POST /admin/v1/merchants (errors)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
    assertSucceeded(await context.admin('POST', '/admin/v1/merchants', { name: 'Existing', email: 'taken@example.com' }));
  });
  after(async () => context.close());

  async function merchantTables(): Promise<string[]> {
    return [
      ...(await snapshotTable(context.database, 'merchants')),
      ...(await snapshotTable(context.database, 'api_keys')),
      ...(await snapshotTable(context.database, 'dashboard_users')),
      ...(await snapshotTable(context.database, 'merchant_pii_keys')),
    ];
  }

  const cases: Array<[string, unknown, string]> = [
    ['name missing', { email: 'a@example.com' }, 'name'],
    ['email missing', { name: 'A' }, 'email'],
    ['name empty', { name: '', email: 'a@example.com' }, 'name'],
    ['name blank', { name: '   ', email: 'a@example.com' }, 'name'],
    ['name over 200 characters', { name: 'n'.repeat(201), email: 'a@example.com' }, 'name'],
    ['name a number', { name: 7, email: 'a@example.com' }, 'name'],
    ['email invalid', { name: 'A', email: 'not-an-email' }, 'email'],
    ['email over 254 characters', { name: 'A', email: `${'a'.repeat(250)}@b.co` }, 'email'],
    ['an unknown field', { name: 'A', email: 'a@example.com', liveEnabled: true }, 'liveEnabled'],
    ['email already used by a dashboard user', { name: 'A', email: 'taken@example.com' }, 'email'],
    ['email already used, in another case', { name: 'A', email: 'TAKEN@example.com' }, 'email'],
    ['no body', undefined, 'body'],
  ];
  for (const [label, body, field] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing created`, async () => {
      const before = await merchantTables();
      assertError(await context.admin('POST', '/admin/v1/merchants', body), 400, 'WRONG_PARAMETER', field);
      assert.deepEqual(await merchantTables(), before);
    });
  }

  test('malformed JSON → 400; non-JSON → 415', async () => {
    const headers = { authorization: 'Bearer adm_test_key_0123456789abcdefghijklmnop' };
    assertError(await context.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...headers, 'content-type': 'application/json' }, payload: '{"name":' }), 400, 'WRONG_PARAMETER');
    assertError(await context.app.inject({ method: 'POST', url: '/admin/v1/merchants', headers: { ...headers, 'content-type': 'text/plain' }, payload: 'name=x' }), 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
