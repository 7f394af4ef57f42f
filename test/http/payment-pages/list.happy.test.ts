import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { TestContext, TestMerchant } from '../../helpers/context.ts';
import { createPage, openPaymentPageListSuite, pageLists, type PageBody } from '../../helpers/payment-pages.ts';

describe('GET /v1/payment_pages: newest first, paged, filtered', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let created: PageBody[] = [];
  let customerA: { referenceId: string; email: string };

  before(async () => ({ context, merchant, created, customerA } = await openPaymentPageListSuite()));
  after(async () => context.close());

  const { list, all, ids } = pageLists(() => ({ context, merchant }));

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
});
