import assert from 'node:assert/strict';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, test } from 'node:test';
import {
  Paysail,
  PaysailAuthenticationError,
  PaysailCardError,
  PaysailConflictError,
  PaysailConnectionError,
  PaysailError,
  PaysailInvalidRequestError,
  PaysailRateLimitError,
  PaysailServerError,
  type ClientOptions,
} from '@paysail/sdk';

/**
 * A tiny scripted HTTP server on loopback (the network is the outside part here): each request
 * takes the next step of the script; 'reset' destroys the socket without an answer, 'hang' never
 * answers.
 */
type Step = { status: number; body: unknown; headers?: Record<string, string> } | 'reset' | 'hang';

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

let server: http.Server;
let baseUrl: string;
let script: Step[] = [];
let seen: Seen[] = [];
const hanging: ServerResponse[] = [];

before(async () => {
  server = http.createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const step = script.shift() ?? { status: 200, body: { status: 'SUCCEEDED', data: { ok: true } } };
      if (step === 'reset') {
        request.socket.destroy();
        return;
      }
      if (step === 'hang') {
        hanging.push(response);
        return;
      }
      const text = typeof step.body === 'string' ? step.body : JSON.stringify(step.body);
      response.writeHead(step.status, { 'content-type': typeof step.body === 'string' ? 'text/html' : 'application/json', 'request-id': `req_${seen.length}`, ...step.headers });
      response.end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  for (const response of hanging) {
    response.destroy();
  }
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const ok = (data: unknown = { id: 'cus_1' }): Step => ({ status: 200, body: { status: 'SUCCEEDED', data } });
const failure = (status: number, errorCode: string, extra: Record<string, unknown> = {}, headers: Record<string, string> = {}): Step => ({
  status,
  body: { status: 'FAILED', errorCode, errorMessage: `${errorCode} message`, requestId: `req_body_${status}`, ...extra },
  headers,
});

/** A client whose waits are recorded instead of slept, so retry schedules are checked without waiting. */
function client(steps: Step[], options: Partial<ClientOptions> = {}): { paysail: Paysail; delays: number[] } {
  script = [...steps];
  seen = [];
  const delays: number[] = [];
  const paysail = new Paysail({
    apiKey: 'sk_lookup_secret',
    baseUrl,
    sleep: async (ms) => {
      delays.push(ms);
    },
    ...options,
  });
  return { paysail, delays };
}

const customer = { referenceId: 'user-1', signupAt: 1_767_225_600_000 };

test('a POST retried after a 503 and a reset connection sends the same Idempotency-Key every time', async () => {
  const { paysail, delays } = client([failure(503, 'SERVICE_UNAVAILABLE', {}, { 'retry-after': '1' }), 'reset', ok()]);
  const result = await paysail.requestWithResponse('POST /v1/customers', { body: customer });
  assert.deepEqual(result.data, { id: 'cus_1' });
  assert.equal(result.attempts, 3);
  assert.equal(seen.length, 3);
  const keys = seen.map((request) => request.headers['idempotency-key']);
  assert.match(String(keys[0]), /^[0-9a-f-]{36}$/);
  assert.deepEqual(keys, [keys[0], keys[0], keys[0]]);
  assert.equal(result.idempotencyKey, keys[0]);
  assert.deepEqual(
    seen.map((request) => request.body),
    Array(3).fill(JSON.stringify(customer)),
  );
  // Retry-After: 1 is honoured; the reset falls back to the backoff (500 ms step, equal jitter).
  assert.equal(delays[0], 1000);
  assert.ok(delays[1] !== undefined && delays[1] >= 500 && delays[1] <= 1000, `second delay ${delays[1]}`);
});

test('each call gets its own Idempotency-Key; a given key is sent as is', async () => {
  const { paysail } = client([ok(), ok(), ok()]);
  await paysail.customers.create(customer);
  await paysail.customers.create(customer);
  await paysail.customers.create(customer, { idempotencyKey: 'order-42-customer' });
  const keys = seen.map((request) => request.headers['idempotency-key']);
  assert.notEqual(keys[0], keys[1]);
  assert.equal(keys[2], 'order-42-customer');
});

test('Basic auth, JSON body and query serialization: livemode from the client, per call override, bracket notation', async () => {
  const { paysail } = client([ok(), ok(), ok({ checkoutFraudReports: [], count: 0, hasMore: false })], { livemode: false });
  await paysail.customers.retrieve('cus_a/b');
  await paysail.customers.retrieve('cus_2', { livemode: true });
  await paysail.fraudReports.list({ pagination: { offset: 20, limit: 10 }, filters: { fraudIssueDateRange: { start: '2026-01-01 00:00:00' } } });
  assert.equal(seen[0]?.headers.authorization, `Basic ${Buffer.from('sk_lookup_secret:').toString('base64')}`);
  assert.equal(seen[0]?.url, '/v1/customers/cus_a%2Fb?livemode=false');
  assert.equal(seen[0]?.headers['idempotency-key'], undefined, 'GET carries no Idempotency-Key');
  assert.equal(seen[1]?.url, '/v1/customers/cus_2?livemode=true');
  const query = new URL(seen[2]?.url ?? '', baseUrl).searchParams;
  assert.deepEqual(Object.fromEntries(query), {
    'pagination[offset]': '20',
    'pagination[limit]': '10',
    'filters[fraudIssueDateRange][start]': '2026-01-01 00:00:00',
    livemode: 'false',
  });
});

test('429 honours Retry-After; a Retry-After beyond the limit is not waited for', async () => {
  const first = client([failure(429, 'RATE_LIMITED', {}, { 'retry-after': '2' }), ok()]);
  await first.paysail.customers.retrieve('cus_1');
  assert.deepEqual(first.delays, [2000]);

  const second = client([failure(429, 'RATE_LIMITED', {}, { 'retry-after': '3600' })]);
  const error = await second.paysail.customers.retrieve('cus_1').catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailRateLimitError);
  assert.equal(error.retryAfterSeconds, 3600);
  assert.equal(error.attempts, 1);
  assert.deepEqual(second.delays, []);
});

test('retries stop after maxRetries with exponential, jittered delays, and the last error is thrown', async () => {
  const { paysail, delays } = client(Array(5).fill(failure(500, 'INTERNAL_ERROR')), { maxRetries: 4, initialRetryDelayMs: 100, maxRetryDelayMs: 400 });
  const error = await paysail.payoutPages.retrieve('payout_page_1').catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailServerError);
  assert.equal(error.statusCode, 500);
  assert.equal(error.errorCode, 'INTERNAL_ERROR');
  assert.equal(error.requestId, 'req_body_500');
  assert.equal(error.attempts, 5);
  assert.equal(seen.length, 5);
  const steps = [100, 200, 400, 400];
  assert.equal(delays.length, 4);
  delays.forEach((delay, index) => {
    const step = steps[index] ?? 0;
    assert.ok(delay >= step / 2 && delay <= step, `delay ${index} = ${delay}, step ${step}`);
  });
});

