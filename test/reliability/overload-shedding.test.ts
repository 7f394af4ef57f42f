import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { createTestContext, basicAuth, type TestContext, type TestMerchant } from '../helpers/context.ts';

// MAX_IN_FLIGHT_REQUESTS (src/http/load-shedding.ts) on a real listening server: requests are held
// in flight by sending their headers and only part of the body (onRequest runs before the body is
// read), so the limit is reached without any timing.

let context: TestContext;
let merchant: TestMerchant;
let port: number;
const open: net.Socket[] = [];

before(async () => {
  context = await createTestContext({ env: { MAX_IN_FLIGHT_REQUESTS: '2' } });
  merchant = await context.createMerchant();
  await context.app.listen({ port: 0, host: '127.0.0.1' });
  const address = context.app.server.address();
  assert.ok(address && typeof address === 'object');
  port = address.port;
});

after(async () => {
  for (const socket of open) {
    socket.destroy();
  }
  await context.close();
});

interface Held {
  socket: net.Socket;
  /** The server answered it (it was shed: a poll got in first). */
  answered: boolean;
}

/** A POST whose body never completes: it stays in flight until the socket is destroyed. */
async function holdRequest(): Promise<Held> {
  const socket = net.connect(port, '127.0.0.1');
  open.push(socket);
  const held: Held = { socket, answered: false };
  socket.on('data', () => {
    held.answered = true;
  });
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  socket.write(
    `POST /v1/customers?livemode=false HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basicAuth(merchant.apiKey)}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"referenceId":`,
  );
  return held;
}

async function get(path: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  const response = await fetch(`http://127.0.0.1:${port}${path}`, { headers: { authorization: basicAuth(merchant.apiKey) } });
  return { status: response.status, headers: response.headers, body: (await response.json()) as Record<string, unknown> };
}

/**
 * Polls until a request is shed. A hold whose headers reach the server while a poll is in flight
 * is itself shed (answered): it is replaced, so both holds end up in flight.
 */
async function untilShed(holds: Held[], path: string): Promise<{ status: number; headers: Headers; body: Record<string, unknown> }> {
  for (let attempt = 0; attempt < 200; attempt += 1) {
    let replaced = attempt === 0;
    for (const [index, held] of holds.entries()) {
      if (held.answered) {
        held.socket.destroy();
        holds[index] = await holdRequest();
        replaced = true;
      }
    }
    if (replaced) {
      // Give new holds' headers a head start over the poll (only convergence depends on it).
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const answer = await get(path);
    if (answer.status === 503) {
      return answer;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the limit was never reached');
}

test('below the limit requests are admitted', async () => {
  const answer = await get('/v1/balance?livemode=false');
  assert.equal(answer.status, 200);
});

test('beyond MAX_IN_FLIGHT_REQUESTS: 503 SERVICE_UNAVAILABLE envelope with Retry-After; health stays up; capacity returns', async () => {
  const holds = [await holdRequest(), await holdRequest()];
  const shed = await untilShed(holds, '/v1/balance?livemode=false');
  assert.equal(shed.status, 503);
  assert.equal(shed.headers.get('retry-after'), '1');
  assert.equal(shed.body.status, 'FAILED');
  assert.equal(shed.body.errorCode, 'SERVICE_UNAVAILABLE');
  assert.match(String(shed.body.errorMessage), /capacity/);
  assert.match(String(shed.body.requestId), /^req_/);
  // Unauthenticated and unknown routes are shed too (before any other work)…
  assert.equal((await get('/v1/nowhere')).status, 503);
  // …but probes and metrics are not.
  assert.equal((await get('/healthz')).status, 200);
  assert.equal((await get('/readyz')).status, 200);

  // A held request ends (its client goes away): one slot is free again.
  holds[0]?.socket.destroy();
  let admitted = 0;
  for (let attempt = 0; attempt < 200 && admitted === 0; attempt += 1) {
    const answer = await get('/v1/balance?livemode=false');
    if (answer.status === 200) {
      admitted += 1;
    } else {
      assert.equal(answer.status, 503);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }
  assert.equal(admitted, 1, 'a request is admitted once a slot is free');
  holds[1]?.socket.destroy();
});

test('MAX_IN_FLIGHT_REQUESTS=0 disables the limit', async () => {
  const unlimited = await createTestContext({ env: { MAX_IN_FLIGHT_REQUESTS: '0' }, database: context.database });
  try {
    assert.equal(unlimited.config.maxInFlightRequests, 0);
    const answers = await Promise.all(Array.from({ length: 20 }, () => unlimited.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey })));
    assert.deepEqual(new Set(answers.map((answer) => answer.statusCode)), new Set([200]));
  } finally {
    await unlimited.close();
  }
});

test('MAX_EVENT_LOOP_DELAY_MS: after the event loop fell behind, requests get 503 until it catches up', async () => {
  const lagging = await createTestContext({ env: { MAX_EVENT_LOOP_DELAY_MS: '50', MAX_IN_FLIGHT_REQUESTS: '0' }, database: context.database });
  try {
    const balance = () => lagging.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchant.apiKey });
    let shed: Awaited<ReturnType<typeof balance>> | undefined;
    for (let attempt = 0; attempt < 10 && !shed; attempt += 1) {
      // Block the event loop for 300 ms, as a saturated process would; then let the overdue
      // sampler run (timers fire in order) and send a request at once.
      const until = Date.now() + 300;
      while (Date.now() < until) {
        // busy
      }
      await new Promise((resolve) => setTimeout(resolve, 0));
      const answer = await balance();
      if (answer.statusCode === 503) {
        shed = answer;
      }
    }
    assert.ok(shed, 'a request was shed after the event loop fell behind');
    assert.equal(shed.headers['retry-after'], '1');
    assert.equal(JSON.parse(shed.body).errorCode, 'SERVICE_UNAVAILABLE');
    assert.equal((await lagging.request({ method: 'GET', url: '/healthz' })).statusCode, 200, 'probes are not shed');
    let recovered = false;
    for (let attempt = 0; attempt < 200 && !recovered; attempt += 1) {
      recovered = (await balance()).statusCode === 200;
      if (!recovered) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    assert.ok(recovered, 'requests are admitted again once the event loop caught up');
  } finally {
    await lagging.close();
  }
});
