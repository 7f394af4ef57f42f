import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { type WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { closeTestEventSuite, createEndpoint, deliveriesOf, openTestEventSuite, testEventCalls } from '../../helpers/webhooks.ts';

describe('POST /v1/webhook_endpoints/:id/test: refused input and state', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;

  before(async () => ({ context, merchant, receiver } = await openTestEventSuite()));
  after(async () => closeTestEventSuite(context, receiver));

  const { sendTest, sent } = testEventCalls(() => context);

  test('validation: eventType is required, a known type, and one the endpoint receives', async () => {
    const endpoint = await createEndpoint(context, merchant, { url: receiver.url(), enabledEvents: ['PAYMENT_EXPIRED'] });
    const cases: Array<[unknown, string]> = [
      [{}, 'eventType is required'],
      [{ eventType: 'PAYMENT_EXPLODED' }, 'eventType'],
      [{ eventType: 'PAYMENT_EXPIRED', data: {} }, 'data is not a recognised field'],
      [{ eventType: 42 }, 'eventType'],
      [{ eventType: 'PAYMENT_SUCCEEDED' }, 'eventType must be one of the event types the endpoint receives (PAYMENT_EXPIRED)'],
    ];
    for (const [body, message] of cases) {
      assertError(await sendTest(merchant, endpoint.id, body), 400, 'WRONG_PARAMETER', message);
    }
    assertError(await sendTest(merchant, endpoint.id, 'not json'), 400, 'WRONG_PARAMETER');
    assert.deepEqual(await deliveriesOf(context, merchant, `endpointId=${endpoint.id}`), [], 'nothing was sent');
  });

  test('state: a disabled endpoint is 409; FRAUD_REPORTED needs the operator to enable fraud webhooks', async () => {
    const endpoint = await createEndpoint(context, merchant, { url: receiver.url() });
    await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}`, apiKey: merchant.apiKey, body: { status: 'DISABLED' } });
    assertError(await sendTest(merchant, endpoint.id, { eventType: 'PAYMENT_EXPIRED' }), 409, 'INVALID_STATE', 'enable it first');
    await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}`, apiKey: merchant.apiKey, body: { status: 'ENABLED' } });

    assertError(await sendTest(merchant, endpoint.id, { eventType: 'FRAUD_REPORTED' }), 409, 'INVALID_STATE', 'FRAUD_REPORTED webhooks are not enabled');
    const enabled = await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true });
    assert.equal(enabled.statusCode, 200, enabled.body);
    const { event } = await sent(await sendTest(merchant, endpoint.id, { eventType: 'FRAUD_REPORTED' }));
    assert.deepEqual(Object.keys(event.data).sort(), ['clientReferenceId', 'fraudReason', 'fraudReportId', 'pageId']);
    assert.equal(event.data.fraudReportId, 'pay_test_0000000000000000000000000000000');
    await context.drainJobs();
  });
});