test('a POST without an Idempotency-Key is never retried', async () => {
  const { paysail, delays } = client([failure(503, 'SERVICE_UNAVAILABLE'), ok()]);
  const error = await paysail.customers.create(customer, { idempotencyKey: false }).catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailServerError);
  assert.equal(seen.length, 1);
  assert.equal(seen[0]?.headers['idempotency-key'], undefined);
  assert.deepEqual(delays, []);
});

test('4xx answers are not retried and map to typed errors carrying errorCode and requestId', async () => {
  const cases: Array<[Step, new (...args: never[]) => PaysailError, string]> = [
    [failure(400, 'WRONG_PARAMETER'), PaysailInvalidRequestError, 'WRONG_PARAMETER'],
    [failure(401, 'UNAUTHORIZED'), PaysailAuthenticationError, 'UNAUTHORIZED'],
    [failure(402, 'CARD_DECLINED', { declineReason: 'INSUFFICIENT_FUNDS' }), PaysailCardError, 'CARD_DECLINED'],
    [failure(409, 'INVALID_STATE'), PaysailConflictError, 'INVALID_STATE'],
  ];
  for (const [step, type, code] of cases) {
    const { paysail, delays } = client([step, ok()]);
    const error = await paysail.payoutPages.release('payout_page_1').catch((caught: unknown) => caught);
    assert.ok(error instanceof type, `${code} → ${String(error)}`);
    assert.ok(error instanceof PaysailError);
    assert.equal(error.errorCode, code);
    assert.equal(error.errorMessage, `${code} message`);
    assert.match(String(error.requestId), /^req_body_/);
    assert.equal(error.attempts, 1);
    assert.equal(seen.length, 1);
    assert.deepEqual(delays, []);
    if (error instanceof PaysailCardError) {
      assert.equal(error.declineReason, 'INSUFFICIENT_FUNDS');
    }
  }
});

