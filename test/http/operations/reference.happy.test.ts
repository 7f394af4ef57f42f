import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';

describe('GET /docs/reference (docs/API.md §14)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('/docs/reference answers the HTML API reference (/docs is the guides index, test/docs)', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/docs/reference' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<html/i);
    assert.match(response.body, /swagger/i);
  });
});
