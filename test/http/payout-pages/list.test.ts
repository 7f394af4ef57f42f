import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createPage, getPage, pageAction, uniqueReference, type PayoutPageData as PageData } from '../../helpers/payout-pages.ts';

type PayoutPageData = PageData & { createdAt: number; clientReferenceId: string };

interface Page {
  payoutPages: PayoutPageData[];
  hasMore: boolean;
  nextCursor?: string;
}

describe('GET /v1/payout_pages', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: PayoutPageData[] = [];
  const customerA = { referenceId: uniqueReference('list-a'), email: 'a@example.com' };
  const customerB = { referenceId: uniqueReference('list-b'), email: 'b@example.com' };

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    other = await context.createMerchant({ live: true });
    assert.equal((await context.admin('POST', `/admin/v1/merchants/${merchant.id}/balance/credit`, { amount: 1_000_000, currency: 'USDC' })).statusCode, 200);
    for (let index = 0; index < 23; index += 1) {
      // Two pages share each millisecond: the id breaks the tie.
      if (index % 2 === 0) {
        context.clock.advance(1_000);
      }
      const livemode = index % 4 === 0;
      const page = (await createPage(context, merchant, { amount: 1, customer: index % 3 === 0 ? customerA : customerB }, `?livemode=${livemode}`)) as PayoutPageData;
      if (index % 5 === 1) {
        assert.equal((await pageAction(context, merchant, page.id, 'cancel')).statusCode, 200);
      }
      created.push(page);
    }
    created = (await Promise.all(created.map((page) => getPage(context, merchant, page.id)))) as PayoutPageData[];
    created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
    await createPage(context, other, { amount: 1, customer: customerA });
  });
  after(async () => context.close());

  async function list(query: string, apiKey = merchant.apiKey): Promise<Page> {
    const response = await context.request({ method: 'GET', url: `/v1/payout_pages?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Page }>(response).data;
  }

  async function all(query: string): Promise<PayoutPageData[]> {
    const seen: PayoutPageData[] = [];
    let cursor: string | undefined;
    do {
      const current = await list(`${query}&limit=4${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(current.hasMore, current.nextCursor !== undefined);
      seen.push(...current.payoutPages);
      cursor = current.nextCursor;
    } while (cursor);
    return seen;
  }

  const ids = (pages: PayoutPageData[]) => pages.map((page) => page.id);

  test('pages newest first until hasMore is false, each item exactly as GET by id answers it; both modes by default', async () => {
    const seen = await all('');
    assert.deepEqual(seen, created);
    assert.ok(seen.some((page) => page.merchant.livemode) && seen.some((page) => !page.merchant.livemode));
  });

  test('default limit 20; startingAfter also takes a payout page id', async () => {
    const first = await list('');
    assert.equal(first.payoutPages.length, 20);
    assert.equal(first.hasMore, true);
    const rest = await list(`startingAfter=${first.payoutPages[19]?.id ?? ''}`);
    assert.deepEqual(ids(rest.payoutPages), ids(created.slice(20)));
    assert.equal(rest.hasMore, false);
    assert.equal(rest.nextCursor, undefined);
  });

  test('filters: livemode, status, customerId, clientReferenceId, createdFrom/createdTo, and together', async () => {
    assert.deepEqual(ids(await all('livemode=true')), ids(created.filter((page) => page.merchant.livemode)));
    assert.deepEqual(ids(await all('status=CANCELED')), ids(created.filter((page) => page.status === 'CANCELED')));
    const customerId = created.find((page) => page.customer.referenceId === customerA.referenceId && !page.merchant.livemode)?.customer.id ?? '';
    assert.deepEqual(ids(await all(`customerId=${customerId}`)), ids(created.filter((page) => page.customer.id === customerId)));
    const target = created[7];
    assert.ok(target);
    assert.deepEqual(ids(await all(`clientReferenceId=${encodeURIComponent(target.clientReferenceId)}`)), [target.id]);
    const from = created[15]?.createdAt ?? 0;
    const to = created[4]?.createdAt ?? 0;
    assert.deepEqual(ids(await all(`createdFrom=${from}&createdTo=${to}`)), ids(created.filter((page) => page.createdAt >= from && page.createdAt <= to)));
    assert.deepEqual(
      ids(await all(`livemode=false&status=CREATED&createdTo=${to}`)),
      ids(created.filter((page) => !page.merchant.livemode && page.status === 'CREATED' && page.createdAt <= to)),
    );
    assert.deepEqual(ids(await all('customerId=cus_unknown')), []);
  });

  test('created bounds at the ends of the JavaScript date range (±8.64e15 ms, past what the database stores) are answered, not 500', async () => {
    const extreme = 8_640_000_000_000_000;
    assert.deepEqual(ids(await all(`createdFrom=${-extreme}&createdTo=${extreme}`)), ids(created));
    assert.deepEqual(ids(await all(`createdFrom=${-extreme}`)), ids(created));
    assert.deepEqual(ids(await all(`createdTo=${extreme}`)), ids(created));
    assert.deepEqual(ids(await all(`createdFrom=${extreme}`)), []);
    assert.deepEqual(ids(await all(`createdFrom=${-extreme}&createdTo=${-extreme}`)), []);
    assert.deepEqual(ids(await all(`createdFrom=253402300800000`)), []);
  });

  test("another merchant's pages never appear (and theirs never show ours)", async () => {
    const theirs = await all('');
    assert.equal(theirs.length, created.length);
    const others = (await list('limit=100', other.apiKey)).payoutPages;
    assert.equal(others.length, 1);
    assert.equal(others[0]?.merchant.id, other.id);
    const ourCustomer = created[0]?.customer.id ?? '';
    assert.deepEqual((await list(`customerId=${ourCustomer}`, other.apiKey)).payoutPages, []);
  });

  test('a page stays stable while pages are inserted: the next page continues where the last ended', async () => {
    const first = await list('livemode=false&limit=5');
    context.clock.advance(1_000);
    const newer = await createPage(context, merchant, { amount: 1 });
    const second = await list(`livemode=false&limit=5&startingAfter=${encodeURIComponent(first.nextCursor ?? '')}`);
    const sandbox = created.filter((page) => !page.merchant.livemode);
    assert.deepEqual(ids(first.payoutPages), ids(sandbox.slice(0, 5)));
    assert.deepEqual(ids(second.payoutPages), ids(sandbox.slice(5, 10)));
    assert.equal((await list('livemode=false&limit=1')).payoutPages[0]?.id, newer.id);
    await pageAction(context, merchant, newer.id, 'cancel');
  });

  test('a cursor of another list, filter set, mode or merchant, or a foreign id → 400 WRONG_PARAMETER naming startingAfter', async () => {
    const cursor = encodeURIComponent((await list('livemode=false&limit=2')).nextCursor ?? '');
    const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
    const eventsCursor = encodeURIComponent(json<{ data: { nextCursor?: string } }>(events).data.nextCursor ?? 'none');
    const otherCursor = encodeURIComponent((await list('limit=1', other.apiKey)).nextCursor ?? 'none-other');
    const theirPage = (await list('limit=1', other.apiKey)).payoutPages[0]?.id ?? '';
    const liveId = created.find((page) => page.merchant.livemode)?.id ?? '';
    for (const query of [
      `startingAfter=${cursor}&livemode=true`,
      `startingAfter=${cursor}`,
      `startingAfter=${cursor}&livemode=false&status=CREATED`,
      `startingAfter=${eventsCursor}`,
      `startingAfter=${otherCursor}`,
      `startingAfter=${cursor.slice(0, -2)}AA`,
      `startingAfter=${theirPage}`,
      `startingAfter=${liveId}&livemode=false`,
      'startingAfter=garbage',
    ]) {
      assertError(await context.request({ method: 'GET', url: `/v1/payout_pages?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    }
    // The same cursor from the same list is accepted.
    assert.equal((await list(`startingAfter=${cursor}&livemode=false&limit=2`)).payoutPages.length, 2);
  });

  test('bad filter values → 400 WRONG_PARAMETER naming the field, for every field', async () => {
    const bad: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['status=PAID', 'status'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['createdTo=1.5', 'createdTo'],
      ['createdFrom=2000&createdTo=1000', 'createdTo'],
      [`clientReferenceId=${'x'.repeat(256)}`, 'clientReferenceId'],
      ['livemode=maybe', 'livemode'],
      ['sort=asc', 'sort'],
    ];
    for (const [query, field] of bad) {
      assertError(await context.request({ method: 'GET', url: `/v1/payout_pages?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', field);
    }
  });
});