test('IDEMPOTENCY_KEY_IN_USE (the first request still running) is retried with the same key', async () => {
  const { paysail, delays } = client([failure(409, 'IDEMPOTENCY_KEY_IN_USE', {}, { 'retry-after': '1' }), ok()]);
  await paysail.paymentPages.expire('page_1');
  assert.equal(seen.length, 2);
  assert.equal(seen[0]?.headers['idempotency-key'], seen[1]?.headers['idempotency-key']);
  assert.deepEqual(delays, [1000]);
});

test('a non-envelope answer (a proxy page) is retried on 5xx and reported as INVALID_RESPONSE', async () => {
  const { paysail } = client([{ status: 502, body: '<html>Bad gateway</html>' }, { status: 502, body: '<html>Bad gateway</html>' }], { maxRetries: 1 });
  const error = await paysail.balance.retrieve().catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailServerError);
  assert.equal(error.statusCode, 502);
  assert.equal(error.errorCode, 'INVALID_RESPONSE');
  assert.equal(error.requestId, 'req_2', 'falls back to the Request-Id header');
  assert.equal(seen.length, 2);

  const success = client([{ status: 200, body: { unexpected: true } }]);
  const invalid = await success.paysail.balance.retrieve().catch((caught: unknown) => caught);
  assert.ok(invalid instanceof PaysailError);
  assert.equal(invalid.errorCode, 'INVALID_RESPONSE');
});

test('a redirect is not followed (it would carry the API key elsewhere) and is not retried', async () => {
  const { paysail } = client([{ status: 302, body: '', headers: { location: 'http://elsewhere.invalid/v1/balance' } }, ok()]);
  const error = await paysail.balance.retrieve().catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailError);
  assert.equal(error.statusCode, 302);
  assert.equal(error.errorCode, 'INVALID_RESPONSE');
  assert.equal(seen.length, 1);
});

test('connection failures become PaysailConnectionError after the retries', async () => {
  const { paysail, delays } = client(['reset', 'reset', 'reset']);
  const error = await paysail.events.retrieve('evt_1').catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailConnectionError);
  assert.equal(error.errorCode, 'CONNECTION_ERROR');
  assert.equal(error.statusCode, 0);
  assert.equal(error.attempts, 3);
  assert.equal(delays.length, 2);

  // Nothing listens on port 9 of loopback (discard): refused, not retried forever.
  const refused = new Paysail({ apiKey: 'sk_x', baseUrl: 'http://127.0.0.1:9', maxRetries: 1, sleep: async () => {} });
  const refusedError = await refused.balance.retrieve().catch((caught: unknown) => caught);
  assert.ok(refusedError instanceof PaysailConnectionError);
  assert.equal(refusedError.attempts, 2);
});

test('an attempt that gets no answer times out and is retried', async () => {
  const { paysail } = client(['hang', ok()], { timeoutMs: 500 });
  const result = await paysail.requestWithResponse('GET /v1/customers/{customerId}', { pathParams: { customerId: 'cus_1' } });
  assert.equal(result.attempts, 2);

  const exhausted = client(['hang'], { timeoutMs: 300, maxRetries: 0 });
  const error = await exhausted.paysail.customers.retrieve('cus_1').catch((caught: unknown) => caught);
  assert.ok(error instanceof PaysailConnectionError);
  assert.equal(error.errorCode, 'TIMEOUT');
});

test("the caller's abort signal cancels without retrying", async () => {
  const { paysail } = client(['hang', ok()]);
  const controller = new AbortController();
  const pending = paysail.customers.retrieve('cus_1', { signal: controller.signal });
  while (seen.length === 0) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  controller.abort(new Error('caller gave up'));
  await assert.rejects(pending, /caller gave up/);
  assert.equal(seen.length, 1);
});

test('missing path parameters and API key are refused before any request', async () => {
  assert.throws(() => new Paysail({ apiKey: '' }), /apiKey is required/);
  const { paysail } = client([]);
  await assert.rejects(paysail.customers.retrieve(''), /customerId is required/);
  assert.equal(seen.length, 0);
});
