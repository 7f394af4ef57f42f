import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('POST /v1/webhook_endpoints/:endpointId/rotate_secret', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;

  before(async () => ({ context, sandboxOnly } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post } = merchantCalls(() => context);

  test('rotate_secret: a new secret; an Idempotency-Key replays the same answer', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'https://hooks.example.com/r' });
    const headers = { 'idempotency-key': `rotate-${created.id}` };
    const first = await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`, { gracePeriodSeconds: 3600 }, headers);
    assert.equal(first.statusCode, 200, first.body);
    const rotated = json<{ data: Endpoint & { previousSecretExpiresAt: number } }>(first).data;
    assert.notEqual(rotated.secret, created.secret);
    assert.equal(rotated.previousSecretExpiresAt, context.clock.now().getTime() + 3_600_000);
    const replay = await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`, { gracePeriodSeconds: 3600 }, headers);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`, { gracePeriodSeconds: -1 }), 400, 'WRONG_PARAMETER');
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`, { gracePeriodSeconds: 604_801 }), 400, 'WRONG_PARAMETER');
  });
});
