import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { closeDisputeSuite, disputeCalls, disputeCard, openDisputeSuite, type Dispute } from '../../helpers/disputes.ts';

describe('GET /v1/disputes: paging and cursors', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  const { paid, disputed } = disputeCalls(() => ({ context, merchant }));

  before(async () => {
    ({ context, merchant, other } = await openDisputeSuite());
    // Two disputes to page through.
    for (const amount of [4_200, 1_500]) {
      await disputed(await paid(disputeCard, amount));
    }
  });
  after(async () => closeDisputeSuite(context));

  test('lists page newest first with a cursor like GET /v1/events; a foreign or forged cursor is 400', async () => {
    const all = await context.request({ method: 'GET', url: '/v1/disputes?livemode=false', apiKey: merchant.apiKey });
    const everything = json<{ data: { disputes: Dispute[] } }>(all).data.disputes;
    assert.ok(everything.length >= 2);
    const first = await context.request({ method: 'GET', url: '/v1/disputes?limit=1', apiKey: merchant.apiKey });
    const firstPage = json<{ data: { disputes: Dispute[]; hasMore: boolean; nextCursor?: string } }>(first).data;
    assert.equal(firstPage.disputes.length, 1);
    assert.equal(firstPage.hasMore, true);
    assert.ok(firstPage.nextCursor);
    assert.equal(firstPage.disputes[0]?.id, everything[0]?.id, 'newest first');
    const second = await context.request({ method: 'GET', url: `/v1/disputes?limit=1&startingAfter=${encodeURIComponent(firstPage.nextCursor)}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { disputes: Dispute[] } }>(second).data.disputes[0]?.id, everything[1]?.id);
    const byId = await context.request({ method: 'GET', url: `/v1/disputes?limit=1&startingAfter=${everything[0]?.id}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { disputes: Dispute[] } }>(byId).data.disputes[0]?.id, everything[1]?.id, 'a dispute id works as the cursor');

    const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
    const eventCursor = json<{ data: { nextCursor?: string } }>(events).data.nextCursor;
    assert.ok(eventCursor);
    for (const cursor of [eventCursor, `${firstPage.nextCursor}x`, everything[0]?.id.replace(/.$/, (last) => (last === '0' ? '1' : '0')) ?? '']) {
      const response = await context.request({ method: 'GET', url: `/v1/disputes?startingAfter=${encodeURIComponent(cursor)}`, apiKey: merchant.apiKey });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<ErrorBody>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<ErrorBody>(response).errorMessage, /startingAfter/);
    }
    // Another merchant's dispute id is not a cursor for this merchant.
    const foreign = await context.request({ method: 'GET', url: `/v1/disputes?startingAfter=${everything[0]?.id}`, apiKey: other.apiKey });
    assert.equal(foreign.statusCode, 400, foreign.body);
  });
});
