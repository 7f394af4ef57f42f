import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, openPaymentPageSuite } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';

describe('GET /v1/payment_pages/:pageId: ownership and modes', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, other, live } = await openPaymentPageSuite()));
  after(async () => context.close());

  test('reads: another merchant → 404; livemode mismatch → 404; livemode=true without live access → 403; unknown → 404', async () => {
    const page = await createPage(context, merchant);
    const asOther = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: other.apiKey });
    assert.equal(asOther.statusCode, 404);
    assert.equal(json<ErrorBody>(asOther).errorCode, 'NOT_FOUND');
    const liveQuery = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<ErrorBody>(liveQuery).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const sandboxPageOfLive = await createPage(context, live);
    const mismatch = await context.request({ method: 'GET', url: `/v1/payment_pages/${sandboxPageOfLive.id}?livemode=true`, apiKey: live.apiKey });
    assert.equal(mismatch.statusCode, 404);
    const matching = await context.request({ method: 'GET', url: `/v1/payment_pages/${sandboxPageOfLive.id}?livemode=false`, apiKey: live.apiKey });
    assert.equal(matching.statusCode, 200);
    const unknown = await context.request({ method: 'GET', url: '/v1/payment_pages/page_doesnotexist', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);
    assert.equal(json<ErrorBody>(unknown).errorCode, 'NOT_FOUND');
  });
});
