import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeDisputeSuite, openDisputeListSuite, type Dispute } from '../../helpers/disputes.ts';

describe('GET /v1/disputes: paging', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let everything: Dispute[] = [];

  before(async () => ({ context, merchant, everything } = await openDisputeListSuite()));
  after(async () => closeDisputeSuite(context));

  test('lists page newest first with a cursor like GET /v1/events; a dispute id works as the cursor', async () => {
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
  });
});
