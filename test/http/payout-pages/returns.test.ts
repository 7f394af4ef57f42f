import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { asc, eq, sql } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import {
  advanceAndDrain,
  assertOneEventPerChange,
  bankMethod,
  confirmPage,
  createPage,
  fullKyc,
  getPage,
  pageAction,
  pageEmails,
  payoutEvents,
  rejectedBankMethod,
  statusPath,
  type PayoutPageData,
} from '../../helpers/payout-pages.ts';
import { payoutAttempts, payoutPages, sandboxProviderRecords } from '../../../src/db/schema/index.ts';
import { queryRows } from '../../../src/db/client.ts';
import { AppError } from '../../../src/http/errors.ts';
import type { PayoutMethodInput } from '../../../src/modules/payout-pages/destinations.ts';

const returnedBankMethod = { ...bankMethod, accountNumber: '77770003' } as const;
const otherBankMethod = { ...bankMethod, accountNumber: '123456780' } as const;

describe('payout pages: returns after payment, retries with new details (sandbox rail)', () => {
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

  const usdc = () => balanceOf(context.database, merchant.id, false, 'USDC');
  /** Other details, as the hosted page's confirmation sends them (the test helper's confirm stays CREATED-only). */
  async function retry(pageId: string, method: PayoutMethodInput): Promise<{ ok: true; page: PayoutPageData } | { ok: false; code: string; message: string }> {
    try {
      await context.platform.services.payoutPages.confirm(pageId, method);
      return { ok: true, page: await getPage(context, merchant, pageId) };
    } catch (error) {
      if (error instanceof AppError) {
        return { ok: false, code: error.code, message: error.message };
      }
      throw error;
    }
  }
  const attemptsOf = (pageId: string) => context.database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, pageId)).orderBy(asc(payoutAttempts.number));
  const movementsOf = (pageId: string) =>
    queryRows<{ kind: string; key: string }>(context.database.db, sql`select kind, idempotency_key as key from ledger_transactions where reference = ${pageId} order by created_at, id`);

  async function paidThenReturned(releaseMethod: 'AUTOMATIC' | 'MANUAL' = 'AUTOMATIC'): Promise<PayoutPageData> {
    const page = await createPage(context, merchant, { amount: 4_321, releaseMethod });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: returnedBankMethod, kyc: fullKyc })).statusCode, 200);
    await advanceAndDrain(context); // KYC approved → released (AUTOMATIC)
    if (releaseMethod === 'MANUAL') {
      assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
    }
    await advanceAndDrain(context); // paid
    const paid = await getPage(context, merchant, page.id);
    assert.equal(`${paid.status}/${paid['sub-status']}`, 'PROCESSED/PAID');
    await advanceAndDrain(context); // returned a few (sandbox: SANDBOX_PAYOUT_DELAY_MS) seconds later
    return getPage(context, merchant, page.id);
  }

  test('account ending 0003: paid, then returned → FAILED/PAYOUT_RETURNED, money back in available, event and e-mail', async () => {
    const before = await usdc();
    const page = await paidThenReturned();
    assert.equal(page.status, 'FAILED');
    assert.equal(page['sub-status'], 'PAYOUT_RETURNED');
    assert.match(String(page.statusReason), /0003 is returned/);
    assert.deepEqual(await usdc(), before, 'available, reserved, in flight and external as before the page');
    assert.deepEqual(
      (await movementsOf(page.id)).map((row) => row.kind),
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
    const [attempt] = await attemptsOf(page.id);
    assert.equal(attempt?.status, 'RETURNED');
    assert.ok(attempt?.paidAt && attempt.finishedAt);
  });

  test('after a return the customer enters other details: a new attempt with its own id pays once', async () => {
    const before = await usdc();
    const page = await paidThenReturned();
    const helper = await confirmPage(context, merchant, page.id, { payoutMethod: otherBankMethod });
    assert.equal(helper.statusCode, 409, 'the test helper’s confirm stays CREATED-only (docs/API.md §8)');
    const retried = await retry(page.id, otherBankMethod);
    assert.ok(retried.ok, JSON.stringify(retried));
    const data = retried.page;
    assert.equal(`${data.status}/${data['sub-status']}`, 'PROCESSING/SUBMITTED', 'AUTOMATIC: released at once');
    assert.equal(data.payoutMethod?.last4, '6780');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED', 'the second destination is not returned');
    const attempts = await attemptsOf(page.id);
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
      (await movementsOf(page.id)).map((row) => row.key).sort(),
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
    const again = await retry(page.id, bankMethod);
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
    const retried = await retry(page.id, otherBankMethod);
    assert.ok(retried.ok, JSON.stringify(retried));
    assert.equal(retried.page['sub-status'], 'AWAITING_RELEASE');
    assert.equal((await pageAction(context, merchant, page.id, 'release')).statusCode, 200);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
    assert.deepEqual(
      (await attemptsOf(page.id)).map((attempt) => `${attempt.number}:${attempt.status}`),
      ['1:REJECTED', '2:PAID'],
    );
  });

  test('concurrent retries of one page: exactly one is taken, never two attempts in flight', async () => {
    const page = await createPage(context, merchant, { amount: 1_500 });
    await confirmPage(context, merchant, page.id, { payoutMethod: rejectedBankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'PAYOUT_REJECTED');
    const responses = await Promise.all(Array.from({ length: 10 }, () => retry(page.id, otherBankMethod)));
    const outcomes = responses.map((response) => (response.ok ? 'OK' : response.code));
    assert.equal(outcomes.filter((outcome) => outcome === 'OK').length, 1, outcomes.join(','));
    assert.equal(outcomes.filter((outcome) => outcome === 'INVALID_STATE').length, 9, outcomes.join(','));
    const live = (await attemptsOf(page.id)).filter((attempt) => attempt.status === 'SUBMITTING' || attempt.status === 'SUBMITTED');
    assert.equal(live.length, 1);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
  });

  test('bad retry input → 400 WRONG_PARAMETER, nothing written; a retry the balance cannot cover → INSUFFICIENT_FUNDS, nothing written', async () => {
    const poor = await context.createMerchant();
    const page = await createPage(context, poor, { amount: 999_999_00 });
    await confirmPage(context, poor, page.id, { payoutMethod: rejectedBankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, poor, page.id))['sub-status'], 'PAYOUT_REJECTED');
    const [stored] = await context.database.db.select().from(payoutPages).where(eq(payoutPages.id, page.id));
    for (const [field, payoutMethod] of [
      ['payoutMethod.routingNumber', { ...otherBankMethod, routingNumber: '021000022' }],
      ['payoutMethod.accountNumber', { ...otherBankMethod, accountNumber: '12' }],
    ] as const) {
      const response = await retry(page.id, payoutMethod);
      assert.ok(!response.ok && response.code === 'WRONG_PARAMETER', JSON.stringify(response));
      assert.match(response.message, new RegExp(field.replace('payoutMethod.', '')));
    }
    // The merchant spends the balance meanwhile: the reservation cannot be made again.
    await createPage(context, poor, { amount: (await balanceOf(context.database, poor.id, false, 'USDC')).available });
    const short = await retry(page.id, otherBankMethod);
    assert.ok(!short.ok && short.code === 'INSUFFICIENT_FUNDS', JSON.stringify(short));
    const [unchanged] = await context.database.db.select().from(payoutPages).where(eq(payoutPages.id, page.id));
    assert.deepEqual(unchanged, stored);
    assert.equal((await attemptsOf(page.id)).length, 1);
  });
});
