import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext } from '../../helpers/context.ts';

describe('GET /openapi.json (docs/API.md §14)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('/openapi.json documents the API, including /v1/customers and both security schemes', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    assert.equal(response.statusCode, 200);
    const document = json<{ openapi: string; paths: Record<string, Record<string, unknown>>; components: { securitySchemes: Record<string, unknown> } }>(response);
    assert.match(document.openapi, /^3\./);
    assert.ok(document.paths['/v1/customers']?.post, 'POST /v1/customers');
    assert.ok(document.paths['/v1/customers/{customerId}']?.get, 'GET /v1/customers/{customerId}');
    assert.ok(document.paths['/v1/customers/{customerId}']?.post, 'POST /v1/customers/{customerId}');
    assert.deepEqual(Object.keys(document.components.securitySchemes).sort(), ['adminBearer', 'basicAuth']);
    assert.equal(document.paths['/metrics'], undefined, 'operational internals are hidden');
  });
});
