import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, bankMethod, closePayoutPageSuite, confirmPage, createPage, deadWalletMethod, fullKyc, getPage, openPayoutPageSuite, pageAction, pageEmails, rejectedBankMethod, statusPath, type PayoutPageData } from '../../helpers/payout-pages.ts';
import { payoutAttempts, sandboxProviderRecords } from '../../../src/db/schema/index.ts';
import { queryRows } from '../../../src/db/client.ts';

const opening = 100_000_000;

/** What the customer's KYC and the sandbox rail refuse after confirmation, a retried submit at the rail, and the money conserved through all of it. */
describe('POST /v1/test_helpers/payout_pages/:id/confirm: KYC rejections, rail rejections, rail retries', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(async () => closePayoutPageSuite(context));

  const usdc = () => balanceOf(context.database, merchant.id, false, 'USDC');

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
