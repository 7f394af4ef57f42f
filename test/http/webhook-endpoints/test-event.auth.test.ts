import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertUnauthorized } from '../../helpers/assertions.ts';
import { type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { closeTestEventSuite, createEndpoint, deliveriesOf, openTestEventSuite, testEventCalls } from '../../helpers/webhooks.ts';

describe('POST /v1/webhook_endpoints/:id/test: keys, modes, merchants', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;

  before(async () => ({ context, merchant, receiver } = await openTestEventSuite()));
  after(async () => closeTestEventSuite(context, receiver));

  const { sendTest, sent } = testEventCalls(() => context);

  test('not found: unknown, deleted, another merchant’s, or the other mode’s endpoint', async () => {
    const live = await context.createMerchant({ live: true });
    const sandboxEndpoint = await createEndpoint(context, live, { url: receiver.url() });
    const deleted = await createEndpoint(context, merchant, { url: receiver.url() });
    await context.request({ method: 'DELETE', url: `/v1/webhook_endpoints/${deleted.id}`, apiKey: merchant.apiKey });
    const body = { eventType: 'PAYMENT_EXPIRED' };

    assertError(await sendTest(merchant, 'we_0000000000000000000000000000000000', body), 404, 'NOT_FOUND');
    assertError(await sendTest(merchant, 'nope', body), 404, 'NOT_FOUND');
    assertError(await sendTest(merchant, deleted.id, body), 404, 'NOT_FOUND');
    assertError(await sendTest(merchant, sandboxEndpoint.id, body), 404, 'NOT_FOUND', sandboxEndpoint.id);
    assertError(await sendTest(live, sandboxEndpoint.id, body, '?livemode=true'), 404, 'NOT_FOUND');
    assert.deepEqual(await deliveriesOf(context, live, `endpointId=${sandboxEndpoint.id}`), [], 'nothing was sent');
    await sent(await sendTest(live, sandboxEndpoint.id, body, '?livemode=false'));
    await context.drainJobs();
  });

  test('auth: no key or a wrong key is 401; live for a sandbox-only merchant is 403', async () => {
    const endpoint = await createEndpoint(context, merchant, { url: receiver.url() });
    assertUnauthorized(await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/test`, body: { eventType: 'PAYMENT_EXPIRED' } }));
    assertUnauthorized(
      await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/test`, apiKey: `${merchant.apiKey.slice(0, -4)}AAAA`, body: { eventType: 'PAYMENT_EXPIRED' } }),
    );
    assertError(await sendTest(merchant, endpoint.id, { eventType: 'PAYMENT_EXPIRED' }, '?livemode=true'), 403, 'LIVE_MODE_NOT_ENABLED');
    assert.deepEqual(await deliveriesOf(context, merchant, `endpointId=${endpoint.id}`), []);
  });
});
