import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError } from '../../helpers/assertions.ts';
import { customerLists, openCustomerListSuite, type CustomerBody } from '../../helpers/customers.ts';

describe('GET /v1/customers: bad cursors and filters', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: CustomerBody[] = [];

  before(async () => ({ context, merchant, other, created } = await openCustomerListSuite()));
  after(async () => context.close());

  const { list, ids } = customerLists(() => ({ context, merchant }));

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
