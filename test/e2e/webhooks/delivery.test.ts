import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { Webhook } from 'standardwebhooks';
import { recordEvent } from '../../../src/modules/events/record.ts';
import { retryDelaysMs } from '../../../src/modules/webhooks/retry.ts';
import { verifyWebhook } from '../../../src/modules/webhooks/verify.ts';
import { bodySignature, canonicalJson } from '../../../src/modules/webhooks/signing.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertVerified, receiverPool } from '../../helpers/webhook-receiver.ts';
import { createEndpoint, deliveriesOf, emitEvent, endpointOf, onlyDelivery } from '../../helpers/webhooks.ts';

const timeoutMs = 500;


/**
 * Webhook delivery (e2e: real HTTP to loopback receivers): signatures, routing to endpoints, the
 * outbox's atomicity, the retry schedule, redelivery and secret rotation. What an endpoint's answers
 * do to it (disabling, warnings, streaks) is in ./endpoint-health.test.ts.
 */
describe('webhook delivery (e2e: real HTTP to a loopback receiver)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const receivers = receiverPool();

  before(async () => {
    context = await createTestContext({ env: { WEBHOOK_TIMEOUT_MS: String(timeoutMs) } });
    merchant = await context.createMerchant();
  });
  after(async () => {
    await context.close();
    await receivers.closeAll();
  });

  test('a delivery verifies with the standardwebhooks library and with the body signature', async () => {
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, merchant, { url: hooks.url() });
    assert.match(endpoint.secret, /^whsec_[A-Za-z0-9+/]{32}$/);
    const event = await emitEvent(context, merchant, { data: { pageId: 'page_1', clientReferenceId: 'order-€-1', amount: 1250, currency: 'EUR', nested: { b: 2, a: [1, 'x'] } } });
    await context.drainJobs();

    assert.equal(hooks.requests.length, 1);
    const [received] = hooks.requests;
    assert.ok(received);
    assert.equal(received.method, 'POST');
    assert.equal(received.path, '/hooks');
    assert.match(String(received.headers['content-type']), /^application\/json/);
    assert.equal(received.headers['webhook-id'], event.id);
    assert.match(String(received.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/);
    const nowSeconds = Math.floor(Date.now() / 1000);
    assert.ok(Math.abs(Number(received.headers['webhook-timestamp']) - nowSeconds) <= 5, 'webhook-timestamp is the real time of sending');

    const verified = assertVerified(received, endpoint.secret);
    assert.deepEqual(Object.keys(JSON.parse(received.body) as object).sort(), ['createdAt', 'data', 'id', 'livemode', 'signature', 'type']);
    assert.equal(verified.type, 'PAYMENT_SUCCEEDED');
    assert.equal(verified.createdAt, event.createdAt.getTime());
    assert.equal(verified.livemode, false);
    assert.deepEqual(verified.data, { pageId: 'page_1', clientReferenceId: 'order-€-1', amount: 1250, currency: 'EUR', nested: { b: 2, a: [1, 'x'] } });
    // The body signature is HMAC-SHA256 over the RFC 8785 form of the event without `signature`.
    const { signature, ...unsigned } = verified;
    assert.equal(signature, bodySignature(unsigned, endpoint.secret));
    assert.equal(received.body, canonicalJson(verified), 'the body itself is canonical JSON');

    // A wrong secret fails both checks.
    const other = 'whsec_' + Buffer.alloc(24, 7).toString('base64');
    assert.throws(() => new Webhook(other).verify(received.body, received.headers as Record<string, string>));
    assert.throws(() => verifyWebhook(received.headers, received.body, other), /webhook-signature does not match/);

    const delivery = await onlyDelivery(context, merchant, event.id);
    assert.match(delivery.id, /^whd_[0-9a-z]{36}$/);
    assert.equal(delivery.endpointId, endpoint.id);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.equal(delivery.attemptCount, 1);
    assert.equal(delivery.nextAttemptAt, null);
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0]?.statusCode, 200);
    assert.equal(delivery.attempts[0]?.responseBody, 'ok');
    assert.equal(delivery.attempts[0]?.outcome, 'SUCCEEDED');
    assert.ok((delivery.attempts[0]?.latencyMs ?? -1) >= 0);

    // The fan-out ran once: draining again sends nothing new.
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1);
  });

  test('only endpoints of the same merchant and mode that subscribe to the type receive it', async () => {
    const owner = await context.createMerchant({ live: true });
    const stranger = await context.createMerchant();
    const hooks = await receivers.start();
    const all = await createEndpoint(context, owner, { url: hooks.url('/all') });
    await createEndpoint(context, owner, { url: hooks.url('/expired-only'), enabledEvents: ['PAYMENT_EXPIRED'] });
    // A live endpoint (live endpoints must be public; this one is never reached: the event is sandbox).
    await createEndpoint(context, owner, { url: 'https://hooks.example.com/live' }, true);
    await createEndpoint(context, stranger, { url: hooks.url('/stranger') });
    const event = await emitEvent(context, owner, { type: 'PAYMENT_SUCCEEDED' });
    await context.drainJobs();
    assert.deepEqual(
      hooks.requests.map((request) => request.path),
      ['/all'],
    );
    assertVerified(hooks.requests[0] ?? assert.fail('no request'), all.secret);
    assert.equal((await deliveriesOf(context, owner, `eventId=${event.id}`)).length, 1);
  });

  test('an event created in a rolled-back transaction is never delivered', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    await createEndpoint(context, owner, { url: hooks.url() });
    let eventId = '';
    await assert.rejects(
      context.database.transaction(async (tx) => {
        eventId = (await recordEvent(tx, context.clock.now(), { merchantId: owner.id, livemode: false, type: 'PAYMENT_EXPIRED', data: { pageId: 'page_x' } })).id;
        throw new Error('the state change failed');
      }),
      /the state change failed/,
    );
    assert.match(eventId, /^evt_/);
    await context.drainJobs();
    context.clock.advance(60_000);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 0);
    assert.equal((await context.request({ method: 'GET', url: `/v1/events/${eventId}`, apiKey: owner.apiKey })).statusCode, 404);
    assert.deepEqual(await deliveriesOf(context, owner, 'limit=100'), []);
  });

  test('fails, then succeeds on the 5-second retry; both attempts are recorded', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    let calls = 0;
    hooks.answer = () => {
      calls += 1;
      return calls === 1 ? { status: 500, body: `boom ${'x'.repeat(3000)}` } : { status: 204 };
    };
    const event = await emitEvent(context, owner);
    const sentAt = context.clock.now().getTime();
    await context.drainJobs();
    let delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.lastStatusCode, 500);
    assert.ok(delivery.nextAttemptAt !== null && delivery.nextAttemptAt >= sentAt + 4_500 && delivery.nextAttemptAt <= sentAt + 5_500, `next attempt ${String(delivery.nextAttemptAt)} is 5 s ± 10 %`);
    assert.equal(delivery.attempts[0]?.responseBody?.length, 1024, 'the first 1 KiB of the answer is kept');

    context.clock.advance(5_500);
    await context.drainJobs();
    delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.deepEqual(
      delivery.attempts.map((attempt) => [attempt.number, attempt.outcome, attempt.statusCode]),
      [
        [1, 'FAILED', 500],
        [2, 'SUCCEEDED', 204],
      ],
    );
    assert.equal(hooks.requests.length, 2);
    assert.equal(hooks.requests[0]?.headers['webhook-id'], hooks.requests[1]?.headers['webhook-id'], 'retries keep the webhook-id');
    assert.equal(hooks.requests[0]?.body, hooks.requests[1]?.body, 'retries send the same body');
    for (const request of hooks.requests) {
      assertVerified(request, endpoint.secret);
    }
    const health = await endpointOf(context, owner, endpoint.id);
    assert.equal(health.failingSince, undefined, 'a success ends the failure streak');
  });

  test('retries follow 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h (±10 % jitter), then FAILED after 8 attempts', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 500, body: 'down' });
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1);
    let previous = context.clock.now().getTime();
    for (const [index, delay] of retryDelaysMs.entries()) {
      const delivery = await onlyDelivery(context, owner, event.id);
      assert.equal(delivery.status, 'PENDING');
      const planned = (delivery.nextAttemptAt ?? 0) - previous;
      assert.ok(planned >= delay * 0.9 && planned <= delay * 1.1, `retry ${index + 1} planned after ${planned} ms, expected ${delay} ± 10 %`);
      context.clock.advance(Math.floor(delay * 0.89));
      await context.drainJobs();
      assert.equal(hooks.requests.length, index + 1, `no attempt before the retry time (retry ${index + 1})`);
      context.clock.advance(Math.ceil(delay * 1.11) - Math.floor(delay * 0.89));
      await context.drainJobs();
      assert.equal(hooks.requests.length, index + 2, `attempt ${index + 2} ran once its time came`);
      previous = context.clock.now().getTime();
    }
    const failed = await onlyDelivery(context, owner, event.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.attemptCount, 8);
    assert.equal(failed.nextAttemptAt, null);
    assert.deepEqual(
      failed.attempts.map((attempt) => attempt.number),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    context.clock.advance(48 * 3_600_000);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 8, 'nothing after the last attempt');
    assert.equal(new Set(hooks.requests.map((request) => request.headers['webhook-id'])).size, 1);
    assert.deepEqual(await deliveriesOf(context, owner, `status=FAILED&endpointId=${endpoint.id}`).then((list) => list.map((item) => item.id)), [failed.id]);
  });

  test('Retry-After on 429/503 lengthens the wait (never shortens it) and is capped at 10 h', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    await createEndpoint(context, owner, { url: hooks.url() });
    const cases: Array<{ answer: { status: number; headers: Record<string, string> }; min: number; max: number }> = [
      { answer: { status: 429, headers: { 'retry-after': '120' } }, min: 120_000, max: 120_000 },
      { answer: { status: 503, headers: { 'retry-after': '1' } }, min: 4_500, max: 5_500 },
      { answer: { status: 503, headers: { 'retry-after': '9999999' } }, min: 36_000_000, max: 36_000_000 },
      { answer: { status: 500, headers: { 'retry-after': '600' } }, min: 4_500, max: 5_500 },
    ];
    for (const { answer, min, max } of cases) {
      hooks.answer = () => answer;
      const event = await emitEvent(context, owner);
      const sentAt = context.clock.now().getTime();
      await context.drainJobs();
      const delivery = await onlyDelivery(context, owner, event.id);
      const wait = (delivery.nextAttemptAt ?? 0) - sentAt;
      assert.ok(wait >= min && wait <= max, `${answer.status} Retry-After ${answer.headers['retry-after']}: waits ${wait} ms`);
    }
  });

  test('redeliver sends the event again with the same webhook-id, to all matching endpoints or one', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const first = await createEndpoint(context, owner, { url: hooks.url('/first') });
    const event = await emitEvent(context, owner);
    context.clock.advance(1);
    const second = await createEndpoint(context, owner, { url: hooks.url('/second') });
    await context.drainJobs();
    assert.deepEqual(
      hooks.requests.map((request) => request.path),
      ['/first'],
      'an endpoint created after the event does not receive it',
    );

    const all = await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: owner.apiKey });
    assert.equal(all.statusCode, 200, all.body);
    const redelivered = json<{ data: { deliveries: Array<{ endpointId: string; status: string }> } }>(all).data.deliveries;
    assert.deepEqual(redelivered.map((delivery) => delivery.endpointId).sort(), [first.id, second.id].sort());
    assert.ok(redelivered.every((delivery) => delivery.status === 'PENDING'));
    await context.drainJobs();
    assert.deepEqual(hooks.requests.map((request) => request.path).sort(), ['/first', '/first', '/second']);
    assert.ok(hooks.requests.every((request) => request.headers['webhook-id'] === event.id));
    assertVerified(hooks.requests.find((request) => request.path === '/second') ?? assert.fail('no /second'), second.secret);

    const one = await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: second.id } });
    assert.equal(one.statusCode, 200, one.body);
    await context.drainJobs();
    assert.equal(hooks.requests.filter((request) => request.path === '/second').length, 2);
    assert.equal(hooks.requests.filter((request) => request.path === '/first').length, 2);
    const secondDelivery = (await deliveriesOf(context, owner, `eventId=${event.id}&endpointId=${second.id}`))[0];
    assert.equal(secondDelivery?.attemptCount, 2);
    assert.equal(secondDelivery?.status, 'SUCCEEDED');

    // Redelivery restarts the schedule and stops the older attempt chain.
    hooks.answer = () => ({ status: 500 });
    await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: first.id } });
    await context.drainJobs();
    await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: first.id } });
    await context.drainJobs();
    const before5s = hooks.requests.length;
    context.clock.advance(5_600);
    await context.drainJobs();
    assert.equal(hooks.requests.length, before5s + 1, 'only the newest chain retries');
    hooks.answer = () => ({ status: 200 });

    const stranger = await context.createMerchant();
    const strangerHooks = await createEndpoint(context, stranger, { url: hooks.url('/stranger') });
    assert.equal((await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: stranger.apiKey })).statusCode, 404);
    assert.equal((await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: strangerHooks.id } })).statusCode, 404);
    assert.equal((await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver?livemode=false`, apiKey: owner.apiKey, body: { endpointId: 'we_unknown' } })).statusCode, 404);
  });

  test('rotate_secret: the previous secret keeps signing for the grace period, then only the new one', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    const rotated = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, apiKey: owner.apiKey });
    assert.equal(rotated.statusCode, 200, rotated.body);
    const { secret: newSecret, previousSecretExpiresAt } = json<{ data: { secret: string; previousSecretExpiresAt: number } }>(rotated).data;
    assert.match(newSecret, /^whsec_/);
    assert.notEqual(newSecret, endpoint.secret);
    assert.equal(previousSecretExpiresAt, context.clock.now().getTime() + 24 * 3_600_000);

    await emitEvent(context, owner);
    await context.drainJobs();
    const during = hooks.requests[0] ?? assert.fail('no request');
    assert.equal(String(during.headers['webhook-signature']).split(' ').length, 2, 'both secrets sign the header');
    assertVerified(during, newSecret, [newSecret, endpoint.secret]);
    assertVerified(during, endpoint.secret);
    assert.throws(() => verifyWebhook(during.headers, during.body, newSecret), /body signature/, 'the body keeps the previous signature during the grace period');

    context.clock.advance(24 * 3_600_000 + 1_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    const afterGrace = hooks.requests[1] ?? assert.fail('no second request');
    assert.equal(String(afterGrace.headers['webhook-signature']).split(' ').length, 1);
    assertVerified(afterGrace, newSecret);
    assert.throws(() => new Webhook(endpoint.secret).verify(afterGrace.body, afterGrace.headers as Record<string, string>));
    assert.throws(() => verifyWebhook(afterGrace.headers, afterGrace.body, endpoint.secret));

    const immediate = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, apiKey: owner.apiKey, body: { gracePeriodSeconds: 0 } });
    const immediateSecret = json<{ data: { secret: string; previousSecretExpiresAt?: number } }>(immediate).data;
    assert.equal(immediateSecret.previousSecretExpiresAt, undefined);
    await emitEvent(context, owner);
    await context.drainJobs();
    const third = hooks.requests[2] ?? assert.fail('no third request');
    assertVerified(third, immediateSecret.secret);
    assert.throws(() => verifyWebhook(third.headers, third.body, newSecret));
  });
});
