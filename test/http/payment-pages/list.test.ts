import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { createPage, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';

type PaymentPageData = PageBody;

interface Page {
  paymentPages: PaymentPageData[];
  hasMore: boolean;
  nextCursor?: string;
}

describe('GET /v1/payment_pages', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: PaymentPageData[] = [];
  const customerA = { referenceId: `list-a-${Date.now()}`, email: 'a@example.com' };
  const customerB = { referenceId: `list-b-${Date.now()}`, email: 'b@example.com' };

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    other = await context.createMerchant({ live: true });
    for (let index = 0; index < 23; index += 1) {
      // Two pages share each millisecond: the id breaks the tie.
      if (index % 2 === 0) {
        context.clock.advance(1_000);
      }
      const livemode = index % 4 === 0;
      const page = await createPage(context, merchant, { customer: index % 3 === 0 ? customerA : customerB }, `?livemode=${livemode}`);
      if (index % 5 === 1) {
        assert.equal((await context.request({ method: 'POST', url: `/v1/payment_pages/${page.id}/expire`, apiKey: merchant.apiKey })).statusCode, 200);
      } else if (index % 7 === 2 && !livemode) {
        assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
      }
      created.push(page);
    }
    created = await Promise.all(created.map(async (page) => json<{ data: PaymentPageData }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey })).data));
    created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
    await createPage(context, other, { customer: customerA });
  });
  after(async () => context.close());

  async function list(query: string, apiKey = merchant.apiKey): Promise<Page> {
    const response = await context.request({ method: 'GET', url: `/v1/payment_pages?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Page }>(response).data;
  }

  async function all(query: string): Promise<PaymentPageData[]> {
    const seen: PaymentPageData[] = [];
    let cursor: string | undefined;
    do {
      const current = await list(`${query}&limit=4${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`);
      assert.equal(current.hasMore, current.nextCursor !== undefined);
      seen.push(...current.paymentPages);
      cursor = current.nextCursor;
    } while (cursor);
    return seen;
  }

  const ids = (pages: PaymentPageData[]) => pages.map((page) => page.id);

  test('pages newest first until hasMore is false, each item exactly as GET by id answers it; both modes by default', async () => {
    const seen = await all('');
    assert.deepEqual(seen, created);
    assert.ok(seen.some((page) => page.livemode) && seen.some((page) => !page.livemode));
    assert.ok(seen.some((page) => page.status === 'PAID' && page.payinDetails !== undefined && page.paymentId !== undefined));
  });

  test('default limit 20; startingAfter also takes a payment page id', async () => {
    const first = await list('');
    assert.equal(first.paymentPages.length, 20);
    assert.equal(first.hasMore, true);
    const rest = await list(`startingAfter=${first.paymentPages[19]?.id ?? ''}`);
    assert.deepEqual(ids(rest.paymentPages), ids(created.slice(20)));
    assert.equal(rest.hasMore, false);
    assert.equal(rest.nextCursor, undefined);
  });

  test('filters: livemode, status, customerId, clientReferenceId, createdFrom/createdTo, and together', async () => {
    assert.deepEqual(ids(await all('livemode=true')), ids(created.filter((page) => page.livemode)));
    assert.deepEqual(ids(await all('status=EXPIRED')), ids(created.filter((page) => page.status === 'EXPIRED')));
    const customerId = created.find((page) => page.customer.referenceId === customerA.referenceId && !page.livemode)?.customer.id ?? '';
    assert.deepEqual(ids(await all(`customerId=${customerId}`)), ids(created.filter((page) => page.customer.id === customerId)));
    const target = created[7];
    assert.ok(target);
    assert.deepEqual(ids(await all(`clientReferenceId=${encodeURIComponent(target.clientReferenceId)}`)), [target.id]);
    const from = created[15]?.createdAt ?? 0;
    const to = created[4]?.createdAt ?? 0;
    assert.deepEqual(ids(await all(`createdFrom=${from}&createdTo=${to}`)), ids(created.filter((page) => page.createdAt >= from && page.createdAt <= to)));
    assert.deepEqual(
      ids(await all(`livemode=false&status=CREATED&createdTo=${to}`)),
      ids(created.filter((page) => !page.livemode && page.status === 'CREATED' && page.createdAt <= to)),
    );
    assert.deepEqual(ids(await all('customerId=cus_unknown')), []);
  });

  test("another merchant's pages never appear (and theirs never show ours)", async () => {
    const theirs = await all('');
    assert.equal(theirs.length, created.length);
    const others = (await list('limit=100', other.apiKey)).paymentPages;
    assert.equal(others.length, 1);
    assert.equal(others[0]?.customer.referenceId, customerA.referenceId);
    assert.ok(!created.some((page) => page.id === others[0]?.id));
    const ourCustomer = created[0]?.customer.id ?? '';
    assert.deepEqual((await list(`customerId=${ourCustomer}`, other.apiKey)).paymentPages, []);
  });

  test('a page stays stable while pages are inserted: the next page continues where the last ended', async () => {
    const first = await list('livemode=false&limit=5');
    context.clock.advance(1_000);
    const newer = await createPage(context, merchant);
    const second = await list(`livemode=false&limit=5&startingAfter=${encodeURIComponent(first.nextCursor ?? '')}`);
    const sandbox = created.filter((page) => !page.livemode);
    assert.deepEqual(ids(first.paymentPages), ids(sandbox.slice(0, 5)));
    assert.deepEqual(ids(second.paymentPages), ids(sandbox.slice(5, 10)));
    assert.equal((await list('livemode=false&limit=1')).paymentPages[0]?.id, newer.id);
  });

  test('a cursor of another list, filter set, mode or merchant, or a foreign id → 400 WRONG_PARAMETER naming startingAfter', async () => {
    const cursor = encodeURIComponent((await list('livemode=false&limit=2')).nextCursor ?? '');
    const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
    const eventsCursor = encodeURIComponent(json<{ data: { nextCursor?: string } }>(events).data.nextCursor ?? 'none');
    const otherCursor = encodeURIComponent((await list('limit=1', other.apiKey)).nextCursor ?? 'none-other');
    const theirPage = (await list('limit=1', other.apiKey)).paymentPages[0]?.id ?? '';
    const liveId = created.find((page) => page.livemode)?.id ?? '';
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
      assertError(await context.request({ method: 'GET', url: `/v1/payment_pages?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    }
    // The same cursor from the same list is accepted.
    assert.equal((await list(`startingAfter=${cursor}&livemode=false&limit=2`)).paymentPages.length, 2);
  });

  test('bad filter values → 400 WRONG_PARAMETER naming the field, for every field', async () => {
    const bad: Array<[string, string]> = [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['status=CANCELED', 'status'],
      ['createdFrom=yesterday', 'createdFrom'],
      ['createdTo=1.5', 'createdTo'],
      ['createdFrom=2000&createdTo=1000', 'createdTo'],
      [`clientReferenceId=${'x'.repeat(256)}`, 'clientReferenceId'],
      ['livemode=maybe', 'livemode'],
      ['sort=asc', 'sort'],
    ];
    for (const [query, field] of bad) {
      assertError(await context.request({ method: 'GET', url: `/v1/payment_pages?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', field);
    }
  });
});
