import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { closeDisputeSuite, openDisputeListSuite, type Dispute } from '../../helpers/disputes.ts';

describe('GET /v1/disputes: bad cursors', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let everything: Dispute[] = [];

  before(async () => ({ context, merchant, other, everything } = await openDisputeListSuite()));
  after(async () => closeDisputeSuite(context));

  test('a cursor of another list, a forged cursor or id → 400 WRONG_PARAMETER naming startingAfter; another merchant’s dispute id → 400', async () => {
    const first = await context.request({ method: 'GET', url: '/v1/disputes?limit=1', apiKey: merchant.apiKey });
    const nextCursor = json<{ data: { nextCursor?: string } }>(first).data.nextCursor;
    assert.ok(nextCursor);
    const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
    const eventCursor = json<{ data: { nextCursor?: string } }>(events).data.nextCursor;
    assert.ok(eventCursor);
    for (const cursor of [eventCursor, `${nextCursor}x`, everything[0]?.id.replace(/.$/, (last) => (last === '0' ? '1' : '0')) ?? '']) {
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
