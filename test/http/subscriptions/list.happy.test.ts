import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { openSubscriptionListSuite, subscriptionLists, type SubscriptionBody } from '../../helpers/subscriptions.ts';

describe('GET /v1/subscriptions: newest first, paged, filtered; one merchant', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: SubscriptionBody[] = [];

  before(async () => ({ context, merchant, other, created } = await openSubscriptionListSuite()));
  after(async () => context.close());

  const { list, all, ids } = subscriptionLists(() => ({ context, merchant }));

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
});
