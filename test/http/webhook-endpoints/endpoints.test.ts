import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { webhookEndpoints } from '../../../src/db/schema/index.ts';
import { secretAssociatedData } from '../../../src/modules/webhooks/delivery.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint } from '../../helpers/webhooks.ts';

type Endpoint = Record<string, unknown> & { id: string; secret?: string };

describe('/v1/webhook_endpoints', () => {
  let context: TestContext;
  let sandboxOnly: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    sandboxOnly = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  const post = (merchant: TestMerchant, url: string, body?: unknown, headers?: Record<string, string>) =>
    context.request({ method: 'POST', url, apiKey: merchant.apiKey, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) });
  const get = (merchant: TestMerchant, url: string) => context.request({ method: 'GET', url, apiKey: merchant.apiKey });

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

  test('modes: omitted livemode means live (403 for sandbox-only merchants); live endpoints need https', async () => {
    assertError(await post(sandboxOnly, '/v1/webhook_endpoints', { url: 'https://hooks.example.com/x' }), 403, 'LIVE_MODE_NOT_ENABLED', 'livemode=false');
    assertError(await post(sandboxOnly, '/v1/webhook_endpoints?livemode=true', { url: 'https://hooks.example.com/x' }), 403, 'LIVE_MODE_NOT_ENABLED');
    assertError(await post(live, '/v1/webhook_endpoints', { url: 'http://hooks.example.com/x' }), 400, 'WRONG_PARAMETER', 'url must use https in live mode');
    const liveEndpoint = json<{ data: Endpoint }>(await post(live, '/v1/webhook_endpoints', { url: 'https://hooks.example.com/live' })).data;
    assert.equal(liveEndpoint.livemode, true);
    const sandboxEndpoint = await createEndpoint(context, live, { url: 'http://hooks.example.com/sandbox' });

    const both = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(live, '/v1/webhook_endpoints')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.deepEqual(both.sort(), [liveEndpoint.id, sandboxEndpoint.id].sort());
    const sandboxOnlyList = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(live, '/v1/webhook_endpoints?livemode=false')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.deepEqual(sandboxOnlyList, [sandboxEndpoint.id]);
    assertError(await get(live, `/v1/webhook_endpoints/${liveEndpoint.id}?livemode=false`), 404, 'NOT_FOUND');
    assert.equal((await get(live, `/v1/webhook_endpoints/${liveEndpoint.id}?livemode=true`)).statusCode, 200);
    assertError(await get(sandboxOnly, '/v1/webhook_endpoints?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED');
  });

  test('validation answers WRONG_PARAMETER naming the field', async () => {
    const cases: Array<[unknown, string]> = [
      [{}, 'url is required'],
      [{ url: 'not a url' }, 'url must be an absolute http or https URL'],
      [{ url: 'ftp://hooks.example.com/' }, 'url must use http or https'],
      [{ url: 'https://user:pw@hooks.example.com/' }, 'url must not contain a user name or password'],
      [{ url: 'https://hooks.example.com/#frag' }, 'url must not contain a #fragment'],
      [{ url: `https://hooks.example.com/${'a'.repeat(2100)}` }, 'url must be at most 2048 characters'],
      [{ url: 'https://hooks.example.com/', enabledEvents: [] }, 'enabledEvents must have at least 1 item'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['PAYMENT_EXPLODED'] }, 'enabledEvents.[0]'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['PAYMENT_EXPIRED', 'PAYMENT_EXPIRED'] }, 'enabledEvents must not contain duplicates'],
      [{ url: 'https://hooks.example.com/', enabledEvents: ['*', 'PAYMENT_EXPIRED'] }, 'enabledEvents must be ["*"] or a list of event types'],
      [{ url: 'https://hooks.example.com/', secret: 'whsec_mine' }, 'secret is not a recognised field'],
      [{ url: 'https://hooks.example.com/', description: 'd'.repeat(256) }, 'description must be at most 255 characters'],
    ];
    for (const [body, message] of cases) {
      const error = assertError(await post(sandboxOnly, '/v1/webhook_endpoints?livemode=false', body), 400, 'WRONG_PARAMETER');
      assert.ok(error.errorMessage.includes(message.replace('.[0]', '')) || error.errorMessage.startsWith(message), `${JSON.stringify(body).slice(0, 80)}: "${error.errorMessage}" should say "${message}"`);
    }
  });

  test('update: events, description, disable and re-enable', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'https://hooks.example.com/u', description: 'first' });
    const updated = json<{ data: Endpoint }>(
      await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { enabledEvents: ['PAYMENT_SUCCEEDED'], description: null, url: 'https://hooks.example.com/v2' }),
    ).data;
    assert.deepEqual(updated.enabledEvents, ['PAYMENT_SUCCEEDED']);
    assert.equal(updated.url, 'https://hooks.example.com/v2');
    assert.equal('description' in updated, false);
    const disabled = json<{ data: Endpoint }>(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { status: 'DISABLED' })).data;
    assert.equal(disabled.status, 'DISABLED');
    assert.equal(disabled.disabledReason, 'MANUAL');
    const enabled = json<{ data: Endpoint }>(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { status: 'ENABLED' })).data;
    assert.equal(enabled.status, 'ENABLED');
    assert.equal('disabledReason' in enabled, false);
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}`, { livemode: true }), 400, 'WRONG_PARAMETER', 'livemode is not a recognised field');
  });

  test('delete: gone from reads and lists; a second delete is 404', async () => {
    const created = await createEndpoint(context, sandboxOnly, { url: 'https://hooks.example.com/d' });
    const deleted = await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}`, apiKey: sandboxOnly.apiKey });
    assert.equal(deleted.statusCode, 200, deleted.body);
    assert.deepEqual(json<{ data: unknown }>(deleted).data, { id: created.id, deleted: true });
    assertError(await get(sandboxOnly, `/v1/webhook_endpoints/${created.id}`), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${created.id}`, apiKey: sandboxOnly.apiKey }), 404, 'NOT_FOUND');
    assertError(await post(sandboxOnly, `/v1/webhook_endpoints/${created.id}/rotate_secret`), 404, 'NOT_FOUND');
    const ids = json<{ data: { webhookEndpoints: Endpoint[] } }>(await get(sandboxOnly, '/v1/webhook_endpoints')).data.webhookEndpoints.map((endpoint) => endpoint.id);
    assert.ok(!ids.includes(created.id));
  });

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

  test('at most 16 endpoints per mode', async () => {
    const merchant = await context.createMerchant();
    for (let index = 0; index < 16; index += 1) {
      await createEndpoint(context, merchant, { url: `https://hooks.example.com/${index}` });
    }
    assertError(await post(merchant, '/v1/webhook_endpoints?livemode=false', { url: 'https://hooks.example.com/17' }), 409, 'INVALID_STATE', 'at most 16');
  });

  test('authentication is required', async () => {
    const response = await context.request({ method: 'GET', url: '/v1/webhook_endpoints' });
    assertError(response, 401, 'UNAUTHORIZED');
  });

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
});
