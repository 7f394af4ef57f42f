import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertBadPageListFiltersRefused, assertForeignCursorsRefused } from '../../helpers/lists.ts';
import { openPaymentPageListSuite, pageLists, type PageBody } from '../../helpers/payment-pages.ts';

describe('GET /v1/payment_pages: bad cursors and filters', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let created: PageBody[] = [];

  before(async () => ({ context, merchant, other, created } = await openPaymentPageListSuite()));
  after(async () => context.close());

  const { list } = pageLists(() => ({ context, merchant }));

  test('a cursor of another list, filter set, mode or merchant, or a foreign id → 400 WRONG_PARAMETER naming startingAfter', async () => {
    const cursor = encodeURIComponent((await list('livemode=false&limit=2')).nextCursor ?? '');
    const otherCursor = encodeURIComponent((await list('limit=1', other.apiKey)).nextCursor ?? 'none-other');
    const theirId = (await list('limit=1', other.apiKey)).paymentPages[0]?.id ?? '';
    const liveId = created.find((page) => page.livemode)?.id ?? '';
    await assertForeignCursorsRefused(context, merchant, '/v1/payment_pages', { cursor, otherCursor, theirId, liveId });
    // The same cursor from the same list is accepted.
    assert.equal((await list(`startingAfter=${cursor}&livemode=false&limit=2`)).paymentPages.length, 2);
  });

  test('bad filter values → 400 WRONG_PARAMETER naming the field, for every field', async () => {
    await assertBadPageListFiltersRefused(context, merchant, '/v1/payment_pages', 'CANCELED');
  });
});
