import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext } from '../../helpers/context.ts';
import { openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

describe('/v1/webhook_endpoints in the OpenAPI document', () => {
  let context: TestContext;

  before(async () => ({ context } = await openWebhookEndpointSuite()));
  after(async () => context.close());

  test('the OpenAPI document describes events, endpoints and deliveries', async () => {
    const document = json<{ paths: Record<string, Record<string, { tags?: string[]; summary?: string }>> }>(await context.app.inject({ method: 'GET', url: '/openapi.json' }));
    for (const [path, method] of [
      ['/v1/webhook_endpoints', 'post'],
      ['/v1/webhook_endpoints', 'get'],
      ['/v1/webhook_endpoints/{endpointId}', 'delete'],
      ['/v1/webhook_endpoints/{endpointId}/rotate_secret', 'post'],
      ['/v1/webhook_deliveries', 'get'],
      ['/v1/events', 'get'],
      ['/v1/events/{eventId}', 'get'],
      ['/v1/events/{eventId}/redeliver', 'post'],
      ['/admin/v1/emails', 'get'],
    ] as const) {
      const operation = document.paths[path]?.[method];
      assert.ok(operation, `${method.toUpperCase()} ${path} is documented`);
      assert.ok(operation.summary && operation.tags && operation.tags.length > 0, `${path} has a summary and tags`);
    }
  });

  test('the OpenAPI document describes the operation with its body', async () => {
    const document = json<{ paths: Record<string, Record<string, { summary?: string; tags?: string[]; requestBody?: unknown }>> }>(await context.app.inject({ method: 'GET', url: '/openapi.json' }));
    const operation = document.paths['/v1/webhook_endpoints/{endpointId}/test']?.post;
    assert.ok(operation, 'POST /v1/webhook_endpoints/{endpointId}/test is documented');
    assert.equal(operation.summary, 'Send a test event');
    assert.deepEqual(operation.tags, ['Webhooks']);
    assert.match(JSON.stringify(operation.requestBody), /eventType/);
  });
});
