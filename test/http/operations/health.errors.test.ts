import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createTestContext } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';

describe('GET /readyz when the database is gone (docs/API.md §14)', () => {
  test('/readyz → 503 SERVICE_UNAVAILABLE envelope when the database is gone', async () => {
    const broken = await createTestContext();
    try {
      await broken.database.close();
      const response = await broken.app.inject({ method: 'GET', url: '/readyz' });
      assertError(response, 503, 'SERVICE_UNAVAILABLE');
      assert.equal(response.headers['retry-after'], '1');
      assert.equal((await broken.app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200, 'the process itself is alive');
    } finally {
      await broken.app.close();
      await broken.platform.close();
    }
  });
});
