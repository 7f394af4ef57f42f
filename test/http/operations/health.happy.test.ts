import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext } from '../../helpers/context.ts';

describe('GET /healthz and /readyz (docs/API.md §14)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('/healthz and /readyz answer 200 envelopes without credentials', async () => {
    const health = await context.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    assert.deepEqual(json(health), { status: 'SUCCEEDED', data: { status: 'ok' } });
    const ready = await context.app.inject({ method: 'GET', url: '/readyz' });
    assert.equal(ready.statusCode, 200);
    assert.deepEqual(json(ready), { status: 'SUCCEEDED', data: { status: 'ready' } });
    assert.match(String(ready.headers['request-id']), /^req_/);
  });
});
