import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { assertVerified, type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { closeTestEventSuite, createEndpoint, deliveriesOf, openTestEventSuite, testEventCalls } from '../../helpers/webhooks.ts';

/** POST /v1/webhook_endpoints/:id/test: an example event to one endpoint through the normal delivery path. */
describe('POST /v1/webhook_endpoints/:id/test: sent, delivered, retried, replayed', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;

  before(async () => ({ context, merchant, receiver } = await openTestEventSuite()));
  after(async () => closeTestEventSuite(context, receiver));

  const { sendTest, sent } = testEventCalls(() => context);

  test('happy: a signed example event reaches only that endpoint and shows in its delivery log; GET /v1/events does not list it', async () => {
    receiver.reset();
    const target = await createEndpoint(context, merchant, { url: receiver.url('/target'), enabledEvents: ['PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED'] });
    const bystander = await createEndpoint(context, merchant, { url: receiver.url('/bystander') });

    const { event, delivery } = await sent(await sendTest(merchant, target.id, { eventType: 'PAYMENT_SUCCEEDED' }, '?livemode=false'));
    assert.match(event.id, /^evt_test_[0-9a-z]{36}$/);
    assert.equal(event.type, 'PAYMENT_SUCCEEDED');
    assert.equal(event.livemode, false);
    assert.equal(event.createdAt, context.clock.now().getTime());
    assert.equal(event.data.pageId, 'page_test_0000000000000000000000000000000');
    assert.equal(event.data.clientReferenceId, 'paysail-test-event');
    assert.match(delivery.id, /^whd_[0-9a-z]{36}$/);
    assert.equal(delivery.eventId, event.id);
    assert.equal(delivery.endpointId, target.id);
    assert.equal(delivery.eventType, 'PAYMENT_SUCCEEDED');
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.attemptCount, 0);
    assert.deepEqual(delivery.attempts, []);

    await context.drainJobs();
    assert.equal(receiver.requests.length, 1, 'one request, to the target only');
    const [request] = receiver.requests;
    assert.ok(request);
    assert.equal(request.path, '/target');
    assert.equal(request.headers['webhook-id'], event.id);
    const verified = assertVerified(request, target.secret);
    assert.equal(verified.type, 'PAYMENT_SUCCEEDED');
    assert.deepEqual(verified.data, event.data);

    const [logged] = await deliveriesOf(context, merchant, `endpointId=${target.id}`);
    assert.ok(logged);
    assert.equal(logged.id, delivery.id);
    assert.equal(logged.status, 'SUCCEEDED');
    assert.deepEqual(
      logged.attempts.map((attempt) => [attempt.number, attempt.outcome, attempt.statusCode, attempt.responseBody]),
      [[1, 'SUCCEEDED', 200, 'ok']],
    );
    assert.deepEqual(await deliveriesOf(context, merchant, `endpointId=${bystander.id}`), [], 'no delivery to the other endpoint');

    const listed = json<{ data: { events: Array<{ id: string }> } }>(await context.request({ method: 'GET', url: '/v1/events?livemode=false&limit=100', apiKey: merchant.apiKey })).data.events;
    assert.ok(!listed.some((item) => item.id === event.id), 'GET /v1/events does not list test events');
    const read = await context.request({ method: 'GET', url: `/v1/events/${event.id}`, apiKey: merchant.apiKey });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(json<{ data: unknown }>(read).data, event);
  });

  test('a failed attempt is retried on the normal schedule; redelivery stays with that endpoint', async () => {
    receiver.reset();
    const target = await createEndpoint(context, merchant, { url: receiver.url('/flaky'), enabledEvents: ['PAYOUT_PAGE_UPDATED'] });
    const other = await createEndpoint(context, merchant, { url: receiver.url('/other'), enabledEvents: ['PAYOUT_PAGE_UPDATED'] });
    receiver.answer = () => ({ status: 503, body: 'down' });
    const { event } = await sent(await sendTest(merchant, target.id, { eventType: 'PAYOUT_PAGE_UPDATED' }));
    await context.drainJobs();
    let [delivery] = await deliveriesOf(context, merchant, `eventId=${event.id}`);
    assert.ok(delivery);
    assert.equal(delivery.status, 'PENDING');
    assert.deepEqual(delivery.attempts.map((attempt) => [attempt.outcome, attempt.statusCode]), [['FAILED', 503]]);
    assert.ok(delivery.nextAttemptAt !== null && delivery.nextAttemptAt > context.clock.now().getTime());

    receiver.answer = () => ({ status: 200, body: 'ok' });
    context.clock.advance(6_000);
    await context.drainJobs();
    [delivery] = await deliveriesOf(context, merchant, `eventId=${event.id}`);
    assert.ok(delivery);
    assert.equal(delivery.status, 'SUCCEEDED');
    assert.deepEqual(delivery.attempts.map((attempt) => [attempt.number, attempt.outcome]), [[1, 'FAILED'], [2, 'SUCCEEDED']]);
    assert.ok(receiver.requests.every((request) => request.path === '/flaky'));

    // Redelivering a test event without an endpoint sends it to its own endpoint only, never to every subscriber.
    const redelivered = await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: merchant.apiKey });
    assert.equal(redelivered.statusCode, 200, redelivered.body);
    assert.deepEqual(json<{ data: { deliveries: Array<{ endpointId: string }> } }>(redelivered).data.deliveries.map((item) => item.endpointId), [target.id]);
    await context.drainJobs();
    assert.equal(receiver.requests.filter((request) => request.path === '/other').length, 0);
    assertError(
      await context.request({ method: 'POST', url: `/v1/events/${event.id}/redeliver`, apiKey: merchant.apiKey, body: { endpointId: other.id } }),
      409,
      'INVALID_STATE',
      'send a new test event',
    );
  });

  test('Idempotency-Key: the same request replays the first answer and sends one event; another body is 409', async () => {
    receiver.reset();
    const endpoint = await createEndpoint(context, merchant, { url: receiver.url('/idempotent') });
    const headers = { 'idempotency-key': `test-event-${endpoint.id}` };
    const first = await sendTest(merchant, endpoint.id, { eventType: 'ENTITLEMENT_CREATED' }, '', headers);
    const { event } = await sent(first);
    const replay = await sendTest(merchant, endpoint.id, { eventType: 'ENTITLEMENT_CREATED' }, '', headers);
    assert.equal(replay.statusCode, 200);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);
    assertError(await sendTest(merchant, endpoint.id, { eventType: 'PAYMENT_EXPIRED' }, '', headers), 409, 'IDEMPOTENCY_KEY_REUSED');

    await context.drainJobs();
    const deliveries = await deliveriesOf(context, merchant, `endpointId=${endpoint.id}`);
    assert.deepEqual(deliveries.map((delivery) => delivery.eventId), [event.id], 'one test event was sent');
    assert.equal(receiver.requests.length, 1);
  });
});
