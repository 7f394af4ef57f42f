import assert from 'node:assert/strict';
import { recordEvent, type EventType, type RecordedEvent } from '../../src/modules/events/record.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';
import { WebhookReceiver } from './webhook-receiver.ts';

export interface CreatedEndpoint {
  id: string;
  url: string;
  secret: string;
  enabledEvents: string[];
  livemode: boolean;
  status: string;
}

export async function createEndpoint(context: TestContext, merchant: TestMerchant, body: Record<string, unknown>, livemode = false): Promise<CreatedEndpoint> {
  const response = await context.request({ method: 'POST', url: `/v1/webhook_endpoints?livemode=${livemode}`, apiKey: merchant.apiKey, body });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: CreatedEndpoint }>(response).data;
}

/** Records an event the way every module does: inside a transaction, with the outbox job. */
export async function emitEvent(
  context: TestContext,
  merchant: { id: string },
  options: { type?: EventType; livemode?: boolean; data?: Record<string, unknown> } = {},
): Promise<RecordedEvent> {
  return context.database.transaction((tx) =>
    recordEvent(tx, context.clock.now(), {
      merchantId: merchant.id,
      livemode: options.livemode ?? false,
      type: options.type ?? 'PAYMENT_SUCCEEDED',
      data: options.data ?? { pageId: 'page_test', clientReferenceId: 'order-1', amount: 1250, currency: 'USD' },
    }),
  );
}

export interface DeliveryBody {
  id: string;
  eventId: string;
  endpointId: string;
  status: string;
  attemptCount: number;
  nextAttemptAt: number | null;
  lastStatusCode: number | null;
  lastError: string | null;
  attempts: Array<{ number: number; outcome: string; statusCode: number | null; latencyMs: number; responseBody: string | null; error: string | null; attemptedAt: number }>;
}

export async function deliveriesOf(context: TestContext, merchant: TestMerchant, query: string): Promise<DeliveryBody[]> {
  const response = await context.request({ method: 'GET', url: `/v1/webhook_deliveries?${query}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: { deliveries: DeliveryBody[] } }>(response).data.deliveries;
}

export async function onlyDelivery(context: TestContext, merchant: TestMerchant, eventId: string): Promise<DeliveryBody> {
  const deliveries = await deliveriesOf(context, merchant, `eventId=${eventId}`);
  assert.equal(deliveries.length, 1, `one delivery for ${eventId}`);
  const [delivery] = deliveries;
  assert.ok(delivery);
  return delivery;
}

/** An endpoint as the API reads it (status, failure streak, …). */
export async function endpointOf(context: TestContext, merchant: TestMerchant, endpointId: string): Promise<Record<string, unknown>> {
  const response = await context.request({ method: 'GET', url: `/v1/webhook_endpoints/${endpointId}`, apiKey: merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  return json<{ data: Record<string, unknown> }>(response).data;
}

/** A webhook-endpoint suite's `before`: a test context with a sandbox-only merchant and a live-enabled one. */
export async function openWebhookEndpointSuite(): Promise<{ context: TestContext; sandboxOnly: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext();
  return { context, sandboxOnly: await context.createMerchant(), live: await context.createMerchant({ live: true }) };
}

/** POST and GET as a merchant, for webhook-endpoint tests: `current` is read at each call (the context is set in `before`). */
export function merchantCalls(current: () => TestContext) {
  return {
    post: (merchant: TestMerchant, url: string, body?: unknown, headers?: Record<string, string>) =>
      current().request({ method: 'POST', url, apiKey: merchant.apiKey, ...(body !== undefined ? { body } : {}), ...(headers ? { headers } : {}) }),
    get: (merchant: TestMerchant, url: string) => current().request({ method: 'GET', url, apiKey: merchant.apiKey }),
  };
}

/** The answer of POST /v1/webhook_endpoints/:id/test. */
export interface TestEventAnswer {
  event: { id: string; type: string; createdAt: number; livemode: boolean; data: Record<string, unknown> };
  delivery: DeliveryBody & { eventType: string; livemode: boolean };
}

/** The `before` of the POST /v1/webhook_endpoints/:id/test suites: a test context with one sandbox merchant, and a receiver for the deliveries. */
export async function openTestEventSuite(): Promise<{ context: TestContext; merchant: TestMerchant; receiver: WebhookReceiver }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), receiver: await WebhookReceiver.start() };
}

/** Their `after`. */
export async function closeTestEventSuite(context: TestContext, receiver: WebhookReceiver): Promise<void> {
  await context.close();
  await receiver.close();
}

/**
 * POST /v1/webhook_endpoints/:id/test as `target` (`sendTest`, the answer unchecked) and `sent` (200 and
 * SUCCEEDED asserted, the data answered); `current` is read at each call.
 */
export function testEventCalls(current: () => TestContext) {
  const sendTest = (target: TestMerchant, endpointId: string, body: unknown, query = '', headers?: Record<string, string>) =>
    current().request({ method: 'POST', url: `/v1/webhook_endpoints/${endpointId}/test${query}`, apiKey: target.apiKey, body, ...(headers ? { headers } : {}) });
  async function sent(response: Awaited<ReturnType<typeof sendTest>>): Promise<TestEventAnswer> {
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ status: string; data: TestEventAnswer }>(response);
    assert.equal(body.status, 'SUCCEEDED');
    return body.data;
  }
  return { sendTest, sent };
}
