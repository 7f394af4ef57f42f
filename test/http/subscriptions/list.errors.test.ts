import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { openSubscriptionListSuite, subscriptionLists, type SubscriptionBody } from '../../helpers/subscriptions.ts';

describe('GET /v1/subscriptions: bad cursors and filters', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: SubscriptionBody[] = [];

  before(async () => ({ context, merchant, other, created } = await openSubscriptionListSuite()));
  after(async () => context.close());

  const { list, ids } = subscriptionLists(() => ({ context, merchant }));

  test('a cursor of another filter set, mode, list or merchant, or a foreign id → 400 WRONG_PARAMETER naming startingAfter', async () => {
    const cursor = encodeURIComponent((await list('limit=2')).nextCursor ?? '');
    const theirCursor = encodeURIComponent((await list('limit=1&livemode=false', other.apiKey)).nextCursor ?? 'none');
    const paymentPagesCursor = encodeURIComponent(json<{ data: { nextCursor?: string } }>(await context.request({ method: 'GET', url: '/v1/payment_pages?limit=1', apiKey: merchant.apiKey })).data.nextCursor ?? 'none');
    const theirId = (await list('limit=1', other.apiKey)).subscriptions[0]?.id ?? '';
    for (const query of [`startingAfter=${cursor}&livemode=false`, `startingAfter=${cursor}&status=ACTIVE`, `startingAfter=${paymentPagesCursor}`, `startingAfter=${theirCursor}`, `startingAfter=${theirId}`, 'startingAfter=sub_x']) {
      assertError(await context.request({ method: 'GET', url: `/v1/subscriptions?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    }
    assert.deepEqual(ids((await list(`startingAfter=${cursor}&limit=2`)).subscriptions), ids(created.slice(2, 4)));
  });

  test('bad filter values → 400 WRONG_PARAMETER naming the field', async () => {
    for (const [query, field] of [
      ['status=ENDED', 'status'],
      ['limit=101', 'limit'],
      [`customerId=${'c'.repeat(101)}`, 'customerId'],
      ['livemode=1x', 'livemode'],
      ['createdFrom=1', 'createdFrom'],
    ] as const) {
      assertError(await context.request({ method: 'GET', url: `/v1/subscriptions?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', field);
    }
  });
});
