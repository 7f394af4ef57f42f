import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext } from '../../helpers/context.ts';
import { assertVerified, receiverPool } from '../../helpers/webhook-receiver.ts';
import { createEndpoint, deliveriesOf, emitEvent, endpointOf, onlyDelivery } from '../../helpers/webhooks.ts';
import { adminEmails } from '../../helpers/emails.ts';

const timeoutMs = 500;

/**
 * What an endpoint's answers do to it (e2e: real HTTP to loopback receivers): 410 disables it, 3xx
 * and slow answers are failures, days of failures warn and then disable (e-mailed), a success
 * resets the streak, deleting stops its retries; and isolation. Signing, routing, the retry
 * schedule, redelivery and secret rotation are in ./delivery.test.ts.
 */
describe('webhook endpoint health (e2e: real HTTP to a loopback receiver)', () => {
  let context: TestContext;
  const receivers = receiverPool();

  const merchantEmails = (merchantId: string, relatedId: string) => adminEmails(context, `merchantId=${merchantId}&relatedId=${relatedId}`);

  before(async () => {
    context = await createTestContext({ env: { WEBHOOK_TIMEOUT_MS: String(timeoutMs) } });
  });
  after(async () => {
    await context.close();
    await receivers.closeAll();
  });

  test('a 410 answer disables the endpoint (no retries) and e-mails the merchant; re-enabling resumes delivery', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 410, body: 'gone' });
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    const delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'FAILED');
    assert.equal(delivery.attemptCount, 1);
    const disabled = await endpointOf(context, owner, endpoint.id);
    assert.equal(disabled.status, 'DISABLED');
    assert.equal(disabled.disabledReason, 'GONE');
    const notices = await merchantEmails(owner.id, endpoint.id);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.template, 'webhook_endpoint_disabled');
    assert.match(notices[0]?.to ?? '', /^merchant-.*@example\.com$/);
    assert.match(notices[0]?.text ?? '', /410/);
    assert.equal(notices[0]?.status, 'stored', 'without SMTP the e-mail stays in the sandbox inbox');

    context.clock.advance(3_600_000);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1, 'no retry after 410');
    const ignored = await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1, 'a disabled endpoint receives nothing');
    assert.deepEqual(await deliveriesOf(context, owner, `eventId=${ignored.id}`), []);
    const refused = await context.request({ method: 'POST', url: `/v1/events/${ignored.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: endpoint.id } });
    assert.equal(refused.statusCode, 409);

    hooks.answer = () => ({ status: 200 });
    const enabled = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}`, apiKey: owner.apiKey, body: { status: 'ENABLED' } });
    assert.equal(enabled.statusCode, 200, enabled.body);
    assert.equal(json<{ data: { status: string; disabledReason?: string } }>(enabled).data.disabledReason, undefined);
    await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 2);
  });

  test('a 3xx answer is a failure and the redirect is not followed', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    await createEndpoint(context, owner, { url: hooks.url('/start') });
    hooks.answer = (request) => (request.path === '/start' ? { status: 302, headers: { location: hooks.url('/redirected') } } : { status: 200 });
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    const delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.attempts[0]?.outcome, 'FAILED');
    assert.equal(delivery.attempts[0]?.statusCode, 302);
    assert.match(delivery.attempts[0]?.error ?? '', /redirects are not followed/);
    assert.deepEqual(
      hooks.requests.map((request) => request.path),
      ['/start'],
    );
  });

  test('an answer slower than the timeout is a failure with no status code', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 200, delayMs: timeoutMs * 4 });
    const event = await emitEvent(context, owner);
    const started = Date.now();
    await context.drainJobs();
    const elapsed = Date.now() - started;
    const delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'PENDING');
    assert.equal(delivery.attempts[0]?.statusCode, null);
    assert.match(delivery.attempts[0]?.error ?? '', /^timeout/);
    assert.ok((delivery.attempts[0]?.latencyMs ?? 0) >= timeoutMs - 20, `latency ${delivery.attempts[0]?.latencyMs} ≈ the timeout`);
    assert.ok(elapsed < timeoutMs * 4, 'the worker did not wait for the slow answer');
  });

  test('FRAUD_REPORTED is delivered only when the operator enabled it for the merchant', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    const fraud = { pageId: 'page_1', clientReferenceId: 'order-9', fraudReportId: 'pay_1', fraudReason: 'card reported stolen' };
    const hidden = await emitEvent(context, owner, { type: 'FRAUD_REPORTED', data: fraud });
    await context.drainJobs();
    assert.equal(hooks.requests.length, 0);
    assert.deepEqual(await deliveriesOf(context, owner, `eventId=${hidden.id}`), []);
    assert.equal((await context.request({ method: 'GET', url: `/v1/events/${hidden.id}`, apiKey: owner.apiKey })).statusCode, 200, 'the event exists either way');
    assert.equal((await context.request({ method: 'POST', url: `/v1/events/${hidden.id}/redeliver`, apiKey: owner.apiKey, body: { endpointId: endpoint.id } })).statusCode, 409);

    const enabled = await context.admin('POST', `/admin/v1/merchants/${owner.id}/settings`, { fraudReportWebhooksEnabled: true });
    assert.equal(enabled.statusCode, 200, enabled.body);
    const shown = await emitEvent(context, owner, { type: 'FRAUD_REPORTED', data: fraud });
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1);
    const verified = assertVerified(hooks.requests[0] ?? assert.fail('no request'), endpoint.secret);
    assert.equal(verified.id, shown.id);
    assert.equal(verified.type, 'FRAUD_REPORTED');
    assert.deepEqual(verified.data, fraud);
  });

  test('an endpoint failing for 3 days gets a warning e-mail, for 5 days it is disabled (and e-mailed)', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 500, body: 'still down' });
    const start = context.clock.now().getTime();
    await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal((await endpointOf(context, owner, endpoint.id)).failingSince, start);
    assert.deepEqual(await merchantEmails(owner.id, endpoint.id), []);

    context.clock.set(start + 2 * 86_400_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    assert.deepEqual(await merchantEmails(owner.id, endpoint.id), [], 'no warning before 3 days');

    context.clock.set(start + 3 * 86_400_000 + 60_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    const warnings = await merchantEmails(owner.id, endpoint.id);
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0]?.template, 'webhook_endpoint_failing');
    assert.match(warnings[0]?.subject ?? '', /failing/);
    assert.ok(warnings[0]?.text.includes(endpoint.id));
    assert.equal((await endpointOf(context, owner, endpoint.id)).status, 'ENABLED');

    context.clock.set(start + 4 * 86_400_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal((await merchantEmails(owner.id, endpoint.id)).length, 1, 'one warning only');

    context.clock.set(start + 5 * 86_400_000 + 60_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    const status = await endpointOf(context, owner, endpoint.id);
    assert.equal(status.status, 'DISABLED');
    assert.equal(status.disabledReason, 'FAILING');
    const all = await merchantEmails(owner.id, endpoint.id);
    assert.deepEqual(all.map((email) => email.template).sort(), ['webhook_endpoint_disabled', 'webhook_endpoint_failing']);
    assert.ok(all.every((email) => email.html.includes('<!doctype html>') && email.text.length > 0));
  });

  test('a success in between resets the failure streak', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 500 });
    const start = context.clock.now().getTime();
    await emitEvent(context, owner);
    await context.drainJobs();
    hooks.answer = () => ({ status: 200 });
    context.clock.set(start + 2 * 86_400_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    assert.equal((await endpointOf(context, owner, endpoint.id)).failingSince, undefined);
    hooks.answer = () => ({ status: 500 });
    context.clock.set(start + 4 * 86_400_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    context.clock.set(start + 6 * 86_400_000);
    await emitEvent(context, owner);
    await context.drainJobs();
    const status = await endpointOf(context, owner, endpoint.id);
    assert.equal(status.status, 'ENABLED', 'failing for 2 days only, not 6');
    assert.equal(status.failingSince, start + 4 * 86_400_000);
  });

  test('deleting an endpoint stops its pending retries; its deliveries stay listed', async () => {
    const owner = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    hooks.answer = () => ({ status: 500 });
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    const deleted = await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${endpoint.id}`, apiKey: owner.apiKey });
    assert.equal(deleted.statusCode, 200, deleted.body);
    context.clock.advance(10_000);
    await context.drainJobs();
    assert.equal(hooks.requests.length, 1);
    const delivery = await onlyDelivery(context, owner, event.id);
    assert.equal(delivery.status, 'FAILED');
    assert.match(delivery.lastError ?? '', /deleted/);
  });

  test("another merchant's event, endpoint and delivery ids answer 404", async () => {
    const owner = await context.createMerchant();
    const stranger = await context.createMerchant();
    const hooks = await receivers.start();
    const endpoint = await createEndpoint(context, owner, { url: hooks.url() });
    const event = await emitEvent(context, owner);
    await context.drainJobs();
    const delivery = await onlyDelivery(context, owner, event.id);
    for (const [method, url] of [
      ['GET', `/v1/events/${event.id}`],
      ['GET', `/v1/webhook_endpoints/${endpoint.id}`],
      ['DELETE', `/v1/webhook_endpoints/${endpoint.id}`],
      ['POST', `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`],
      ['POST', `/v1/events/${event.id}/redeliver`],
      ['GET', `/v1/webhook_deliveries/${delivery.id}`],
    ] as const) {
      const response = await context.request({ method, url, apiKey: stranger.apiKey });
      assert.equal(response.statusCode, 404, `${method} ${url}: ${response.body}`);
      assert.equal(json<{ errorCode: string }>(response).errorCode, 'NOT_FOUND');
    }
    assert.deepEqual(await deliveriesOf(context, stranger, `eventId=${event.id}`), []);
    assert.equal((await context.request({ method: 'GET', url: `/v1/webhook_deliveries/${delivery.id}`, apiKey: owner.apiKey })).statusCode, 200);
  });
});
