import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { events, jobs } from '../../../src/db/schema/index.ts';
import { eventRetentionMs, eventRetentionQueue, scheduleEventRetention } from '../../../src/modules/events/service.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createEndpoint, deliveriesOf, emitEvent } from '../../helpers/webhooks.ts';
import type { EventType } from '../../../src/modules/events/record.ts';

interface EventBody {
  id: string;
  type: string;
  createdAt: number;
  livemode: boolean;
  data: Record<string, unknown>;
}
interface Page {
  events: EventBody[];
  hasMore: boolean;
  nextCursor?: string;
}

describe('GET /v1/events', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  const created: Array<{ id: string; type: EventType; livemode: boolean; createdAt: number }> = [];

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    other = await context.createMerchant();
    const types: EventType[] = ['PAYMENT_SUCCEEDED', 'PAYMENT_EXPIRED', 'PAYOUT_PAGE_UPDATED'];
    for (let index = 0; index < 25; index += 1) {
      const type = types[index % 3] ?? 'PAYMENT_SUCCEEDED';
      const livemode = index % 5 === 0;
      // Two events share each millisecond: the id breaks the tie.
      if (index % 2 === 0) {
        context.clock.advance(1_000);
      }
      const event = await emitEvent(context, merchant, { type, livemode, data: { index } });
      created.push({ id: event.id, type, livemode, createdAt: event.createdAt.getTime() });
    }
    // Newest first; within one millisecond the id decides (ids are random after their time part).
    created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
    await emitEvent(context, other, { data: { index: -1 } });
  });
  after(async () => context.close());

  async function page(query: string, apiKey = merchant.apiKey): Promise<Page> {
    const response = await context.request({ method: 'GET', url: `/v1/events?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Page }>(response).data;
  }

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

  test('GET /v1/events/:id reads one event; mode mismatch and other merchants answer 404', async () => {
    const liveEvent = created.find((event) => event.livemode);
    assert.ok(liveEvent);
    const response = await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200);
    const body = json<{ data: EventBody }>(response).data;
    assert.equal(body.id, liveEvent.id);
    assert.equal(body.livemode, true);
    assert.equal(body.type, liveEvent.type);
    assertError(await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}?livemode=false`, apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: `/v1/events/${liveEvent.id}`, apiKey: other.apiKey }), 404, 'NOT_FOUND');
    assertError(await context.request({ method: 'GET', url: '/v1/events/evt_nope', apiKey: merchant.apiKey }), 404, 'NOT_FOUND');
  });

  test('bad paging input answers 400 WRONG_PARAMETER', async () => {
    const bad: Array<[string, string]> = [
      ['limit=0', 'limit must be at least 1'],
      ['limit=101', 'limit must be at most 100'],
      ['limit=ten', 'limit must be an integer'],
      ['type=NOPE', 'type must be one of'],
      ['startingAfter=garbage', 'startingAfter must be the nextCursor'],
      ['foo=1', 'foo is not a recognised field'],
    ];
    for (const [query, message] of bad) {
      assertError(await context.request({ method: 'GET', url: `/v1/events?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', message);
    }
    // Another merchant's event id, and a cursor with one character changed.
    const foreign = (await page('limit=1', other.apiKey)).events[0]?.id ?? '';
    assertError(await context.request({ method: 'GET', url: `/v1/events?startingAfter=${foreign}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    const cursor = (await page('limit=1')).nextCursor ?? '';
    const tampered = `${cursor.slice(0, 3)}${cursor[3] === 'A' ? 'B' : 'A'}${cursor.slice(4)}`;
    assertError(await context.request({ method: 'GET', url: `/v1/events?startingAfter=${encodeURIComponent(tampered)}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    assertError(await context.request({ method: 'GET', url: '/v1/events?livemode=true', apiKey: other.apiKey }), 403, 'LIVE_MODE_NOT_ENABLED');
  });

  test('events (and their deliveries) are kept 30 days by the hourly retention job', async () => {
    const keeper = await context.createMerchant();
    await createEndpoint(context, keeper, { url: 'http://127.0.0.1:9/unreachable' });
    const old = await emitEvent(context, keeper);
    await context.drainJobs();
    assert.equal((await deliveriesOf(context, keeper, `eventId=${old.id}`)).length, 1);
    context.clock.advance(eventRetentionMs - 2 * 3_600_000);
    const recent = await emitEvent(context, keeper);
    await context.database.transaction((tx) => scheduleEventRetention(tx, context.clock.now()));
    context.clock.advance(3 * 3_600_000);
    await context.drainJobs();
    const kept = await context.database.db.select({ id: events.id }).from(events).where(eq(events.merchantId, keeper.id));
    assert.deepEqual(
      kept.map((row) => row.id),
      [recent.id],
    );
    assert.equal((await deliveriesOf(context, keeper, `eventId=${old.id}`)).length, 0, 'deliveries go with their event');
    const next = await context.database.db.select({ id: jobs.id }).from(jobs).where(and(eq(jobs.queue, eventRetentionQueue), eq(jobs.status, 'pending')));
    assert.equal(next.length, 1, 'the job scheduled its next run');
  });
});
