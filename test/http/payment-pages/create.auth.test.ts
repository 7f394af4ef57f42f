import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, openPaymentPageSuite, pageCalls, pageRequest, type PageBody } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';

describe('POST /v1/payment_pages: modes and authentication', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => ({ context, merchant, live } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { create } = pageCalls(() => ({ context, merchant }));

  test('modes: omitted livemode means live (403 without live access); a live merchant creates live pages', async () => {
    const refused = await create(pageRequest(), merchant.apiKey, '');
    assert.equal(refused.statusCode, 403);
    const failure = json<ErrorBody>(refused);
    assert.equal(failure.errorCode, 'LIVE_MODE_NOT_ENABLED');
    assert.match(failure.errorMessage, /livemode=false/);
    const livePage = json<{ data: PageBody }>(await create(pageRequest(), live.apiKey, '')).data;
    assert.equal(livePage.livemode, true);
  });

  test('authentication is required', async () => {
    const page = await createPage(context, merchant);
    for (const [method, url] of [
      ['POST', '/v1/payment_pages?livemode=false'],
      ['GET', `/v1/payment_pages/${page.id}`],
      ['POST', `/v1/payment_pages/${page.id}/expire`],
      ['POST', `/v1/test_helpers/payment_pages/${page.id}/pay?livemode=false`],
    ] as const) {
      const response = await context.request({ method, url, body: method === 'POST' ? {} : undefined });
      assert.equal(response.statusCode, 401, `${method} ${url}`);
      assert.equal(json<ErrorBody>(response).errorCode, 'UNAUTHORIZED');
    }
  });
});
