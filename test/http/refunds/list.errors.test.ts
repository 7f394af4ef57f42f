import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createRefund, openRefundListSuite, paidPage, refundLists, type RefundBody, type RefundList } from '../../helpers/refunds.ts';

describe('GET /v1/refunds: bad cursors and input', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let pageA: string;
  let pageB: string;
  let madeOnA: RefundBody[] = [];

  before(async () => ({ context, merchant, other, pageA, pageB, madeOnA } = await openRefundListSuite()));
  after(async () => context.close());

  const list = refundLists(() => ({ context, merchant }));

  test('a cursor from another filter, a foreign refund id or garbage → 400 WRONG_PARAMETER (startingAfter)', async () => {
    const firstPage = json<{ data: RefundList }>(await list(`?paymentPageId=${pageA}&limit=1`)).data;
    assert.ok(firstPage.nextCursor);
    const unfiltered = json<{ data: RefundList }>(await list('?limit=1')).data;
    assert.ok(unfiltered.nextCursor);
    const foreignPage = await paidPage(context, other, { amount: 100 });
    const foreign = await createRefund(context, other, { paymentPageId: foreignPage.id });
    for (const query of [
      `?paymentPageId=${pageB}&startingAfter=${encodeURIComponent(firstPage.nextCursor)}`,
      `?startingAfter=${encodeURIComponent(firstPage.nextCursor)}`,
      `?paymentPageId=${pageA}&startingAfter=${encodeURIComponent(unfiltered.nextCursor)}`,
      `?paymentPageId=${pageB}&startingAfter=${madeOnA[0]?.id}`,
      `?startingAfter=${foreign.id}`,
      '?startingAfter=garbage',
    ]) {
      const response = await list(query);
      assert.equal(response.statusCode, 400, query);
      assert.equal(json(response).errorCode, 'WRONG_PARAMETER');
      assert.match(String(json(response).errorMessage), /^startingAfter /, query);
    }
  });

  test('bad list input → 400 naming the field', async () => {
    for (const [query, field] of [
      ['?limit=0', 'limit'],
      ['?limit=101', 'limit'],
      ['?limit=x', 'limit'],
      ['?paymentPageId=', 'paymentPageId'],
      [`?paymentPageId=${'p'.repeat(101)}`, 'paymentPageId'],
      ['?startingAfter=', 'startingAfter'],
      ['?livemode=maybe', 'livemode'],
      ['?status=PENDING', 'status'],
    ] as const) {
      const response = await list(query);
      assert.equal(response.statusCode, 400, query);
      assert.equal(json(response).errorCode, 'WRONG_PARAMETER');
      assert.ok(String(json(response).errorMessage).includes(field), `${query}: ${String(json(response).errorMessage)}`);
    }
  });
});
