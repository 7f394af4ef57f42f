import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { bankMethod, closePayoutPageSuite, createPage, errorCodeOf, getPage, openPayoutPageCreateSuite, pageAction, pageBody, walletMethod, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { customers } from '../../../src/db/schema/index.ts';

describe('POST /v1/payout_pages, GET and the test helpers: the mode and merchant boundaries', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    ({ context, merchant, other, live } = await openPayoutPageCreateSuite());
    // Live pages need live funds (live balances start at zero), as the create suite's duplicate test credits them.
    await context.admin('POST', `/admin/v1/merchants/${live.id}/balance/credit`, { amount: 1_000_000, currency: 'USDC' });
  });
  after(async () => closePayoutPageSuite(context));

  test('livemode omitted means live: a sandbox-only merchant gets 403 LIVE_MODE_NOT_ENABLED', async () => {
    const response = await context.request({ method: 'POST', url: '/v1/payout_pages', apiKey: merchant.apiKey, body: pageBody() });
    assert.equal(response.statusCode, 403);
    assert.equal(errorCodeOf(response), 'LIVE_MODE_NOT_ENABLED');
    assert.match(String(json(response).errorMessage), /livemode=false/);
  });

  test("another merchant's ids, and the wrong mode, answer 404 everywhere", async () => {
    const page = await createPage(context, merchant);
    const calls = [
      { method: 'GET', url: `/v1/payout_pages/${page.id}` },
      { method: 'POST', url: `/v1/payout_pages/${page.id}/release` },
      { method: 'POST', url: `/v1/payout_pages/${page.id}/cancel` },
      { method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/confirm?livemode=false`, body: { payoutMethod: bankMethod } },
      { method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false` },
    ];
    for (const call of calls) {
      const response = await context.request({ ...call, apiKey: other.apiKey });
      assert.equal(response.statusCode, 404, `${call.method} ${call.url}`);
      assert.equal(errorCodeOf(response), 'NOT_FOUND');
    }
    const unknown = await context.request({ method: 'GET', url: '/v1/payout_pages/payout_page_00000000000000000000000000000000000', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);
    const livePage = await createPage(context, live, {}, '?livemode=false');
    const wrongMode = await context.request({ method: 'GET', url: `/v1/payout_pages/${livePage.id}?livemode=true`, apiKey: live.apiKey });
    assert.equal(wrongMode.statusCode, 404);
    const rightMode = await context.request({ method: 'GET', url: `/v1/payout_pages/${livePage.id}?livemode=false`, apiKey: live.apiKey });
    assert.equal(rightMode.statusCode, 200);
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'untouched');
  });

  test('test helpers are sandbox only: a live page or livemode=true → 403 FORBIDDEN', async () => {
    const livePage = await createPage(context, live, {}, '?livemode=true');
    for (const url of [`/v1/test_helpers/payout_pages/${livePage.id}/confirm`, `/v1/test_helpers/payout_pages/${livePage.id}/confirm?livemode=true`]) {
      const response = await context.request({ method: 'POST', url, apiKey: live.apiKey, body: { payoutMethod: bankMethod } });
      assert.equal(response.statusCode, 403, url);
      assert.equal(errorCodeOf(response), 'FORBIDDEN');
    }
    const decline = await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${livePage.id}/decline`, apiKey: live.apiKey });
    assert.equal(errorCodeOf(decline), 'FORBIDDEN');
  });

  test('live without a payout rail: MANUAL release is refused with a clear error; AUTOMATIC waits in PENDING with the reason', async () => {
    const service = context.platform.services.payoutPages;
    for (const releaseMethod of ['MANUAL', 'AUTOMATIC']) {
      const page = await createPage(context, live, { releaseMethod }, '?livemode=true');
      // Live KYC has no provider here: mark the customer verified directly, then confirm as the hosted page does.
      await context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, page.customer.id));
      await service.confirm(page.id, walletMethod);
      const read = await context.request({ method: 'GET', url: `/v1/payout_pages/${page.id}`, apiKey: live.apiKey });
      const data = json<{ data: PayoutPageData }>(read).data;
      assert.equal(data.status, 'PENDING', releaseMethod);
      assert.equal(data['sub-status'], 'AWAITING_RELEASE');
      assert.match(String(data.statusReason), /No live payout rail is configured/);
      const release = await pageAction(context, live, page.id, 'release');
      assert.equal(release.statusCode, 409);
      assert.equal(errorCodeOf(release), 'INVALID_STATE');
      assert.match(String(json(release).errorMessage), releaseMethod === 'MANUAL' ? /No live payout rail is configured/ : /AUTOMATIC/);
      assert.equal((await pageAction(context, live, page.id, 'cancel')).statusCode, 200, 'it can still be canceled');
    }
  });
});
