import assert from 'node:assert/strict';
import net, { type AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { webhookEndpoints } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { secretAssociatedData } from '../../../src/modules/webhooks/delivery.ts';
import { createWebhookHttpClient } from '../../../src/modules/webhooks/http-client.ts';
import { generateWebhookSecret } from '../../../src/modules/webhooks/signing.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createEndpoint, emitEvent, onlyDelivery } from '../../helpers/webhooks.ts';

/** A TCP listener on every local address (`::`, dual stack) that only counts connections. */
async function connectionCounter(): Promise<{ port: number; connections: () => number; close: () => Promise<void> }> {
  let connections = 0;
  const server = net.createServer((socket) => {
    connections += 1;
    socket.resume();
    socket.end('HTTP/1.1 200 OK\r\ncontent-length: 0\r\nconnection: close\r\n\r\n');
  });
  await new Promise<void>((resolve) => server.listen(0, '::', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const signedRequest = { headers: { 'content-type': 'application/json', 'webhook-id': 'evt_test' }, body: '{}' };

/** Every spelling of "this machine" a URL can carry; all must be refused before connecting. */
function localSpellings(port: number): string[] {
  return [
    `http://127.0.0.1:${port}/`,
    `http://127.1:${port}/`,
    `http://2130706433:${port}/`,
    `http://0177.0.0.1:${port}/`,
    `http://017700000001:${port}/`,
    `http://0x7f000001:${port}/`,
    `http://0x7f.0.0.1:${port}/`,
    `http://0.0.0.0:${port}/`,
    `http://0:${port}/`,
    `http://[::1]:${port}/`,
    `http://[::]:${port}/`,
    `http://[::ffff:127.0.0.1]:${port}/`,
    `http://[::ffff:7f00:1]:${port}/`,
    `http://[0:0:0:0:0:ffff:127.0.0.1]:${port}/`,
    `https://127.0.0.1:${port}/`,
  ];
}

/** Refused ranges nothing here listens on: refused up front, never attempted. */
const unreachableRanges = [
  'http://10.0.0.1/',
  'http://10.255.255.255/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.1.1/',
  'http://169.254.169.254/latest/meta-data/',
  'http://100.64.0.1/',
  'http://100.127.255.254/',
  'http://224.0.0.1/',
  'http://239.255.255.250/',
  'http://255.255.255.255/',
  'http://198.18.0.1/',
  'http://192.0.2.1/',
  'http://[fc00::1]/',
  'http://[fd12:3456::1]/',
  'http://[fe80::1]/',
  'http://[ff02::1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://[64:ff9b::a00:1]/',
  'http://[2002:a00:1::]/',
];

describe('SSRF guard (WEBHOOK_ALLOW_PRIVATE_TARGETS=false)', () => {
  let counter: Awaited<ReturnType<typeof connectionCounter>>;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    counter = await connectionCounter();
    context = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'false', WEBHOOK_TIMEOUT_MS: '2000' } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await counter.close();
  });

  test('the delivery client refuses every local spelling and localhost without opening a connection', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: false });
    try {
      for (const url of [...localSpellings(counter.port), `http://localhost:${counter.port}/`]) {
        const result = await client.send({ url, ...signedRequest });
        assert.equal(result.ok, false, url);
        assert.equal(result.statusCode, null, url);
        assert.match(result.error ?? '', /^blocked: /, `${url}: ${String(result.error)}`);
      }
      assert.equal(counter.connections(), 0, 'no connection reached the listener');
    } finally {
      client.close();
    }
  });

  test('a host name is checked on what it resolves to at connect time (localhost → 127.0.0.1/::1)', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: false });
    try {
      const result = await client.send({ url: `http://localhost:${counter.port}/hooks`, ...signedRequest });
      assert.match(result.error ?? '', /^blocked: localhost resolves only to addresses webhooks may not reach: .*loopback/);
      assert.equal(counter.connections(), 0);
    } finally {
      client.close();
    }
  });

  test('private, link-local, CGNAT, multicast, reserved and IPv4-embedding IPv6 targets are refused up front', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: false });
    try {
      for (const url of unreachableRanges) {
        const result = await client.send({ url, ...signedRequest });
        assert.match(result.error ?? '', /^blocked: /, `${url}: ${String(result.error)}`);
        assert.equal(result.latencyMs, 0, `${url} was never attempted`);
      }
      const live = await client.send({ url: 'http://example.com/hooks', ...signedRequest, livemode: true });
      assert.match(live.error ?? '', /^blocked: live endpoints must use https/);
    } finally {
      client.close();
    }
  });

  test('the API refuses literal private targets when endpoints are created or changed', async () => {
    for (const url of [...localSpellings(counter.port), ...unreachableRanges, `http://localhost:${counter.port}/`, 'http://api.localhost/']) {
      const response = await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: merchant.apiKey, body: { url } });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      const body = json<{ errorCode: string; errorMessage: string }>(response);
      assert.equal(body.errorCode, 'WRONG_PARAMETER');
      assert.match(body.errorMessage, /^url must point to a public address/);
    }
    const publicHttp = await createEndpoint(context, merchant, { url: 'http://example.com/hooks' });
    const changed = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${publicHttp.id}`, apiKey: merchant.apiKey, body: { url: 'http://[::ffff:127.0.0.1]/' } });
    assert.equal(changed.statusCode, 400, changed.body);
    assert.equal((await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${publicHttp.id}`, apiKey: merchant.apiKey })).statusCode, 200);
    const live = await context.request({ method: 'POST', url: '/v1/webhook_endpoints', apiKey: merchant.apiKey, body: { url: 'http://example.com/hooks' } });
    assert.equal(live.statusCode, 400);
    assert.match(json<{ errorMessage: string }>(live).errorMessage, /https in live mode/);
  });

  test('DNS rebinding: an endpoint whose name now resolves to loopback is refused at delivery, with 0 connections', async () => {
    // As if `hooks.example.net` had resolved to a public address when the endpoint was created and
    // to 127.0.0.1 now: store the endpoint directly with a name that resolves to loopback.
    const owner = await context.createMerchant();
    const now = context.clock.now();
    const id = newId('webhookEndpoint', now.getTime());
    const secret = generateWebhookSecret();
    await context.database.db.insert(webhookEndpoints).values({
      id,
      merchantId: owner.id,
      livemode: false,
      url: `http://localhost:${counter.port}/hooks`,
      enabledEvents: ['*'],
      status: 'ENABLED',
      secretCiphertext: context.keyRing.encrypt(secret, secretAssociatedData({ merchantId: owner.id, id }, 'secret')),
      createdAt: now,
      updatedAt: now,
    });
    context.clock.advance(1);
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    const delivery = (await onlyDelivery(context, owner, event.id)).attempts[0];
    assert.equal(delivery?.statusCode, null);
    assert.match(delivery?.error ?? '', /^blocked: localhost resolves only to addresses webhooks may not reach/);
    assert.equal(counter.connections(), 0);
  });

  test('control: with private targets allowed the same listener is reached', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
    try {
      const result = await client.send({ url: `http://127.0.0.1:${counter.port}/`, ...signedRequest });
      assert.equal(result.statusCode, 200, String(result.error));
      assert.equal(counter.connections(), 1);
    } finally {
      client.close();
    }
  });
});

