import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import {
  advanceAndDrain,
  bankMethod,
  closePayoutPageSuite,
  confirmPage,
  createPage,
  fullKyc,
  getPage,
  openPayoutPageSuite,
  pageAction,
  pageEmails,
  payoutEvents,
  statusPath,
  uniqueReference,
  walletMethod,
  type PayoutPageData,
} from '../../helpers/payout-pages.ts';

const opening = 100_000_000;

describe('payout pages: the sandbox lifecycle end to end', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(() => closePayoutPageSuite(context));

  test('AUTOMATIC: create → confirm with KYC (helper) → KYC approved → PROCESSING → PROCESSED, balances settled', async () => {
    const page = await createPage(context, merchant, { amount: 250_000, releaseMethod: 'AUTOMATIC', metadata: { order: 'A-1' } });
    assert.equal(page.status, 'CREATED');
    assert.equal(page['sub-status'], 'AWAITING_CUSTOMER');
    assert.equal(page.url, `http://paysail.test/payout-page/${page.id}`);
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USDC'), { available: opening - 250_000, reserved: 250_000, inFlight: 0, external: -opening });

    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod, kyc: fullKyc });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    const afterConfirm = json<{ data: PayoutPageData }>(confirmed).data;
    assert.equal(afterConfirm.status, 'PENDING');
    assert.equal(afterConfirm['sub-status'], 'KYC_IN_REVIEW');
    assert.equal(typeof afterConfirm.customerConfirmedAt, 'number');
    assert.deepEqual(afterConfirm.payoutMethod, { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' });

    await advanceAndDrain(context); // the sandbox KYC provider approves after 2 s
    const processing = await getPage(context, merchant, page.id);
    assert.equal(processing.status, 'PROCESSING');
    assert.equal(processing['sub-status'], 'SUBMITTED');
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USDC'), { available: opening - 250_000, reserved: 0, inFlight: 250_000, external: -opening });

    await advanceAndDrain(context); // the sandbox rail pays after 2 s
    const processed = await getPage(context, merchant, page.id);
    assert.equal(processed.status, 'PROCESSED');
    assert.equal(processed['sub-status'], 'PAID');
    assert.deepEqual(processed.metadata, { order: 'A-1' });
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USDC'), { available: opening - 250_000, reserved: 0, inFlight: 0, external: -opening + 250_000 });

    assert.deepEqual(await statusPath(context, page.id), [
      'CREATED/AWAITING_CUSTOMER',
      'PENDING/KYC_REQUIRED',
      'PENDING/KYC_IN_REVIEW',
      'PENDING/AWAITING_RELEASE',
      'PROCESSING/SUBMITTED',
      'PROCESSED/PAID',
    ]);
    const recorded = await payoutEvents(context, page.id);
    assert.deepEqual(
      recorded.map((event) => `${event.data.previousStatus}/${event.data.previousSubStatus} → ${event.data.status}/${event.data['sub-status']}`),
      [
        'CREATED/AWAITING_CUSTOMER → PENDING/KYC_REQUIRED',
        'PENDING/KYC_REQUIRED → PENDING/KYC_IN_REVIEW',
        'PENDING/KYC_IN_REVIEW → PENDING/AWAITING_RELEASE',
        'PENDING/AWAITING_RELEASE → PROCESSING/SUBMITTED',
        'PROCESSING/SUBMITTED → PROCESSED/PAID',
      ],
    );
    // The event carries the whole page as the API returns it (without the customer's e-mail: PII).
    const last = recorded.at(-1)?.data;
    const { customer: readCustomer, ...readRest } = processed;
    assert.ok(last);
    const { customer: eventCustomer, previousStatus: _previousStatus, previousSubStatus: _previousSubStatus, ...eventRest } = last;
    assert.deepEqual(eventRest, readRest);
    assert.deepEqual(eventCustomer, { id: readCustomer.id, referenceId: readCustomer.referenceId });
    assert.equal(JSON.stringify(recorded).includes('ada@example.com'), false, 'no e-mail address in event payloads');
    assert.equal(JSON.stringify(recorded).includes('000123456789'), false, 'no account number in event payloads');

    // (E-mails written at the same test-clock instant have no order between them: compare as a set.)
    const templates = (await pageEmails(context, page.id)).map((email) => email.template).sort();
    assert.deepEqual(templates, ['payout_page_created', 'payout_page_kyc_required', 'payout_page_processed', 'payout_page_processing']);
  });

  test('MANUAL: KYC already APPROVED at confirmation → AWAITING_RELEASE at once; release → PROCESSING → PROCESSED', async () => {
    const referenceId = uniqueReference('verified');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc } });
    assert.equal(created.statusCode, 200, created.body);
    await advanceAndDrain(context);

    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', fundingCurrency: 'USD', amount: 5_000, customer: { referenceId, email: 'ada@example.com' } });
    assert.equal(page.customer.id, json<{ data: { id: string } }>(created).data.id, 'the existing customer is used');

    const early = await pageAction(context, merchant, page.id, 'release');
    assert.equal(early.statusCode, 409);
    assert.equal(json(early).errorCode, 'INVALID_STATE');

    const confirmed = json<{ data: PayoutPageData }>(await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod }));
    assert.equal(confirmed.data.status, 'PENDING');
    assert.equal(confirmed.data['sub-status'], 'AWAITING_RELEASE');
    assert.deepEqual(confirmed.data.payoutMethod, { type: 'CRYPTO_WALLET', network: 'ETHEREUM', address: '0x5aAe...eAed' });
    await context.drainJobs();
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE', 'MANUAL pages wait for the merchant');

    const released = await pageAction(context, merchant, page.id, 'release');
    assert.equal(released.statusCode, 200, released.body);
    assert.equal(json<{ data: PayoutPageData }>(released).data.status, 'PROCESSING');
    const again = await pageAction(context, merchant, page.id, 'release');
    assert.equal(again.statusCode, 409);
    assert.equal(json(again).errorCode, 'INVALID_STATE');

    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    assert.deepEqual(await balanceOf(context.database, merchant.id, false, 'USD'), { available: opening - 5_000, reserved: 0, inFlight: 0, external: -opening + 5_000 });
    assert.deepEqual(await statusPath(context, page.id), ['CREATED/AWAITING_CUSTOMER', 'PENDING/AWAITING_RELEASE', 'PROCESSING/SUBMITTED', 'PROCESSED/PAID']);
    assert.equal((await payoutEvents(context, page.id)).length, 3, 'one event per change');
  });

  test('AUTOMATIC with KYC already APPROVED: confirmation moves on to PROCESSING in the same request', async () => {
    const referenceId = uniqueReference('verified-auto');
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, ...fullKyc } });
    await advanceAndDrain(context);
    const page = await createPage(context, merchant, { customer: { referenceId, email: 'grace@example.com' } });
    const confirmed = json<{ data: PayoutPageData }>(await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod }));
    assert.equal(confirmed.data.status, 'PROCESSING');
    assert.equal(confirmed.data.customer.email, 'grace@example.com', "the page's own e-mail");
    const recorded = await payoutEvents(context, page.id);
    assert.deepEqual(
      recorded.map((event) => `${event.data.previousSubStatus}→${event.data['sub-status']}`),
      ['AWAITING_CUSTOMER→AWAITING_RELEASE', 'AWAITING_RELEASE→SUBMITTED'],
    );
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
  });
});
