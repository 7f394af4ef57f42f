import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { openPaymentPageListSuite, pageLists, type PageBody } from '../../helpers/payment-pages.ts';

describe("GET /v1/payment_pages: one merchant's pages only", () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: PageBody[] = [];
  let customerA: { referenceId: string; email: string };

  before(async () => ({ context, merchant, other, created, customerA } = await openPaymentPageListSuite()));
  after(async () => context.close());

  const { list, all } = pageLists(() => ({ context, merchant }));

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
});
