import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { webhookEndpoints } from '../../../src/db/schema/index.ts';
import { secretAssociatedData } from '../../../src/modules/webhooks/delivery.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createEndpoint, merchantCalls, openWebhookEndpointSuite } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('POST /v1/webhook_endpoints: endpoints created', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;

  before(async () => ({ context, sandboxOnly } = await openWebhookEndpointSuite()));
  after(async () => context.close());
  const { post, get } = merchantCalls(() => context);

  test('create: defaults, the secret shown once, stored sealed', async () => {
    const response = await post(sandboxOnly, '/v1/webhook_endpoints?livemode=false', { url: 'https://hooks.example.com/paysail' });
    assert.equal(response.statusCode, 200, response.body);
    const created = json<{ status: string; data: Endpoint }>(response).data;
    assert.match(created.id, /^we_[0-9a-z]{36}$/);
    assert.equal(created.url, 'https://hooks.example.com/paysail');
    assert.deepEqual(created.enabledEvents, ['*']);
    assert.equal(created.livemode, false);
    assert.equal(created.status, 'ENABLED');
    assert.equal('description' in created, false);
    assert.equal(typeof created.createdAt, 'number');
    assert.match(created.secret ?? '', /^whsec_[A-Za-z0-9+/]{32}$/);
    assert.equal(Buffer.from((created.secret ?? '').slice(6), 'base64').length, 24);

    const [row] = await context.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, created.id));
    assert.ok(row);
    assert.ok(!row.secretCiphertext.includes((created.secret ?? '').slice(6)), 'the secret is not stored in clear');
    assert.equal(context.keyRing.decrypt(row.secretCiphertext, secretAssociatedData(row, 'secret')), created.secret);

    const read = json<{ data: Endpoint }>(await get(sandboxOnly, `/v1/webhook_endpoints/${created.id}`)).data;
    assert.equal('secret' in read, false, 'reads never show the secret');
    const listed = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(sandboxOnly, '/v1/webhook_endpoints')).data.webhookEndpoints;
    assert.ok(listed.every((endpoint) => !('secret' in endpoint)));
  });

  test('create with enabledEvents and description', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'http://hooks.example.com/a', enabledEvents: ['PAYMENT_EXPIRED', 'FRAUD_REPORTED'], description: 'orders' });
    assert.deepEqual(created.enabledEvents, ['PAYMENT_EXPIRED', 'FRAUD_REPORTED']);
    assert.equal((created as unknown as Endpoint).description, 'orders');
  });
});
