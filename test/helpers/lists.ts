import assert from 'node:assert/strict';
import { assertError } from './assertions.ts';
import { json, type TestContext, type TestMerchant } from './context.ts';

/**
 * The calls of a keyset-paged list suite (GET `path`, items under `key`), as the suite's merchant
 * unless another key is given, 200 asserted: `list` answers one page, `all` walks every page of a
 * query `pageSize` (default 4) at a time (checking hasMore against nextCursor), `ids` maps items to their ids.
 * `current` is read at each call, since the suite's context and merchant are set in `before`.
 */
export function listCalls<Item extends { id: string }, Key extends string>(current: () => { context: TestContext; merchant: TestMerchant }, path: string, key: Key, pageSize = 4) {
  type ListPage = Record<Key, Item[]> & { hasMore: boolean; nextCursor?: string };
  async function list(query: string, apiKey = current().merchant.apiKey): Promise<ListPage> {
    const response = await current().context.request({ method: 'GET', url: `${path}?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: ListPage }>(response).data;
  }
  async function all(query: string, apiKey = current().merchant.apiKey): Promise<Item[]> {
    const seen: Item[] = [];
    let cursor: string | undefined;
    do {
      const page = await list(`${query}&limit=${pageSize}${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`, apiKey);
      assert.equal(page.hasMore, page.nextCursor !== undefined);
      seen.push(...page[key]);
      cursor = page.nextCursor;
    } while (cursor);
    return seen;
  }
  return { list, all, ids: (items: Item[]) => items.map((item) => item.id) };
}

/**
 * The cursor errors every keyset-paged list of pages answers alike (GET `path` as `merchant`):
 * a cursor of another mode, of the default mode, of another filter set, of another list (`/v1/events`),
 * of another merchant, a cursor altered, another merchant's id (`theirId`), an id of the other mode
 * (`liveId`) and garbage → 400 WRONG_PARAMETER naming startingAfter. `cursor` is a test-mode cursor
 * of the same list, already URL-encoded; `otherCursor` another merchant's.
 */
export async function assertForeignCursorsRefused(
  context: TestContext,
  merchant: TestMerchant,
  path: string,
  cursors: { cursor: string; otherCursor: string; theirId: string; liveId: string },
): Promise<void> {
  const { cursor, otherCursor, theirId, liveId } = cursors;
  const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
  const eventsCursor = encodeURIComponent(json<{ data: { nextCursor?: string } }>(events).data.nextCursor ?? 'none');
  for (const query of [
    `startingAfter=${cursor}&livemode=true`,
    `startingAfter=${cursor}`,
    `startingAfter=${cursor}&livemode=false&status=CREATED`,
    `startingAfter=${eventsCursor}`,
    `startingAfter=${otherCursor}`,
    `startingAfter=${cursor.slice(0, -2)}AA`,
    `startingAfter=${theirId}`,
    `startingAfter=${liveId}&livemode=false`,
    'startingAfter=garbage',
  ]) {
    assertError(await context.request({ method: 'GET', url: `${path}?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
  }
}

/**
 * The filters the hosted-page lists (`/v1/payment_pages`, `/v1/payout_pages`) share, each with a bad
 * value, plus `badStatus` (a status of the other kind of page) → 400 WRONG_PARAMETER naming the field.
 */
export async function assertBadPageListFiltersRefused(context: TestContext, merchant: TestMerchant, path: string, badStatus: string): Promise<void> {
  const bad: Array<[string, string]> = [
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    [`status=${badStatus}`, 'status'],
    ['createdFrom=yesterday', 'createdFrom'],
    ['createdTo=1.5', 'createdTo'],
    ['createdFrom=2000&createdTo=1000', 'createdTo'],
    [`clientReferenceId=${'x'.repeat(256)}`, 'clientReferenceId'],
    ['livemode=maybe', 'livemode'],
    ['sort=asc', 'sort'],
  ];
  for (const [query, field] of bad) {
    assertError(await context.request({ method: 'GET', url: `${path}?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', field);
  }
}
