import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { TestClock } from '../../helpers/clock.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { dayMs, listEntitlements, queryEntitlements, runUntil, startSubscription, type EntitlementBody, type SubscriptionBody } from '../../helpers/subscriptions.ts';

type Failure = { status: string; errorCode: string; errorMessage: string; requestId: string };

const start = Date.UTC(2025, 0, 1, 0, 0, 0);

function byCreation(left: EntitlementBody, right: EntitlementBody): number {
  return left.createdAt - right.createdAt || (left.id < right.id ? -1 : left.id > right.id ? 1 : 0);
}

describe('GET /v1/entitlements', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let firstCustomerA: SubscriptionBody;
  let firstCustomerB: SubscriptionBody;
  let secondCustomer: SubscriptionBody;
  let othersSubscription: SubscriptionBody;
  /** Every entitlement of `merchant`, in creation order. */
  let all: EntitlementBody[];

  before(async () => {
    context = await createTestContext({ clock: new TestClock(start) });
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    firstCustomerA = (await startSubscription(context, merchant, { interval: 'DAY', customerReferenceId: 'first', productId: 'prod_a' })).subscription;
    firstCustomerB = (await startSubscription(context, merchant, { interval: 'DAY', customerReferenceId: 'first', productId: 'prod_b' })).subscription;
    secondCustomer = (await startSubscription(context, merchant, { interval: 'DAY', customerReferenceId: 'second' })).subscription;
    othersSubscription = (await startSubscription(context, other, { interval: 'DAY', customerReferenceId: 'first' })).subscription;
    // History through the entitlements service (renewals run elsewhere; here only the list matters):
    // 34 earlier daily periods per subscription, 3 × 35 = 105 for the merchant, more than a default
    // page. The three subscriptions share creation times, so the id decides their order.
    for (const subscription of [firstCustomerA, firstCustomerB, secondCustomer, othersSubscription]) {
      await seedHistory(subscription, 34);
    }
    context.clock.set(start + 12 * 60 * 60 * 1000);
    all = [];
    let page = await listEntitlements(context, merchant, { limit: 100 });
    all.push(...page.entitlements);
    while (page.nextPageToken) {
      page = await listEntitlements(context, merchant, { limit: 100, cursorToken: page.nextPageToken });
      all.push(...page.entitlements);
    }
  });
  after(async () => context.close());

  async function seedHistory(subscription: SubscriptionBody, periods: number): Promise<void> {
    const [first] = (await listEntitlements(context, subscription.merchantId === merchant.id ? merchant : other, { subscriptionId: subscription.id })).entitlements;
    assert.ok(first?.invoiceId);
    await context.database.transaction(async (tx) => {
      for (let index = 1; index <= periods; index += 1) {
        await context.platform.services.entitlements.createEntitlement(
          tx,
          {
            merchantId: subscription.merchantId,
            livemode: false,
            customerId: subscription.customerId,
            subscriptionId: subscription.id,
            productId: subscription.productId,
            invoiceId: first.invoiceId ?? '',
            startPeriod: new Date(start - index * dayMs),
            endPeriod: new Date(start - (index - 1) * dayMs),
          },
          new Date(start - 60_000 + index * 10),
        );
      }
    });
  }

  test('the success body has no envelope: entitlements and hasMore, and nextPageToken only when hasMore', async () => {
    const firstPage = await queryEntitlements(context, merchant, { limit: 2 });
    assert.equal(firstPage.statusCode, 200);
    assert.match(String(firstPage.headers['content-type']), /^application\/json/);
    assert.match(String(firstPage.headers['request-id']), /^req_/);
    const body = json(firstPage);
    assert.deepEqual(Object.keys(body).sort(), ['entitlements', 'hasMore', 'nextPageToken']);
    assert.equal(body.hasMore, true);
    assert.equal(typeof body.nextPageToken, 'string');

    const lastPage = await queryEntitlements(context, merchant, { subscriptionId: secondCustomer.id });
    const lastBody = json(lastPage);
    assert.deepEqual(Object.keys(lastBody).sort(), ['entitlements', 'hasMore'], 'no nextPageToken when hasMore is false');
    assert.equal(lastBody.hasMore, false);
    assert.equal('status' in lastBody || 'data' in lastBody, false);
  });

  test('defaults: ascending by creation time then id, 100 per page', async () => {
    assert.equal(all.length, 105);
    assert.deepEqual([...all].sort(byCreation), all);
    assert.equal(new Set(all.map((entitlement) => entitlement.id)).size, 105);
    const page = await listEntitlements(context, merchant);
    assert.equal(page.entitlements.length, 100);
    assert.equal(page.hasMore, true);
    assert.deepEqual(page.entitlements, all.slice(0, 100));
    const rest = await listEntitlements(context, merchant, { cursorToken: page.nextPageToken ?? '' });
    assert.deepEqual(rest.entitlements, all.slice(100));
    assert.equal(rest.hasMore, false);

    const descending = await listEntitlements(context, merchant, { sort: 'desc', limit: 100 });
    assert.deepEqual(descending.entitlements, [...all].reverse().slice(0, 100));
  });

  test('every entitlement has exactly the interface fields and a well-formed idempotency key', () => {
    const allowed = new Set(['id', 'createdAt', 'updatedAt', 'subscriptionId', 'productId', 'invoiceId', 'livemode', 'customerId', 'merchantId', 'startPeriod', 'endPeriod', 'idempotencyKey']);
    for (const entitlement of all) {
      for (const key of Object.keys(entitlement)) {
        assert.ok(allowed.has(key), `unexpected field ${key}`);
      }
      assert.equal(entitlement.merchantId, merchant.id);
      assert.equal(entitlement.livemode, false);
      assert.equal(entitlement.idempotencyKey, `${entitlement.subscriptionId}-${entitlement.startPeriod}-${entitlement.endPeriod}`);
      assert.equal(entitlement.endPeriod - entitlement.startPeriod, dayMs);
    }
    const sharedCreation = all.filter((entitlement) => entitlement.createdAt === all[0]?.createdAt);
    assert.equal(sharedCreation.length, 3, 'creation times are shared, so the id breaks ties');
  });

  test('filters: subscriptionId, customerId, isActive (against the platform clock), livemode', async () => {
    const ofSubscription = await listEntitlements(context, merchant, { subscriptionId: firstCustomerB.id });
    assert.equal(ofSubscription.entitlements.length, 35);
    assert.ok(ofSubscription.entitlements.every((entitlement) => entitlement.subscriptionId === firstCustomerB.id && entitlement.productId === 'prod_b'));

    const ofCustomer = await listEntitlements(context, merchant, { customerId: firstCustomerA.customerId });
    assert.equal(firstCustomerA.customerId, firstCustomerB.customerId);
    assert.deepEqual(
      ofCustomer.entitlements,
      all.filter((entitlement) => entitlement.customerId === firstCustomerA.customerId),
    );
    assert.equal(ofCustomer.entitlements.length, 70);

    const now = context.clock.now().getTime();
    const active = await listEntitlements(context, merchant, { isActive: true });
    assert.deepEqual(
      active.entitlements,
      all.filter((entitlement) => entitlement.startPeriod <= now && now < entitlement.endPeriod),
    );
    assert.equal(active.entitlements.length, 3, 'one current period per subscription');
    const inactive = await listEntitlements(context, merchant, { isActive: false });
    assert.equal(inactive.entitlements.length, 100);
    assert.equal(inactive.hasMore, true);
    assert.ok(inactive.entitlements.every((entitlement) => !(entitlement.startPeriod <= now && now < entitlement.endPeriod)));

    const activeOfCustomer = await listEntitlements(context, merchant, { customerId: secondCustomer.customerId, isActive: true });
    assert.deepEqual(
      activeOfCustomer.entitlements.map((entitlement) => entitlement.subscriptionId),
      [secondCustomer.id],
    );

    // The boundary: startPeriod ≤ now < endPeriod.
    const [current] = activeOfCustomer.entitlements;
    assert.ok(current);
    context.clock.set(current.endPeriod);
    const atEnd = await listEntitlements(context, merchant, { subscriptionId: secondCustomer.id, isActive: true });
    assert.deepEqual(atEnd.entitlements, [], 'not active at endPeriod (the next renewal has not run)');
    context.clock.set(current.startPeriod);
    const atStart = await listEntitlements(context, merchant, { subscriptionId: secondCustomer.id, isActive: true });
    assert.deepEqual(
      atStart.entitlements.map((entitlement) => entitlement.id),
      [current.id],
      'active from startPeriod',
    );
    context.clock.set(start + 12 * 60 * 60 * 1000);

    assert.equal((await listEntitlements(context, merchant, { livemode: false })).entitlements.length, 100);
    const live = await queryEntitlements(context, merchant, { livemode: true });
    assert.equal(live.statusCode, 403);
    assert.equal(json<Failure>(live).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const liveMerchant = await context.createMerchant({ live: true });
    assert.deepEqual(await listEntitlements(context, liveMerchant, { livemode: true }), { entitlements: [], hasMore: false });
  });

  test("another merchant's entitlements never appear, whatever the filters", async () => {
    const others = await listEntitlements(context, other);
    assert.equal(others.entitlements.length, 35);
    assert.ok(others.entitlements.every((entitlement) => entitlement.merchantId === other.id));
    const otherIds = new Set(others.entitlements.map((entitlement) => entitlement.id));
    assert.ok(all.every((entitlement) => !otherIds.has(entitlement.id)));
    assert.deepEqual(await listEntitlements(context, merchant, { subscriptionId: othersSubscription.id }), { entitlements: [], hasMore: false });
    assert.deepEqual(await listEntitlements(context, merchant, { customerId: othersSubscription.customerId }), { entitlements: [], hasMore: false });
    assert.deepEqual(await listEntitlements(context, merchant, { customerId: othersSubscription.customerId, isActive: true }), { entitlements: [], hasMore: false });
  });

  test('the page size may change between pages; the cursor keeps the position', async () => {
    const first = await listEntitlements(context, merchant, { customerId: firstCustomerA.customerId, limit: 10 });
    const second = await listEntitlements(context, merchant, { customerId: firstCustomerA.customerId, limit: 25, cursorToken: first.nextPageToken ?? '' });
    const expected = all.filter((entitlement) => entitlement.customerId === firstCustomerA.customerId);
    assert.deepEqual([...first.entitlements, ...second.entitlements], expected.slice(0, 35));
  });

  for (const sort of ['asc', 'desc'] as const) {
    test(`paging (${sort}) walks every entitlement exactly once while new ones are inserted between pages`, async () => {
      const before = (await listEntitlementsAll(sort)).map((entitlement) => entitlement.id);
      const seen: string[] = [];
      let cursorToken: string | undefined;
      let pages = 0;
      let renewals = 0;
      do {
        const page = await listEntitlements(context, merchant, { sort, limit: 8, ...(cursorToken ? { cursorToken } : {}) });
        seen.push(...page.entitlements.map((entitlement) => entitlement.id));
        cursorToken = page.nextPageToken;
        pages += 1;
        if (pages % 3 === 0 && renewals < 3) {
          // A day passes: every subscription renews, adding three newer entitlements.
          renewals += 1;
          await runUntil(context, context.clock.now().getTime() + dayMs);
        }
      } while (cursorToken);
      assert.equal(new Set(seen).size, seen.length, 'no entitlement twice');
      const seenSet = new Set(seen);
      assert.ok(
        before.every((id) => seenSet.has(id)),
        'every entitlement that existed when the walk began',
      );
      const inserted = seen.length - before.length;
      // Newer rows come after the cursor in ascending order, and before it in descending order.
      assert.equal(inserted, sort === 'asc' ? 3 * renewals : 0);
      const walked = (await listEntitlementsAll(sort)).filter((entitlement) => seenSet.has(entitlement.id)).map((entitlement) => entitlement.id);
      assert.deepEqual(seen, walked, 'in order');
    });
  }

  async function listEntitlementsAll(sort: 'asc' | 'desc'): Promise<EntitlementBody[]> {
    const collected: EntitlementBody[] = [];
    let cursorToken: string | undefined;
    do {
      const page = await listEntitlements(context, merchant, { sort, ...(cursorToken ? { cursorToken } : {}) });
      collected.push(...page.entitlements);
      cursorToken = page.nextPageToken;
    } while (cursorToken);
    return collected;
  }
});
