import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { createWebhookHttpClient } from './http-client.ts';

/**
 * The delivery client against a real loopback server: what undici is configured to do (decision
 * 0063). The SSRF guard's refusals are tested end to end in test/e2e/webhooks/ssrf.test.ts.
 */

type Handler = (request: http.IncomingMessage, response: http.ServerResponse, socket: Socket) => void;
let handler: Handler = (_request, response) => response.end();
const connections: Socket[] = [];
let requests = 0;
const server = http.createServer((request, response) => {
  requests += 1;
  request.resume();
  request.on('end', () => handler(request, response, request.socket));
});
server.on('connection', (socket: Socket) => connections.push(socket));
let base = '';

before(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => {
  server.closeAllConnections();
  server.close();
});

function reset(next: Handler): void {
  handler = next;
  requests = 0;
  connections.length = 0;
}

const send = (client: ReturnType<typeof createWebhookHttpClient>, path = '/hook') => client.send({ url: `${base}${path}`, headers: { 'content-type': 'application/json', 'webhook-id': 'evt_1' }, body: '{"a":1}' });

test('kept-alive: deliveries to one endpoint reuse its connections', async () => {
  reset((_request, response) => {
    response.statusCode = 204;
    response.end();
  });
  const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
  try {
    for (let index = 0; index < 20; index += 1) {
      const result = await send(client);
      assert.equal(result.ok, true);
      assert.equal(result.statusCode, 204);
    }
    assert.equal(requests, 20);
    // undici looks at an idle socket for one turn of the event loop before reusing it (a close the
    // receiver sent meanwhile is seen first), so a request sent at once may open a second one.
    assert.ok(connections.length <= 2, `${connections.length} connections for 20 requests`);
  } finally {
    client.close();
  }
});

test('a redirect is not followed: one request, reported as a failure', async () => {
  reset((_request, response) => {
    response.statusCode = 302;
    response.setHeader('location', `${base}/elsewhere`);
    response.end();
  });
  const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
  try {
    const result = await send(client);
    assert.equal(result.ok, false);
    assert.equal(result.statusCode, 302);
    assert.equal(result.error, 'HTTP 302: redirects are not followed');
    assert.equal(requests, 1);
  } finally {
    client.close();
  }
});

test('a large answer: the first 1 KiB is kept, and past 64 KiB the connection is dropped', async () => {
  let written = 0;
  reset((_request, response) => {
    response.statusCode = 200;
    const chunk = Buffer.alloc(16 * 1024, 'x');
    const write = () => {
      while (written < 10 * 1024 * 1024) {
        written += chunk.length;
        if (!response.write(chunk)) {
          response.once('drain', write);
          return;
        }
      }
      response.end();
    };
    response.on('close', () => undefined);
    write();
  });
  const client = createWebhookHttpClient({ timeoutMs: 5_000, allowPrivateTargets: true });
  try {
    const result = await send(client);
    assert.equal(result.ok, true);
    assert.equal(result.responseBody, 'x'.repeat(1024));
    assert.ok(written < 10 * 1024 * 1024, `the server stopped writing before the whole 10 MiB (wrote ${written})`);
  } finally {
    client.close();
  }
});

test('an answer with a Retry-After on 429 reports it; NUL bytes are replaced', async () => {
  reset((_request, response) => {
    response.statusCode = 429;
    response.setHeader('retry-after', '7');
    response.end('slow\u0000down');
  });
  const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
  try {
    const result = await send(client);
    assert.equal(result.ok, false);
    assert.equal(result.retryAfter, '7');
    assert.equal(result.responseBody, 'slow\ufffddown');
    assert.equal(result.error, 'HTTP 429');
  } finally {
    client.close();
  }
});

test('timeouts: no answer, and no free connection (never sent)', async () => {
  const held: http.ServerResponse[] = [];
  reset((_request, response) => {
    held.push(response);
  });
  const client = createWebhookHttpClient({ timeoutMs: 1_000, allowPrivateTargets: true, maxSockets: 1 });
  try {
    const first = send(client);
    // Shorter than the first's: it times out while the only connection is still busy.
    const second = client.send({ url: `${base}/hook`, headers: {}, body: '{}', timeoutMs: 200 });
    assert.match((await second).error ?? '', /^timeout: no free connection to 127\.0\.0\.1:\d+ within 200 ms \(1 busy\); not sent/);
    assert.equal((await first).statusCode, null);
    assert.match((await first).error ?? '', /^timeout: no complete answer within 1000 ms/);
    // The second request reached the connection only after its deadline: aborted, never written.
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(requests, 1);
  } finally {
    for (const response of held) {
      response.destroy();
    }
    client.close();
  }
});

// A receiver drops a kept-alive connection without answering: a close (FIN, which undici reports as
// "other side closed" with the socket's counters), or a reset (RST: the race a kept-alive connection
// runs when the receiver closes it, its idle timeout, just as our next request arrives with unread
// data; undici reports it as the socket's bare ECONNRESET).
const drops: Array<[string, (socket: Socket) => void, RegExp]> = [
  ['closes', (socket) => socket.destroy(), /^UND_ERR_SOCKET: other side closed/],
  ['resets', (socket) => socket.resetAndDestroy(), /^ECONNRESET: /],
];
for (const [how, drop, reported] of drops) {
  test(`a kept-alive connection the receiver ${how} without answering is retried once on a new one; a new one is not`, async () => {
    const served = new Map<Socket, number>();
    reset((_request, response, socket) => {
      const count = (served.get(socket) ?? 0) + 1;
      served.set(socket, count);
      // A connection's second request is dropped without an answer.
      if (count === 2) {
        drop(socket);
        return;
      }
      response.statusCode = 204;
      response.end();
    });
    const client = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
    try {
      assert.equal((await send(client)).ok, true);
      // Past undici's look at the idle socket: the next request goes out on the same connection.
      await new Promise((resolve) => setTimeout(resolve, 20));
      const retried = await send(client);
      assert.equal(retried.ok, true, retried.error ?? '');
      assert.equal(requests, 3);
      assert.equal(connections.length, 2);

      reset((_request, _response, socket) => drop(socket));
      const fresh = createWebhookHttpClient({ timeoutMs: 2_000, allowPrivateTargets: true });
      try {
        const failed = await send(fresh);
        assert.equal(failed.ok, false);
        assert.equal(failed.statusCode, null);
        assert.match(failed.error ?? '', reported);
        assert.equal(requests, 1, 'a request whose new connection was dropped is not sent again');
      } finally {
        fresh.close();
      }
    } finally {
      client.close();
    }
  });
}
