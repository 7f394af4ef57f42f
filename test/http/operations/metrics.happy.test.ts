import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { createCustomer } from '../../helpers/assertions.ts';

describe('GET /metrics (docs/API.md §14)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

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
});
