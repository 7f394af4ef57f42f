import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { inArray } from 'drizzle-orm';
import { customers as customerRows } from '../../../src/db/schema/index.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';

interface CustomerBody {
  id: string;
  referenceId: string;
  kycStatus: string;
  livemode: boolean;
  createdAt: number;
}
interface Page {
  customers: CustomerBody[];
  hasMore: boolean;
  nextCursor?: string;
}

describe('GET /v1/customers', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  /** Newest first, as the API lists them. */
  let created: CustomerBody[] = [];

  async function read(id: string, apiKey = merchant.apiKey): Promise<CustomerBody> {
    const response = await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: CustomerBody }>(response).data;
  }

  async function create(target: TestMerchant, livemode: boolean, referenceId: string): Promise<string> {
    const response = await context.request({
      method: 'POST',
      url: `/v1/customers?livemode=${livemode}`,
      apiKey: target.apiKey,
      body: { referenceId, signupAt: context.clock.now().getTime(), email: `${referenceId}@example.com` },
    });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: { id: string } }>(response).data.id;
  }

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    other = await context.createMerchant();
    const ids: string[] = [];
    for (let index = 0; index < 13; index += 1) {
      if (index % 2 === 0) {
        context.clock.advance(1_000);
      }
      ids.push(await create(merchant, index % 4 === 0, `list-customer-${index}`));
    }
    await context.database.db.update(customerRows).set({ kycStatus: 'APPROVED' }).where(inArray(customerRows.id, [ids[2] ?? '', ids[3] ?? '', ids[8] ?? '']));
    created = await Promise.all(ids.map((id) => read(id)));
    created.sort((left, right) => right.createdAt - left.createdAt || (left.id < right.id ? 1 : -1));
    await create(other, false, 'list-customer-0');
  });
  after(async () => context.close());

  async function list(query: string, apiKey = merchant.apiKey): Promise<Page> {
    const response = await context.request({ method: 'GET', url: `/v1/customers?${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Page }>(response).data;
  }

  async function all(query: string, apiKey = merchant.apiKey): Promise<CustomerBody[]> {
    const seen: CustomerBody[] = [];
    let cursor: string | undefined;
    do {
      const current = await list(`${query}&limit=3${cursor ? `&startingAfter=${encodeURIComponent(cursor)}` : ''}`, apiKey);
      assert.equal(current.hasMore, current.nextCursor !== undefined);
      seen.push(...current.customers);
      cursor = current.nextCursor;
    } while (cursor);
    return seen;
  }

  const ids = (items: CustomerBody[]) => items.map((item) => item.id);

  test('pages newest first until hasMore is false, each item exactly as GET by id answers it; both modes by default', async () => {
    assert.deepEqual(await all(''), created);
    assert.ok(created.some((item) => item.livemode) && created.some((item) => !item.livemode));
    const first = await list('');
    assert.equal(first.customers.length, 13);
    assert.deepEqual(ids((await list(`startingAfter=${created[10]?.id ?? ''}`)).customers), ids(created.slice(11)));
  });

  test('filters: referenceId, kycStatus, createdFrom/createdTo, livemode; other merchants never appear', async () => {
    assert.deepEqual(ids(await all('referenceId=list-customer-5')), ids(created.filter((item) => item.referenceId === 'list-customer-5')));
    assert.equal((await all('referenceId=list-customer-5')).length, 1);
    assert.deepEqual(ids(await all('kycStatus=APPROVED')), ids(created.filter((item) => item.kycStatus === 'APPROVED')));
    assert.equal((await all('kycStatus=APPROVED')).length, 3);
    const from = created[9]?.createdAt ?? 0;
    const to = created[2]?.createdAt ?? 0;
    assert.deepEqual(ids(await all(`createdFrom=${from}&createdTo=${to}`)), ids(created.filter((item) => item.createdAt >= from && item.createdAt <= to)));
    assert.deepEqual(ids(await all('livemode=true')), ids(created.filter((item) => item.livemode)));
    const theirs = await all('', other.apiKey);
    assert.equal(theirs.length, 1);
    assert.ok(!created.some((item) => item.id === theirs[0]?.id));
  });

  test('a cursor of another filter set, mode, list or merchant, or a foreign id → 400 WRONG_PARAMETER naming startingAfter', async () => {
    const cursor = encodeURIComponent((await list('limit=2')).nextCursor ?? '');
    const eventsCursor = encodeURIComponent(json<{ data: { nextCursor?: string } }>(await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey })).data.nextCursor ?? 'none');
    const theirId = (await list('limit=1', other.apiKey)).customers[0]?.id ?? '';
    for (const query of [`startingAfter=${cursor}&livemode=false`, `startingAfter=${cursor}&kycStatus=APPROVED`, `startingAfter=${eventsCursor}`, `startingAfter=${theirId}`, 'startingAfter=cus_x']) {
      assertError(await context.request({ method: 'GET', url: `/v1/customers?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'startingAfter');
    }
    assert.deepEqual(ids((await list(`startingAfter=${cursor}&limit=2`)).customers), ids(created.slice(2, 4)));
  });

  test('bad filter values → 400 WRONG_PARAMETER naming the field', async () => {
    for (const [query, field] of [
      ['kycStatus=DONE', 'kycStatus'],
      ['limit=0', 'limit'],
      ['createdFrom=x', 'createdFrom'],
      ['createdFrom=5&createdTo=4', 'createdTo'],
      [`referenceId=${'r'.repeat(256)}`, 'referenceId'],
    ] as const) {
      assertError(await context.request({ method: 'GET', url: `/v1/customers?${query}`, apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', field);
    }
  });
});
