import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { bankMethod, closePayoutPageSuite, confirmPage, createPage, errorCodeOf, getPage, openPayoutPageSuite, pageAction, pageEmails, payoutEvents, type PayoutPageData } from '../../helpers/payout-pages.ts';

/** The ways a page ends unpaid: merchant cancel, customer decline, expiry; each releases the reservation. */
describe('POST /v1/payout_pages/:id/cancel, the decline helper and the expiry job', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(async () => closePayoutPageSuite(context));

  const usdc = () => balanceOf(context.database, merchant.id, false, 'USDC');

  test('merchant cancel before PROCESSING releases the reservation; cancel again is INVALID_STATE', async () => {
    const before = await usdc();
    const page = await createPage(context, merchant, { amount: 7_000 });
    assert.equal((await usdc()).available, before.available - 7_000);
    const canceled = await pageAction(context, merchant, page.id, 'cancel');
    assert.equal(canceled.statusCode, 200, canceled.body);
    const data = json<{ data: PayoutPageData }>(canceled).data;
    assert.equal(data.status, 'CANCELED');
    assert.equal(data['sub-status'], 'MERCHANT_CANCELED');
    assert.deepEqual(await usdc(), before);
    const again = await pageAction(context, merchant, page.id, 'cancel');
    assert.equal(again.statusCode, 409);
    assert.equal(errorCodeOf(again), 'INVALID_STATE');
    assert.match(String(json(again).errorMessage), /CANCELED\/MERCHANT_CANCELED/);
    const [event] = await payoutEvents(context, page.id);
    assert.equal(event?.data.previousStatus, 'CREATED');
    assert.equal(event?.data.previousSubStatus, 'AWAITING_CUSTOMER');
    assert.equal((await payoutEvents(context, page.id)).length, 1);
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template === 'payout_page_canceled'));
  });

  test('cancel from PENDING (KYC required) also releases; a confirmed page cannot be confirmed again', async () => {
    const before = await usdc();
    const page = await createPage(context, merchant);
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_REQUIRED');
    const twice = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(twice.statusCode, 409);
    assert.equal(errorCodeOf(twice), 'INVALID_STATE');
    assert.equal((await pageAction(context, merchant, page.id, 'cancel')).statusCode, 200);
    assert.deepEqual(await usdc(), before);
  });

  test('customer decline (helper) → CANCELED/CUSTOMER_DECLINED, reservation released, not after PROCESSING', async () => {
    const before = await usdc();
    const page = await createPage(context, merchant);
    const declined = await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false`, apiKey: merchant.apiKey });
    assert.equal(declined.statusCode, 200, declined.body);
    assert.equal(json<{ data: PayoutPageData }>(declined).data['sub-status'], 'CUSTOMER_DECLINED');
    assert.deepEqual(await usdc(), before);
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template === 'payout_page_declined'));
    const confirmAfter = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(confirmAfter.statusCode, 409);
  });

  test('expiry job at expiresAt: unconfirmed → EXPIRED/NOT_COMPLETED; confirmed pages do not expire', async () => {
    const before = await usdc();
    const now = context.clock.now().getTime();
    const unconfirmed = await createPage(context, merchant, { expiresAt: now + 60_000, amount: 1_000 });
    const confirmed = await createPage(context, merchant, { expiresAt: now + 60_000, amount: 2_000 });
    await confirmPage(context, merchant, confirmed.id, { payoutMethod: bankMethod });
    context.clock.advance(59_000);
    await context.drainJobs();
    assert.equal((await getPage(context, merchant, unconfirmed.id)).status, 'CREATED', 'not before expiresAt');
    context.clock.advance(1_000);
    await context.drainJobs();
    const expired = await getPage(context, merchant, unconfirmed.id);
    assert.equal(expired.status, 'EXPIRED');
    assert.equal(expired['sub-status'], 'NOT_COMPLETED');
    assert.equal((await getPage(context, merchant, confirmed.id)).status, 'PENDING');
    assert.deepEqual(await usdc(), { ...before, available: before.available - 2_000, reserved: before.reserved + 2_000 });
    assert.ok((await pageEmails(context, unconfirmed.id)).some((email) => email.template === 'payout_page_expired'));
    const late = await confirmPage(context, merchant, unconfirmed.id, { payoutMethod: bankMethod });
    assert.equal(late.statusCode, 409);
    await pageAction(context, merchant, confirmed.id, 'cancel');
  });
});