describe('SSRF guard with private targets allowed (the embedded default): live never private, metadata never', () => {
  let counter: Awaited<ReturnType<typeof connectionCounter>>;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    counter = await connectionCounter();
    context = await createTestContext({ env: { WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true', WEBHOOK_TIMEOUT_MS: '2000' } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await counter.close();
  });

  test('a live delivery never reaches loopback or private addresses, by literal or by name; a sandbox one does', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
    try {
      for (const url of [`https://127.0.0.1:${counter.port}/`, `https://[::1]:${counter.port}/`, `https://[::ffff:127.0.0.1]:${counter.port}/`, 'https://10.0.0.1/', 'https://192.168.1.1/']) {
        const result = await client.send({ url, ...signedRequest, livemode: true });
        assert.match(result.error ?? '', /^blocked: /, `${url}: ${String(result.error)}`);
        assert.equal(result.latencyMs, 0, `${url} was never attempted`);
      }
      const byName = await client.send({ url: `https://localhost:${counter.port}/hooks`, ...signedRequest, livemode: true });
      assert.match(byName.error ?? '', /^blocked: localhost resolves only to addresses webhooks may not reach/);
      assert.equal(counter.connections(), 0, 'no live attempt connected');
      const sandbox = await client.send({ url: `http://127.0.0.1:${counter.port}/`, ...signedRequest });
      assert.equal(sandbox.statusCode, 200, String(sandbox.error));
      assert.equal(counter.connections(), 1, 'the sandbox delivery connected');
    } finally {
      client.close();
    }
  });

  test('link-local and cloud metadata addresses are refused for sandbox deliveries too, in every spelling', async () => {
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
    try {
      for (const url of [
        'http://169.254.169.254/latest/meta-data/',
        'http://169.254.0.1/',
        'http://100.100.100.200/',
        'http://[fe80::1]/',
        'http://[fd00:ec2::254]/',
        'http://[::ffff:169.254.169.254]/',
        'http://[::ffff:a9fe:a9fe]/',
        'http://[::ffff:0:169.254.169.254]/',
        'http://[64:ff9b::169.254.169.254]/',
        'http://2852039166/',
        'http://0xa9.0xfe.0xa9.0xfe/',
      ]) {
        const result = await client.send({ url, ...signedRequest });
        assert.match(result.error ?? '', /^blocked: .*(link-local|metadata)/, `${url}: ${String(result.error)}`);
        assert.equal(result.latencyMs, 0, `${url} was never attempted`);
      }
    } finally {
      client.close();
    }
  });

  test('the API: live endpoints must be public; sandbox endpoints may be loopback but never link-local or metadata', async () => {
    for (const url of [`https://127.0.0.1:${counter.port}/`, 'https://localhost/hooks', 'https://[::1]/', 'https://10.1.2.3/', 'https://169.254.169.254/']) {
      const response = await context.request({ method: 'POST', url: '/v1/webhook_endpoints', apiKey: merchant.apiKey, body: { url } });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(json<{ errorMessage: string }>(response).errorMessage, /^url must point to a public address in live mode/, url);
    }
    const sandbox = await createEndpoint(context, merchant, { url: `http://127.0.0.1:${counter.port}/hooks` });
    assert.match(sandbox.id, /^we_/);
    for (const url of ['http://169.254.169.254/latest/meta-data/', 'http://[fe80::1]/', 'http://[::ffff:169.254.169.254]/', 'http://100.100.100.200/']) {
      const response = await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: merchant.apiKey, body: { url } });
      assert.equal(response.statusCode, 400, `${url}: ${response.body}`);
      assert.match(json<{ errorMessage: string }>(response).errorMessage, /^url must not point to a link-local or cloud metadata address/, url);
    }
  });
});
