import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { openEventListSuite, type CreatedEvent, type EventBody } from '../../helpers/events.ts';

describe('GET /v1/events/:id: ownership and modes', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: CreatedEvent[];

  before(async () => ({ context, merchant, other, created } = await openEventListSuite()));
  after(async () => context.close());

  test('GET /v1/events/:id reads one event; mode mismatch and other merchants answer 404', async () => {
    const liveEvent = created.find((event) => event.livemode);
    assert.ok(liveEvent);
    const response = await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200);
    const body = json<{ data: EventBody }>(response).data;
    assert.equal(body.id, liveEvent.id);
    assert.equal(body.livemode, true);
    assert.equal(body.type, liveEvent.type);
    assertError(await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}?livemode=false`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: '/v1/events/evt_nope', apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
  });
});
