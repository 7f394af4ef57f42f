import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { eventPages, openEventListSuite, type CreatedEvent, type EventBody } from '../../helpers/events.ts';

describe('GET /v1/events: paging and filters', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: CreatedEvent[];

  before(async () => ({ context, merchant, other, created } = await openEventListSuite()));
  after(async () => context.close());

  const page = eventPages(() => ({ context, merchant }));

  test('pages newest first with nextCursor until hasMore is false; no event twice, none missed', async () => {
    const seen: EventBody[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const current = await page(`limit=10${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`);
      pages += 1;
      seen.push(...current.events);
      assert.equal(current.hasMore, current.nextCursor !== undefined);
      cursor = current.nextCursor;
    } while (cursor);
    assert.equal(pages, 3);
    assert.deepEqual(
      seen.map((event) => event.id),
      created.map((event) => event.id),
    );
    for (let index = 1; index < seen.length; index += 1) {
      const newer = seen[index - 1];
      const older = seen[index];
      assert.ok(newer && older && (newer.createdAt > older.createdAt || (newer.createdAt === older.createdAt && newer.id > older.id)));
    }
    const first = seen[0];
    assert.ok(first);
    assert.deepEqual(Object.keys(first).sort(), ['createdAt', 'data', 'id', 'livemode', 'type']);
  });

  test('default limit 20; startingAfter also takes an event id', async () => {
    const first = await page('');
    assert.equal(first.events.length, 20);
    assert.equal(first.hasMore, true);
    const afterId = await page(`startingAfter=${first.events[19]?.id ?? ''}`);
    assert.deepEqual(
      afterId.events.map((event) => event.id),
      created.slice(20).map((event) => event.id),
    );
    assert.equal(afterId.hasMore, false);
    assert.equal(afterId.nextCursor, undefined);
  });

  test('filters: type and livemode (and both), scoped to the merchant', async () => {
    const expired = await page('type=PAYMENT_EXPIRED&limit=100');
    assert.deepEqual(
      expired.events.map((event) => event.id),
      created.filter((event) => event.type === 'PAYMENT_EXPIRED').map((event) => event.id),
    );
    const liveOnly = await page('livemode=true&limit=100');
    assert.deepEqual(
      liveOnly.events.map((event) => event.id),
      created.filter((event) => event.livemode).map((event) => event.id),
    );
    const sandboxSucceeded = await page('livemode=false&type=PAYMENT_SUCCEEDED&limit=3');
    const expected = created.filter((event) => !event.livemode && event.type === 'PAYMENT_SUCCEEDED').map((event) => event.id);
    assert.deepEqual(
      sandboxSucceeded.events.map((event) => event.id),
      expected.slice(0, 3),
    );
    const rest = await page(`livemode=false&type=PAYMENT_SUCCEEDED&limit=100&startingAfter=${encodeURIComponent(sandboxSucceeded.nextCursor ?? '')}`);
    assert.deepEqual(
      rest.events.map((event) => event.id),
      expected.slice(3),
    );
    const others = await page('limit=100', other.apiKey);
    assert.equal(others.events.length, 1);
    assert.equal(others.events[0]?.data.index, -1);
  });
});
