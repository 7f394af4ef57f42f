import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { openPayoutPageListSuite, payoutPageLists, type ListedPayoutPage } from '../../helpers/payout-pages.ts';

describe("GET /v1/payout_pages: one merchant's pages only", () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: ListedPayoutPage[] = [];

  before(async () => ({ context, merchant, other, created } = await openPayoutPageListSuite()));
  after(async () => context.close());

  const { list, all } = payoutPageLists(() => ({ context, merchant }));

  test("another merchant's pages never appear (and theirs never show ours)", async () => {
    const theirs = await all('');
    assert.equal(theirs.length, created.length);
    const others = (await list('limit=100', other.apiKey)).payoutPages;
    assert.equal(others.length, 1);
    assert.equal(others[0]?.merchant.id, other.id);
    const ourCustomer = created[0]?.customer.id ?? '';
    assert.deepEqual((await list(`customerId=${ourCustomer}`, other.apiKey)).payoutPages, []);
  });
});
