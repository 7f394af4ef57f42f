import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext } from '../../helpers/context.ts';
import { assertError, createCustomer } from '../../helpers/assertions.ts';

describe('operations endpoints (docs/API.md §14)', () => {
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

  test('/metrics is Prometheus text with request counts by route and status', async () => {
    const merchant = await context.createMerchant();
    await createCustomer(context, merchant.apiKey);
    await context.app.inject({ method: 'GET', url: '/v1/customers/cus_x' });
    const metrics = await context.app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(metrics.statusCode, 200);
    assert.match(String(metrics.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(metrics.body, /# TYPE paysail_http_requests_total counter/);
    assert.match(metrics.body, /paysail_http_requests_total\{method="POST",route="\/v1\/customers",status="200"\} 1/);
    assert.match(metrics.body, /paysail_http_requests_total\{method="GET",route="\/v1\/customers\/:customerId",status="401"\} 1/);
    assert.match(metrics.body, /paysail_http_request_duration_seconds_bucket/);
    assert.match(metrics.body, /process_cpu_user_seconds_total/);
    assert.doesNotMatch(metrics.body, /cus_x/, 'routes are labelled by pattern, not by raw URL');
  });

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

  test('/docs/reference answers the HTML API reference (/docs is the guides index, test/docs)', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/docs/reference' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(response.body, /<html/i);
    assert.match(response.body, /swagger/i);
  });

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
