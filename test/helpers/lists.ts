import assert from 'node:assert/strict';
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
