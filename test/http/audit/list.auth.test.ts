import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { adminApiKey, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { openAuditListSuite } from '../../helpers/audit.ts';

describe('GET /admin/v1/audit_events: operators only', () => {
  let context: TestContext;
  let first: TestMerchant;

  before(async () => ({ context, first } = await openAuditListSuite()));
  after(async () => context.close());

  test('only the operator: no bearer or an API key → 401', async () => {
    assert.equal((await context.app.inject({ method: 'GET', url: '/admin/v1/audit_events' })).statusCode, 401);
    assert.equal((await context.app.inject({ method: 'GET', url: '/admin/v1/audit_events', headers: { authorization: `Bearer ${adminApiKey}x` } })).statusCode, 401);
    assert.equal((await context.request({ method: 'GET', url: '/admin/v1/audit_events', apiKey: first.apiKey })).statusCode, 401);
  });
});
