import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, bankMethod, closePayoutPageSuite, confirmPage, createPage, fullKyc, getPage, ledgerMovementsOf, openPayoutPageSuite, otherBankMethod, pageAction, pageEmails, paidThenReturned, payoutEvents, rejectedBankMethod, retryPayout, statusPath, uniqueReference, walletMethod, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { signedInClient } from '../dashboard/client.ts';
import { sandboxTransactionHash } from '../../../src/modules/payout-pages/rails/explorer.ts';
import { customers, payoutAttempts, payoutPages, sandboxProviderRecords } from '../../../src/db/schema/index.ts';

const opening = 100_000_000;

const solanaWallet = { type: 'CRYPTO_WALLET', network: 'SOLANA', address: '7EYnhQoR9YM3N7UoaKRoA44Uy8JeaZV3qyouov87awMs' } as const;

/**
 * Confirming a payout page through to the payout: the sandbox lifecycle end to end, the transaction hash
 * of USDC payouts (deterministic; on no chain, so linked to no explorer), returns after payment and the
 * retry with other details, destination details sealed at rest.
 */
describe('POST /v1/test_helpers/payout_pages/:id/confirm and the payout that follows', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(async () => closePayoutPageSuite(context));

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

  const usdc = () => balanceOf(context.database, merchant.id, false, 'USDC');

  const approve = (customerId: string) => context.database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, customerId));

  for (const [method, shape] of [
    [walletMethod, /^0x[0-9a-f]{64}$/],
    [solanaWallet, /^[1-9A-HJ-NP-Za-km-z]{80,90}$/],
  ] as const) {
    test(`${method.network}: payoutDetails once paid; the hosted page and the dashboard show the hash and link no explorer`, async () => {
      const page = await createPage(context, merchant, { fundingCurrency: 'USDC', amount: 1_500 });
      await approve(page.customer.id);
      await context.platform.services.payoutPages.confirm(page.id, method);
      await advanceAndDrain(context, 2_500);
      await advanceAndDrain(context, 2_500);
      const paid = await getPage(context, merchant, page.id);
      assert.equal(paid.status, 'PROCESSED');
      const [attempt] = await context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, page.id));
      assert.ok(attempt);
      const details = paid.payoutDetails as { transactionHash: string; explorerUrl?: string };
      assert.equal(details.transactionHash, sandboxTransactionHash(method.network, attempt.id), 'deterministic: derived from our attempt id');
      assert.match(details.transactionHash, shape);
      assert.equal(details.explorerUrl, undefined, "the sandbox rail's hash is on no chain: no explorer link");
      assert.equal(attempt.transactionHash, details.transactionHash);
      const explorers = /href="https:\/\/[^"]*(etherscan|polygonscan|basescan|solscan)/;
      const hosted = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
      assert.ok(hosted.body.includes(`<p class="mono" id="transaction-hash" aria-labelledby="transaction-label">${details.transactionHash}</p>`), 'the hash, monospace');
      assert.ok(hosted.body.includes('data-copy="transaction-hash"'), 'with a Copy button (shown by the script)');
      assert.ok(hosted.body.includes('sandbox: on no chain, so no explorer shows it'));
      assert.doesNotMatch(hosted.body, explorers, 'the hosted page links no real explorer');
      const client = await signedInClient(context, merchant);
      const screen = await client.get(`/dashboard/sandbox/payout-pages/${page.id}`);
      assert.equal(screen.statusCode, 200);
      assert.ok(screen.body.includes('Payout attempts'));
      assert.ok(screen.body.includes(details.transactionHash));
      assert.doesNotMatch(screen.body, explorers, 'the dashboard links no real explorer either');
    });
  }

  test('bank payouts carry no payoutDetails', async () => {
    const page = await createPage(context, merchant, { fundingCurrency: 'USD', amount: 1_000 });
    await approve(page.customer.id);
    await context.platform.services.payoutPages.confirm(page.id, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' });
    await advanceAndDrain(context, 2_500);
    await advanceAndDrain(context, 2_500);
    const paid = await getPage(context, merchant, page.id);
    assert.equal(paid.status, 'PROCESSED');
    assert.equal(paid.payoutDetails, undefined);
  });

  test('account ending 0003: paid, then returned → FAILED/PAYOUT_RETURNED, money back in available, event and e-mail', async () => {
    const before = await usdc();
    const page = await paidThenReturned(context, merchant);
    assert.equal(page.status, 'FAILED');
    assert.equal(page['sub-status'], 'PAYOUT_RETURNED');
    assert.match(String(page.statusReason), /0003 is returned/);
    assert.deepEqual(await usdc(), before, 'available, reserved, in flight and external as before the page');
    assert.deepEqual(
      (await ledgerMovementsOf(context, page.id)).map((row) => row.kind),
      ['reserve', 'submit', 'settle', 'reverse'],
    );
    const events = await payoutEvents(context, page.id);
    const last = events.at(-1);
    assert.equal(last?.data.previousStatus, 'PROCESSED');
    assert.equal(last?.data.status, 'FAILED');
    assert.equal(last?.data['sub-status'], 'PAYOUT_RETURNED');
    const returned = (await pageEmails(context, page.id)).find((email) => email.template === 'payout_page_returned');
    assert.ok(returned, 'the customer is told');
    assert.match(returned.text, /enter other details/i);
    assert.ok(returned.text.includes(page.url), 'with the link to the same page');
    const [attempt] = await attemptsOfPage(context, page.id);
    assert.equal(attempt?.status, 'RETURNED');
    assert.ok(attempt?.paidAt && attempt.finishedAt);
  });

  test('after a return the customer enters other details: a new attempt with its own id pays once', async () => {
    const before = await usdc();
    const page = await paidThenReturned(context, merchant);
    const helper = await confirmPage(context, merchant, page.id, { payoutMethod: otherBankMethod });
    assert.equal(helper.statusCode, 409, 'the test helper’s confirm stays CREATED-only (docs/API.md §8)');
    const retried = await retryPayout(context, merchant, page.id, otherBankMethod);
    assert.ok(retried.ok, JSON.stringify(retried));
    const data = retried.page;
    assert.equal(`${data.status}/${data['sub-status']}`, 'PROCESSING/SUBMITTED', 'AUTOMATIC: released at once');
    assert.equal(data.payoutMethod?.last4, '6780');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED', 'the second destination is not returned');
    const attempts = await attemptsOfPage(context, page.id);
    assert.deepEqual(
      attempts.map((attempt) => `${attempt.number}:${attempt.status}`),
      ['1:RETURNED', '2:PAID'],
    );
    assert.notEqual(attempts[0]?.id, attempts[1]?.id);
    for (const attempt of attempts) {
      const records = await context.database.db.select().from(sandboxProviderRecords).where(eq(sandboxProviderRecords.reference, attempt.id));
      assert.equal(records.length, 1, `one rail payout for attempt ${attempt.number}`);
    }
    // Movements of one instant share a timestamp: compare the set of keys (each unique by constraint).
    assert.deepEqual(
      (await ledgerMovementsOf(context, page.id)).map((row) => row.key).sort(),
      [`${page.id}:reserve`, `${page.id}:submit`, `${page.id}:settle`, `${page.id}:reverse`, `${page.id}:2:reserve`, `${page.id}:2:submit`, `${page.id}:2:settle`].sort(),
    );
    const after = await usdc();
    assert.equal(after.available, before.available - 4_321, 'paid out once');
    assert.equal(after.external, before.external + 4_321);
    assert.deepEqual(await statusPath(context, page.id), [
      'CREATED/AWAITING_CUSTOMER',
      'PENDING/KYC_REQUIRED',
      'PENDING/KYC_IN_REVIEW',
      'PENDING/AWAITING_RELEASE',
      'PROCESSING/SUBMITTED',
      'PROCESSED/PAID',
      'FAILED/PAYOUT_RETURNED',
      'PENDING/AWAITING_RELEASE',
      'PROCESSING/SUBMITTED',
      'PROCESSED/PAID',
    ]);
    const again = await retryPayout(context, merchant, page.id, bankMethod);
    assert.ok(!again.ok && again.code === 'INVALID_STATE', 'a paid page takes no other details');
  });

  test('a rejected MANUAL payout retried with new details waits for the merchant’s release again', async () => {
    const page = await createPage(context, merchant, { amount: 2_000, releaseMethod: 'MANUAL' });
    await confirmPage(context, merchant, page.id, { payoutMethod: rejectedBankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
    await advanceAndDrain(context);
    const rejected = await getPage(context, merchant, page.id);
    assert.equal(`${rejected.status}/${rejected['sub-status']}`, 'FAILED/PAYOUT_REJECTED');
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template === 'payout_page_failed' && /enter other details/i.test(email.text)));
    const retried = await retryPayout(context, merchant, page.id, otherBankMethod);
    assert.ok(retried.ok, JSON.stringify(retried));
    assert.equal(retried.page['sub-status'], 'AWAITING_RELEASE');
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    assert.deepEqual(
      (await attemptsOfPage(context, page.id)).map((attempt) => `${attempt.number}:${attempt.status}`),
      ['1:REJECTED', '2:PAID'],
    );
  });

  test('destination details are sealed at rest; the response masks them', async () => {
    const page = await createPage(context, merchant);
    await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    const [row] = await context.database.db.select().from(payoutPages).where(eq(payoutPages.id, page.id));
    const stored = JSON.stringify(row);
    for (const secret of ['000123456789', '021000021', 'Ada Lovelace', 'ada@example.com']) {
      assert.equal(stored.includes(secret), false, `${secret} is not stored in plaintext`);
    }
    assert.deepEqual((await getPage(context, merchant, page.id)).payoutMethod, { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' });
    const emailText = JSON.stringify(await pageEmails(context, page.id));
    assert.equal(emailText.includes('000123456789'), false, 'no account number in e-mails');
  });
});
