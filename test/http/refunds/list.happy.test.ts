import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { openRefundListSuite, refundLists, type RefundBody, type RefundList } from '../../helpers/refunds.ts';

describe('GET /v1/refunds: newest first, paged, filtered by payment page', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let pageA: string;
  let pageB: string;
  let madeOnA: RefundBody[] = [];
  let madeOnB: RefundBody;

  before(async () => ({ context, merchant, other, pageA, pageB, madeOnA, madeOnB } = await openRefundListSuite()));
  after(async () => context.close());

  const list = refundLists(() => ({ context, merchant }));

  test('newest first, paged with limit and startingAfter (nextCursor or a refund id), filtered by paymentPageId', async () => {
    const all = json<{ data: RefundList }>(await list('?livemode=false')).data;
    assert.deepEqual(all.refunds.map((refund) => refund.id), [...madeOnA, madeOnB].map((refund) => refund.id).reverse());
    assert.equal(all.hasMore, false);
    assert.equal(all.nextCursor, undefined);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let round = 0; round < 5; round += 1) {
      const page = json<{ data: RefundList }>(await list(`?paymentPageId=${pageA}&limit=2${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`)).data;
      seen.push(...page.refunds.map((refund) => refund.id));
      assert.ok(page.refunds.every((refund) => refund.paymentPageId === pageA));
      if (!page.hasMore) {
        break;
      }
      assert.ok(page.nextCursor);
      cursor = page.nextCursor;
    }
    assert.deepEqual(seen, [...madeOnA].reverse().map((refund) => refund.id));
    const third = madeOnA[2];
    assert.ok(third);
    const afterId = json<{ data: RefundList }>(await list(`?paymentPageId=${pageA}&startingAfter=${third.id}`)).data;
    assert.deepEqual(afterId.refunds.map((refund) => refund.id), [madeOnA[1]?.id, madeOnA[0]?.id]);
    assert.deepEqual(json<{ data: RefundList }>(await list(`?paymentPageId=${pageB}`)).data.refunds.map((refund) => refund.id), [madeOnB.id]);
    assert.deepEqual(json<{ data: RefundList }>(await list(`?paymentPageId=${pageA}`, other)).data, { refunds: [], hasMore: false }, "another merchant sees none of them");
  });
});
