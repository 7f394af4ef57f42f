import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import {
  advanceAndDrain,
  bankMethod,
  confirmPage,
  createPage,
  deadWalletMethod,
  errorCodeOf,
  fullKyc,
  getPage,
  pageAction,
  pageEmails,
  payoutEvents,
  rejectedBankMethod,
  statusPath,
  walletMethod,
  type PayoutPageData,
  assertOneEventPerChange,
} from '../../helpers/payout-pages.ts';
import { customers, payoutAttempts, payoutPages, sandboxProviderRecords } from '../../../src/db/schema/index.ts';
import { queryRows } from '../../../src/db/client.ts';

const opening = 100_000_000;

describe('payout pages: cancel, decline, expiry, rejections, invalid actions', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
  });

  async function usdc() {
    return balanceOf(context.database, merchant.id, false, 'USDC');
  }

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

  test('a page past expiresAt cannot be confirmed even before the job ran', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    context.clock.advance(1_000);
    const late = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(late.statusCode, 409);
    assert.match(String(json(late).errorMessage), /expired/);
    await context.drainJobs();
    assert.equal((await getPage(context, merchant, page.id)).status, 'EXPIRED');
  });

  test('KYC rejected → FAILED/KYC_REJECTED and the reservation is released', async () => {
    const before = await usdc();
    const page = await createPage(context, merchant, { amount: 3_000 });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod, kyc: { ...fullKyc, lastName: 'Rejected' } });
    assert.equal(json<{ data: PayoutPageData }>(confirmed).data['sub-status'], 'KYC_IN_REVIEW');
    await advanceAndDrain(context);
    const failed = await getPage(context, merchant, page.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed['sub-status'], 'KYC_REJECTED');
    assert.equal(typeof failed.statusReason, 'string');
    assert.deepEqual(await usdc(), before);
    assert.ok((await pageEmails(context, page.id)).some((email) => email.template === 'payout_page_failed'));
    // The same customer's next page fails at once on confirmation (KYC is already REJECTED).
    const next = await createPage(context, merchant, { customer: { referenceId: page.customer.referenceId, email: 'ada@example.com' } });
    const nextConfirmed = json<{ data: PayoutPageData }>(await confirmPage(context, merchant, next.id, { payoutMethod: bankMethod }));
    assert.equal(nextConfirmed.data['sub-status'], 'KYC_REJECTED');
    assert.deepEqual(await usdc(), before);
  });

  for (const [label, method] of [
    ['bank account ending 0002', rejectedBankMethod],
    ['EVM wallet ending dEaD', deadWalletMethod],
    ['Solana wallet ending dead', { type: 'CRYPTO_WALLET', network: 'SOLANA', address: 'US517G5965aydkZ46HS38QLi7UQiSojurfbQfKCdead' }],
  ] as const) {
    test(`sandbox rail rejects a ${label} → FAILED/PAYOUT_REJECTED, funds back to available`, async () => {
      const before = await usdc();
      const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', amount: 4_000 });
      await confirmPage(context, merchant, page.id, { payoutMethod: method, kyc: fullKyc });
      await advanceAndDrain(context);
      assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'AWAITING_RELEASE');
      assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
      await context.drainJobs();
      assert.equal((await usdc()).inFlight, before.inFlight + 4_000);
      await advanceAndDrain(context);
      const failed = await getPage(context, merchant, page.id);
      assert.equal(failed.status, 'FAILED');
      assert.equal(failed['sub-status'], 'PAYOUT_REJECTED');
      assert.match(String(failed.statusReason), /sandbox/);
      assert.deepEqual(await usdc(), before);
      assert.deepEqual((await statusPath(context, page.id)).slice(-2), ['PROCESSING/SUBMITTED', 'FAILED/PAYOUT_REJECTED']);
      const cancel = await pageAction(context, merchant, page.id, 'cancel');
      assert.equal(cancel.statusCode, 409);
    });
  }

  test('INVALID_STATE for every action the state does not allow', async () => {
    // release of an AUTOMATIC page, cancel while PROCESSING and after PROCESSED, decline while PROCESSING
    const page = await createPage(context, merchant, { releaseMethod: 'AUTOMATIC' });
    const autoRelease = await pageAction(context, merchant, page.id, 'release');
    assert.equal(autoRelease.statusCode, 409);
    assert.match(String(json(autoRelease).errorMessage), /AUTOMATIC/);
    await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSING');
    for (const response of [
      await pageAction(context, merchant, page.id, 'cancel'),
      await pageAction(context, merchant, page.id, 'release'),
      await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${page.id}/decline?livemode=false`, apiKey: merchant.apiKey }),
      await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod }),
    ]) {
      assert.equal(response.statusCode, 409, response.body);
      assert.equal(errorCodeOf(response), 'INVALID_STATE');
    }
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    const late = await pageAction(context, merchant, page.id, 'cancel');
    assert.equal(errorCodeOf(late), 'INVALID_STATE');
    // The failed attempts changed nothing: five changes, five events.
    assert.equal((await payoutEvents(context, page.id)).length, 5);
  });

  test('supportedPayoutMethods limits the choice', async () => {
    const page = await createPage(context, merchant);
    const set = await context.admin('POST', `/admin/v1/customers/${page.customer.id}/supported_payout_methods`, { supportedPayoutMethods: ['CRYPTO_WALLET'] });
    assert.equal(set.statusCode, 200, set.body);
    const bank = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(bank.statusCode, 400);
    assert.equal(json(bank).errorCode, 'WRONG_PARAMETER');
    assert.match(String(json(bank).errorMessage), /payoutMethod.type must be one of CRYPTO_WALLET/);
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: walletMethod })).statusCode, 200);
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

  test('the rail is idempotent by payout id: a retried submit job pays once and settles once', async () => {
    const page = await createPage(context, merchant, { amount: 1_234 });
    await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSING');
    const rail = context.platform.services.payoutPages.railFor(false);
    assert.ok(rail);
    const [attempt] = await context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, page.id));
    assert.ok(attempt, 'the release started an attempt');
    assert.notEqual(attempt.id, page.id, 'the attempt has its own id');
    // A crashed worker's retry: the rail sees the same payout again.
    const destination = { type: 'BANK_TRANSFER' as const, accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountType: 'CHECKING' as const };
    const submission = { payoutId: attempt.id, livemode: false, amount: 1_234, currency: 'USDC' as const, destination, merchantName: 'Test merchant' };
    const first = await rail.submit(submission);
    const second = await rail.submit(submission);
    assert.equal(first.reference, second.reference);
    assert.equal((await rail.retrieve(attempt.id))?.reference, first.reference, 'retrievable by our id');
    assert.equal(await rail.retrieve('payout_attempt_never_submitted'), null);
    for (const [index, payload] of [{ payoutPageId: page.id }, { payoutPageId: page.id, payoutId: attempt.id }].entries()) {
      await context.database.db.execute(sql`insert into jobs (id, queue, payload, status, run_at, attempts, max_attempts, created_at, updated_at)
        values (${`job_retry_${index}_${page.id}`}, 'payout_pages.submit', ${JSON.stringify(payload)}::jsonb, 'pending', ${context.clock.now()}, 0, 5, ${context.clock.now()}, ${context.clock.now()})`);
    }
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    const records = await context.database.db.select().from(sandboxProviderRecords).where(eq(sandboxProviderRecords.reference, attempt.id));
    assert.equal(records.length, 1, 'one payout at the rail');
    const pageRecords = await context.database.db.select().from(sandboxProviderRecords).where(eq(sandboxProviderRecords.reference, page.id));
    assert.equal(pageRecords.length, 0, 'nothing submitted under the page id');
    const settlements = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from ledger_transactions where reference = ${page.id} and kind = 'settle'`);
    assert.equal(settlements[0]?.count, 1);
  });

  test('a customer created by a payout page has the page e-mail and signupAt = now', async () => {
    const page = await createPage(context, merchant, { customer: { referenceId: 'brand-new-customer', email: 'New.Person@Example.com' } });
    const customer = await context.request({ method: 'GET', url: `/v1/customers/${page.customer.id}`, apiKey: merchant.apiKey });
    const data = json<{ data: { referenceId: string; email: string; signupAt: number; kycStatus: string } }>(customer).data;
    assert.equal(data.referenceId, 'brand-new-customer');
    assert.equal(data.email, 'New.Person@Example.com');
    assert.equal(data.signupAt, context.clock.now().getTime());
    assert.equal(data.kycStatus, 'NOT_STARTED');
    const [row] = await context.database.db.select().from(customers).where(eq(customers.id, page.customer.id));
    assert.ok(row);
  });

  test('money is conserved: what the merchant holds is exactly what came in from outside minus what was paid out', async () => {
    const balance = await usdc();
    assert.equal(balance.available + balance.reserved + balance.inFlight + balance.external, 0);
    const paidOut = await queryRows<{ total: number }>(
      context.database.db,
      sql`select coalesce(sum(p.amount), 0)::bigint as total from payout_pages p where p.merchant_id = ${merchant.id} and p.funding_currency = 'USDC' and p.status = 'PROCESSED'`,
    );
    assert.equal(balance.external, -opening + Number(paidOut[0]?.total ?? 0));
  });
});
