import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, openPaymentPageSuite, pageCalls } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';

describe('POST /v1/payment_pages/:pageId/expire: ownership and modes', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { expire, read } = pageCalls(() => ({ context, merchant }));

  test('scoping: another merchant → 404; livemode mismatch → 404; livemode=true without live access → 403', async () => {
    const page = await createPage(context, merchant);
    assert.equal((await expire(page.id, { apiKey: other.apiKey })).statusCode, 404);
    const noLive = await expire(page.id, { query: '?livemode=true' });
    assert.equal(noLive.statusCode, 403);
    assert.equal(json<ErrorBody>(noLive).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const sandboxPage = await createPage(context, live);
    assert.equal((await expire(sandboxPage.id, { apiKey: live.apiKey, query: '?livemode=true' })).statusCode, 404);
    assert.equal((await read(page.id)).status, 'CREATED');
    assert.equal((await expire(sandboxPage.id, { apiKey: live.apiKey, query: '?livemode=false' })).statusCode, 200);
  });
});
