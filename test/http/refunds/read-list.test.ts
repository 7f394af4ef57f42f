import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createRefund, paidPage, readRefund, type RefundBody } from '../../helpers/refunds.ts';

type List = { refunds: RefundBody[]; hasMore: boolean; nextCursor?: string };

describe('GET /v1/refunds/:id and GET /v1/refunds', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let pageA: string;
  let pageB: string;
  const madeOnA: RefundBody[] = [];
  let madeOnB: RefundBody;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    pageA = (await paidPage(context, merchant, { amount: 1000 })).id;
    pageB = (await paidPage(context, merchant, { amount: 1000 })).id;
    for (let index = 0; index < 5; index += 1) {
      context.clock.advance(10);
      madeOnA.push(await createRefund(context, merchant, { paymentPageId: pageA, amount: 100 + index }));
    }
    context.clock.advance(10);
    madeOnB = await createRefund(context, merchant, { paymentPageId: pageB, amount: 50 });
  });
  after(async () => context.close());

  async function list(query: string, as: TestMerchant = merchant) {
    return context.request({ method: 'GET', url: `/v1/refunds${query}`, apiKey: as.apiKey });
  }

  test('read by id; another merchant, the other mode or an unknown id → 404', async () => {
    const first = madeOnA[0];
    assert.ok(first);
    assert.deepEqual(await readRefund(context, merchant, first.id), first);
    const scoped = await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(scoped.statusCode, 200);
    for (const [url, as] of [[`/v1/refunds/${first.id}`, other], [`/v1/refunds/re_00000000000000000000000000000000zz`, merchant]] as const) {
      const missing = await context.request({ method: 'GET', url, apiKey: as.apiKey });
      assert.equal(missing.statusCode, 404, url);
      assert.equal(json(missing).errorCode, 'NOT_FOUND');
    }
    const live = await context.createMerchant({ live: true });
    const otherMode = await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(otherMode.statusCode, 403, 'a sandbox-only merchant cannot ask for live');
    assert.equal((await context.request({ method: 'GET', url: `/v1/refunds/${first.id}?livemode=false`, apiKey: live.apiKey })).statusCode, 404);
  });

  test('newest first, paged with limit and startingAfter (nextCursor or a refund id), filtered by paymentPageId', async () => {
    const all = json<{ data: List }>(await list('?livemode=false')).data;
    assert.deepEqual(all.refunds.map((refund) => refund.id), [...madeOnA, madeOnB].map((refund) => refund.id).reverse());
    assert.equal(all.hasMore, false);
    assert.equal(all.nextCursor, undefined);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let round = 0; round < 5; round += 1) {
      const page = json<{ data: List }>(await list(`?paymentPageId=${pageA}&limit=2${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`)).data;
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
    const afterId = json<{ data: List }>(await list(`?paymentPageId=${pageA}&startingAfter=${third.id}`)).data;
    assert.deepEqual(afterId.refunds.map((refund) => refund.id), [madeOnA[1]?.id, madeOnA[0]?.id]);
    assert.deepEqual(json<{ data: List }>(await list(`?paymentPageId=${pageB}`)).data.refunds.map((refund) => refund.id), [madeOnB.id]);
    assert.deepEqual(json<{ data: List }>(await list(`?paymentPageId=${pageA}`, other)).data, { refunds: [], hasMore: false }, "another merchant sees none of them");
  });

  test('a cursor from another filter, a foreign refund id or garbage → 400 WRONG_PARAMETER (startingAfter)', async () => {
    const firstPage = json<{ data: List }>(await list(`?paymentPageId=${pageA}&limit=1`)).data;
    assert.ok(firstPage.nextCursor);
    const unfiltered = json<{ data: List }>(await list('?limit=1')).data;
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
