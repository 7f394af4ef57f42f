import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertVerified, WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { createEndpoint } from '../../helpers/webhooks.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createPaymentPage } from './fixtures.ts';
import escapeStringRegexp from 'escape-string-regexp';

/**
 * The developer screens' actions (API keys, PII key, webhooks) go through the same services as the
 * API; the other screens' actions are in actions.test.ts.
 */
describe('dashboard developer actions go through the same services as the API', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  test('API keys: created and shown once, usable at once, revoked from the dashboard', async () => {
    await client.get('/dashboard/sandbox/developers/api-keys');
    const invalid = await client.post('/dashboard/sandbox/developers/api-keys', { name: '   ' });
    assert.equal(invalid.statusCode, 400);
    assert.match(textOf(invalid.body), /Give the key a name/);
    const posted = await client.post('/dashboard/sandbox/developers/api-keys', { name: 'CI server' });
    assert.equal(posted.statusCode, 303, 'post/redirect/get: a reload does not create a second key');
    assert.equal(posted.headers.location, '/dashboard/sandbox/developers/api-keys');
    assert.doesNotMatch(String(posted.headers.location), /sk_/);
    const created = await client.get(String(posted.headers.location));
    const key = /<code class="secret" id="new-api-key">(sk_[^<]+)<\/code>/.exec(created.body)?.[1];
    assert.ok(key, 'the new key is shown');
    assert.match(textOf(created.body), /Copy it now: it is shown only this once/);
    // The sealed flash cookie carries the key to that one page; it is bound to the session.
    const other = await signedInClient(context, merchant);
    const stolen = await other.get('/dashboard/sandbox/developers/api-keys');
    assert.doesNotMatch(stolen.body, /id="new-api-key"/);
    assert.equal((await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: key })).statusCode, 200);

    const listed = await client.get('/dashboard/sandbox/developers/api-keys');
    assert.doesNotMatch(listed.body, new RegExp(escapeStringRegexp(key)), 'the key is not shown again');
    assert.match(textOf(listed.body), /CI server sk_…\S{4} /);
    const keyId = /action="\/dashboard\/sandbox\/developers\/api-keys\/(key_[0-9a-z]+)\/revoke"[^]*?aria-describedby="key-\1"/.exec(listed.body);
    assert.ok(keyId);
    const ciKey = (await context.platform.services.merchants.listApiKeys(merchant.id)).find((candidate) => candidate.name === 'CI server');
    assert.ok(ciKey);
    const revoked = await client.post(`/dashboard/sandbox/developers/api-keys/${ciKey.id}/revoke`, { confirmed: '1' });
    assert.equal(revoked.headers.location, '/dashboard/sandbox/developers/api-keys?notice=api-key-revoked');
    assert.equal((await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: key })).statusCode, 401);
    const lastUsed = textOf((await client.get('/dashboard/sandbox/developers/api-keys')).body);
    assert.match(lastUsed, /CI server sk_…\S{4} \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC \d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC Revoked/);
  });

  test('PII key: hidden until revealed, rotated, with a decrypt example', async () => {
    const hidden = await client.get('/dashboard/sandbox/developers/pii-key');
    assert.match(textOf(hidden.body), /hidden: use Reveal keys/);
    const [active] = await context.platform.services.merchants.revealPiiKeys(merchant.id);
    assert.ok(active);
    assert.doesNotMatch(hidden.body, new RegExp(escapeStringRegexp(active.key)));
    const revealed = await client.post('/dashboard/sandbox/developers/pii-key/reveal');
    assert.equal(revealed.statusCode, 200);
    assert.match(revealed.body, new RegExp(`<code class="secret">${escapeStringRegexp(active.key)}</code>`));
    assert.match(textOf(revealed.body), new RegExp(`compactDecrypt.*'${active.id}': Buffer\\.from\\('${escapeStringRegexp(active.key)}', 'base64url'\\)`));

    const rotated = await client.post('/dashboard/sandbox/developers/pii-key/rotate', { confirmed: '1' });
    assert.equal(rotated.headers.location, '/dashboard/sandbox/developers/pii-key?notice=pii-key-rotated');
    const keys = await context.platform.services.merchants.revealPiiKeys(merchant.id);
    assert.equal(keys.length, 2);
    assert.equal(keys.find((key) => key.active)?.id === active.id, false, 'a new key is active');
    assert.match(textOf((await client.get(String(rotated.headers.location))).body), /A new PII key is active/);
  });

  test('webhooks: add an endpoint (secret shown), reveal and rotate the secret, events, disable, the event log and redeliver', async () => {
    await client.get('/dashboard/sandbox/developers/webhooks');
    const refused = await client.post('/dashboard/sandbox/developers/webhooks', { url: 'ftp://example.com/hook' });
    assert.equal(refused.statusCode, 400);
    assert.match(refused.body, /value="ftp:\/\/example\.com\/hook"/, 'the form keeps what was typed');
    const posted = await client.post('/dashboard/sandbox/developers/webhooks', { url: 'http://127.0.0.1:9/hooks', description: 'Local test', enabledEvents: 'PAYMENT_EXPIRED' });
    assert.equal(posted.statusCode, 303);
    const created = await client.get(String(posted.headers.location));
    assert.match(textOf(created.body), /The webhook endpoint was added/);
    const secret = /id="webhook-secret">(whsec_[^<]+)</.exec(created.body)?.[1];
    assert.ok(secret);
    const [endpoint] = await context.platform.services.webhooks.listEndpoints(await context.platform.services.merchants.getMerchant(merchant.id), false);
    assert.ok(endpoint);
    assert.deepEqual(endpoint.enabledEvents, ['PAYMENT_EXPIRED']);
    const base = `/dashboard/sandbox/developers/webhooks/${endpoint.id}`;

    const detail = await client.get(base);
    assert.doesNotMatch(detail.body, new RegExp(escapeStringRegexp(secret)));
    assert.match(detail.body, /<input type="checkbox" name="enabledEvents" value="PAYMENT_EXPIRED" checked=""/);
    const revealed = await client.post(`${base}/reveal`);
    assert.match(revealed.body, new RegExp(`id="webhook-secret">${escapeStringRegexp(secret)}<`));
    const rotation = await client.post(`${base}/rotate`, { confirmed: '1' });
    assert.equal(rotation.headers.location, `${base}?notice=secret-rotated`);
    const rotated = await client.get(String(rotation.headers.location));
    const newSecret = /id="webhook-secret">(whsec_[^<]+)</.exec(rotated.body)?.[1];
    assert.ok(newSecret);
    assert.notEqual(newSecret, secret);
    assert.match(textOf(rotated.body), /Previous secret still signs until/);
    assert.doesNotMatch((await client.get(base)).body, new RegExp(escapeStringRegexp(newSecret)), 'shown once');

    const events = await client.post(`${base}/events`, {});
    assert.equal(events.headers.location, `${base}?notice=endpoint-updated`);
    assert.deepEqual((await context.platform.services.webhooks.getEndpoint(await context.platform.services.merchants.getMerchant(merchant.id), false, endpoint.id)).enabledEvents, ['*']);

    const page = await createPaymentPage(context, merchant);
    await client.get(`/dashboard/sandbox/payment-pages/${page.id}`);
    await client.post(`/dashboard/sandbox/payment-pages/${page.id}/expire`, { confirmed: '1' });
    await context.drainJobs();
    const log = await client.get('/dashboard/sandbox/developers/events?type=PAYMENT_EXPIRED');
    const eventId = /href="\/dashboard\/sandbox\/developers\/events\/(evt_[0-9a-z]+)"/.exec(log.body)?.[1];
    assert.ok(eventId);
    const event = await client.get(`/dashboard/sandbox/developers/events/${eventId}`);
    assert.match(textOf(event.body), new RegExp(`"pageId": "${page.id}"`));
    assert.match(textOf(event.body), /Deliveries .*http:\/\/127\.0\.0\.1:9\/hooks .*1 attempt/);
    const redelivered = await client.post(`/dashboard/sandbox/developers/events/${eventId}/redeliver`, { endpointId: endpoint.id });
    assert.equal(redelivered.headers.location, `/dashboard/sandbox/developers/events/${eventId}?notice=redelivered`);
    assert.match(textOf((await client.get(String(redelivered.headers.location))).body), /The event was queued for delivery again/);

    const disabled = await client.post(`${base}/status`, { status: 'DISABLED' });
    assert.equal(disabled.headers.location, `${base}?notice=endpoint-disabled`);
    assert.match(textOf((await client.get(String(disabled.headers.location))).body), /Disabled \(MANUAL\)/);
    const refusedRedelivery = await client.post(`/dashboard/sandbox/developers/events/${eventId}/redeliver`, { endpointId: endpoint.id });
    assert.equal(refusedRedelivery.headers.location, `/dashboard/sandbox/developers/events/${eventId}?error=INVALID_STATE`);

    const deleted = await client.post(`${base}/delete`, { confirmed: '1' });
    assert.equal(deleted.headers.location, '/dashboard/sandbox/developers/webhooks?notice=endpoint-deleted');
    assert.equal((await client.get(base)).statusCode, 404);
  });
  test('webhooks: send a test event from the endpoint page (CSRF, type select, queued notice with a link, signed delivery to that endpoint only)', async () => {
    const receiver = await WebhookReceiver.start();
    try {
      const endpoint = await createEndpoint(context, merchant, { url: receiver.url('/test-target'), enabledEvents: ['PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED', 'FRAUD_REPORTED'] });
      const bystander = await createEndpoint(context, merchant, { url: receiver.url('/bystander') });
      const base = `/dashboard/sandbox/developers/webhooks/${endpoint.id}`;

      const detail = await client.get(base);
      assert.match(detail.body, new RegExp(`<form method="post" action="${escapeStringRegexp(base)}/test"`));
      const options = [...(/<select id="test-event-type" name="eventType"[^>]*>([\s\S]*?)<\/select>/.exec(detail.body)?.[1] ?? '').matchAll(/<option value="([A-Z_]+)"/g)].map((match) => match[1]);
      assert.deepEqual(options, ['PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED'], "the endpoint's types; FRAUD_REPORTED only once the operator enabled it");

      const forged = await client.post(`${base}/test`, { eventType: 'PAYMENT_EXPIRED' }, { csrf: null });
      assert.equal(forged.statusCode, 403);
      await client.get(base);
      const notReceived = await client.post(`${base}/test`, { eventType: 'ENTITLEMENT_CREATED' });
      assert.equal(notReceived.statusCode, 400);
      assert.match(textOf(notReceived.body), /eventType must be one of the event types the endpoint receives \(PAYMENT_SUCCEEDED, PAYMENT_EXPIRED, FRAUD_REPORTED\)/);
      assert.equal((await client.post(`${base}/test`, { eventType: 'PAYMENT_EXPLODED' })).statusCode, 400);
      assert.equal((await client.post(`${base}/test`, { eventType: 'FRAUD_REPORTED' })).statusCode, 409, 'FRAUD_REPORTED is not enabled for this merchant');
      const merchantRow = await context.platform.services.merchants.getMerchant(merchant.id);
      assert.equal((await context.platform.services.webhooks.listDeliveries(merchantRow, false, { endpointId: endpoint.id })).deliveries.length, 0, 'nothing was sent by refused forms');

      const posted = await client.post(`${base}/test`, { eventType: 'PAYMENT_EXPIRED' });
      assert.equal(posted.statusCode, 303);
      const location = String(posted.headers.location);
      const eventId = new RegExp(`^${escapeStringRegexp(base)}\\?notice=test-event-sent&event=(evt_test_[0-9a-z]{36})$`).exec(location)?.[1];
      assert.ok(eventId, location);
      const queued = await client.get(location);
      assert.match(textOf(queued.body), new RegExp(`Test event ${eventId} was queued for delivery to this endpoint\\. See its delivery log`));
      assert.match(queued.body, new RegExp(`<a href="/dashboard/sandbox/developers/events/${eventId}">See its delivery log</a>`));
      assert.match(textOf(queued.body), new RegExp(`Latest deliveries Created from \\(UTC day\\) to \\(UTC day\\) Filter Export CSV Pending Test PAYMENT_EXPIRED ${eventId} 0 attempts`));
      const forgedNotice = await client.get(`${base}?notice=test-event-sent&event=evt_test_%3Cscript%3E`);
      assert.doesNotMatch(textOf(forgedNotice.body), /was queued/, 'only a test event id is announced');

      await context.drainJobs();
      assert.deepEqual(receiver.requests.map((request) => request.path), ['/test-target'], 'delivered to that endpoint only');
      const [request] = receiver.requests;
      assert.ok(request);
      const verified = assertVerified(request, endpoint.secret);
      assert.equal(verified.id, eventId);
      assert.deepEqual(verified.data, { pageId: 'page_test_0000000000000000000000000000000', clientReferenceId: 'paysail-test-event' });
      assert.equal((await context.platform.services.webhooks.listDeliveries(merchantRow, false, { endpointId: bystander.id })).deliveries.length, 0);

      const log = textOf((await client.get(`/dashboard/sandbox/developers/events/${eventId}`)).body);
      assert.match(log, new RegExp(`PAYMENT_EXPIRED ${eventId} Test`));
      assert.match(log, /A test event, sent from an endpoint's page/);
      assert.match(log, /Deliveries Export CSV Succeeded Test .*\/test-target Redeliver to this endpoint 1 attempt .*Succeeded 200/);
      assert.doesNotMatch(log, /Redeliver to all subscribed endpoints/);
      assert.doesNotMatch((await client.get('/dashboard/sandbox/developers/events')).body, new RegExp(eventId), 'not in the event log');
      assert.match(textOf((await client.get(base)).body), new RegExp(`Latest deliveries Created from \\(UTC day\\) to \\(UTC day\\) Filter Export CSV Succeeded Test PAYMENT_EXPIRED ${eventId} 1 attempt`));

      const other = await context.createMerchant();
      const otherClient = await signedInClient(context, other);
      await otherClient.get('/dashboard/sandbox/developers/webhooks');
      assert.equal((await otherClient.post(`${base}/test`, { eventType: 'PAYMENT_EXPIRED' })).statusCode, 404, "another merchant's endpoint");

      await client.get(base);
      await client.post(`${base}/status`, { status: 'DISABLED' });
      const disabledPage = await client.get(base);
      assert.match(textOf(disabledPage.body), /Enable this endpoint to send it a test event/);
      assert.doesNotMatch(disabledPage.body, /name="eventType"/);
      const refused = await client.post(`${base}/test`, { eventType: 'PAYMENT_EXPIRED' });
      assert.equal(refused.statusCode, 409);
      assert.match(textOf(refused.body), /is disabled; enable it first/);
      assert.equal(receiver.requests.length, 1, 'nothing more was sent');
    } finally {
      await receiver.close();
    }
  });
});
