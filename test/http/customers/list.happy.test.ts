import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { customerLists, openCustomerListSuite, type CustomerBody } from '../../helpers/customers.ts';

describe('GET /v1/customers: newest first, paged, filtered; one merchant', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: CustomerBody[] = [];

  before(async () => ({ context, merchant, other, created } = await openCustomerListSuite()));
  after(async () => context.close());

  const { list, all, ids } = customerLists(() => ({ context, merchant }));

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
});
