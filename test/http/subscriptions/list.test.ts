import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inArray } from 'drizzle-orm';
import { subscriptions as subscriptionRows } from '../../../src/db/schema/index.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { readSubscription, startSubscription, type SubscriptionBody } from '../../helpers/subscriptions.ts';

interface Page {
  subscriptions: SubscriptionBody[];
  hasMore: boolean;
  nextCursor?: string;
}

describe('GET /v1/subscriptions', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: SubscriptionBody[] = [];
  const referenceA = `sub-list-a-${Date.now()}`;
  const referenceB = `sub-list-b-${Date.now()}`;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    other = await context.createMerchant();
    const ids: string[] = [];
    for (let index = 0; index < 9; index += 1) {
      if (index % 2 === 0) {
        context.clock.advance(1_000);
      }
      const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH', customerReferenceId: index % 3 === 0 ? referenceA : referenceB });
      ids.push(subscription.id);
    }
    // Two ended subscriptions, for the status filter.
    await context.database.db
      .update(subscriptionRows)
      .set({ status: 'CANCELED', endedAt: context.clock.now(), canceledAt: context.clock.now() })
      .where(inArray(subscriptionRows.id, [ids[1] ?? '', ids[5] ?? '']));
    created = await Promise.all(ids.map((id) => readSubscription(context, merchant, id)));
    created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
    await startSubscription(context, other, { interval: 'WEEK', customerReferenceId: referenceA });
  });
  after(async () => context.close());

  async function list(query: string, apiKey = merchant.apiKey): Promise<Page> {
    const response = await context.request({ method: 'GET', url: `/v1/subscriptions?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Page }>(response).data;
  }

  async function all(query: string): Promise<SubscriptionBody[]> {
    const seen: SubscriptionBody[] = [];
    let cursor: string | undefined;
    do {
      const current = await list(`${query}&limit=2${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(current.hasMore, current.nextCursor !== undefined);
      seen.push(...current.subscriptions);
      cursor = current.nextCursor;
    } while (cursor);
    return seen;
  }

  const ids = (items: SubscriptionBody[]) => items.map((item) => item.id);

  test('pages newest first until hasMore is false, each item exactly as GET by id answers it (with its latest invoice)', async () => {
    const seen = await all('');
    assert.deepEqual(seen, created);
    assert.ok(seen.every((item) => item.livemode === false && item.latestInvoice !== undefined));
    const first = await list('');
    assert.equal(first.subscriptions.length, 9);
    assert.equal(first.hasMore, false);
    const rest = await list(`startingAfter=${created[6]?.id ?? ''}`);
    assert.deepEqual(ids(rest.subscriptions), ids(created.slice(7)));
  });

  test('filters: customerId, status, livemode, together; other merchants never appear', async () => {
    const customerA = created.find((item) => created.filter((other) => other.customerId === item.customerId).length === 3)?.customerId ?? '';
    assert.deepEqual(ids(await all(`customerId=${customerA}`)), ids(created.filter((item) => item.customerId === customerA)));
    assert.deepEqual(ids(await all('status=CANCELED')), ids(created.filter((item) => item.status === 'CANCELED')));
    assert.equal((await all('status=CANCELED')).length, 2);
    assert.deepEqual(ids(await all('status=ACTIVE&livemode=false')), ids(created.filter((item) => item.status === 'ACTIVE')));
    assert.deepEqual(await all('livemode=true'), []);
    const theirs = (await list('limit=100', other.apiKey)).subscriptions;
    assert.equal(theirs.length, 1);
    assert.ok(!created.some((item) => item.id === theirs[0]?.id));
    assert.deepEqual((await list(`customerId=${customerA}`, other.apiKey)).subscriptions, []);
  });

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
