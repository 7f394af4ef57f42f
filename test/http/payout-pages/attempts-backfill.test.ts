import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { migrationsFolder, queryRows, type Database } from '../../../src/db/client.ts';
import { customers, jobs, payoutAttempts, payoutPages } from '../../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { advanceAndDrain, bankMethod, createPage, getPage } from '../../helpers/payout-pages.ts';

/**
 * Migration 0017: payout pages that were PROCESSING at the upgrade that brought payout attempts
 * (0008) have no attempt row. Seeded as the upgrade found them — one page handed to the sandbox rail
 * under its page id (how payouts were keyed then), one not handed over yet, one with its attempt —
 * then the migration's statement runs: the first two get attempts the reconciliation settles (no
 * second payout at the rail), the third is left alone; the statement is idempotent.
 */

const backfillTag = '0017_backfill_processing_payout_attempts';

/**
 * The backfill's statement, as the migrator runs it. It is applied here to a database at the current
 * schema (the app that seeds the pages writes every later column), after the seeding put the pages
 * back as they were before payout attempts existed; the journal must list it, so upgrades run it.
 */
function backfillStatement(): string {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries: Array<{ tag: string }> };
  assert.ok(journal.entries.some((entry) => entry.tag === backfillTag), `the journal has ${backfillTag}`);
  return fs.readFileSync(path.join(migrationsFolder, `${backfillTag}.sql`), 'utf8');
}

describe('migration 0017: PROCESSING payout pages without an attempt row get one, and reconciliation finishes them', () => {
  let database: Database;
  let context: TestContext;
  let merchant: TestMerchant;
  const ids = { submitted: '', unsubmitted: '', current: '' };

  /** A sandbox page confirmed to PROCESSING (its submit job not run), as the upgrade found it. */
  async function processingPage(amount: number): Promise<string> {
    const page = await createPage(context, merchant, { amount, fundingCurrency: 'USD' });
    await database.db.update(customers).set({ kycStatus: 'APPROVED' }).where(eq(customers.id, page.customer.id));
    await context.platform.services.payoutPages.confirm(page.id, bankMethod);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSING');
    return page.id;
  }

  /** Removes what 0008 brought (the attempt and its jobs): the page as it was before the upgrade. */
  async function asBeforeAttempts(pageId: string, submitted: boolean): Promise<void> {
    await database.db.delete(jobs).where(sql`${jobs.payload}->>'payoutPageId' = ${pageId}`);
    await database.db.delete(payoutAttempts).where(eq(payoutAttempts.payoutPageId, pageId));
    if (submitted) {
      const [row] = await database.db.select().from(payoutPages).where(eq(payoutPages.id, pageId));
      assert.ok(row);
      const rail = context.platform.services.payoutPages.railFor(false, 'BANK_TRANSFER');
      assert.ok(rail);
      // Before attempts, the payout was keyed on the page id.
      const record = await rail.submit({ payoutId: pageId, livemode: false, amount: row.amount, currency: 'USD', destination: { ...bankMethod }, merchantName: 'Backfill Co' });
      await database.db.update(payoutPages).set({ rail: rail.name, railReference: record.reference, submittedAt: context.clock.now() }).where(eq(payoutPages.id, pageId));
    }
  }

  const attemptsOf = (pageId: string) => database.db.select().from(payoutAttempts).where(eq(payoutAttempts.payoutPageId, pageId));

  before(async () => {
    context = await createTestContext();
    database = context.database;
    merchant = await context.createMerchant({ name: 'Backfill Co' });
    ids.submitted = await processingPage(1_100);
    ids.unsubmitted = await processingPage(2_200);
    ids.current = await processingPage(3_300);
    await asBeforeAttempts(ids.submitted, true);
    await asBeforeAttempts(ids.unsubmitted, false);
    assert.equal((await attemptsOf(ids.submitted)).length, 0);
    await database.db.execute(sql.raw(backfillStatement()));
  });
  after(async () => {
    await assertLedgerInvariants(database);
    await context.close();
  });

  test('a page handed to the rail before the upgrade: a SUBMITTED attempt under the page id, with the rail and its reference', async () => {
    const [attempt, ...others] = await attemptsOf(ids.submitted);
    assert.deepEqual(others, []);
    assert.ok(attempt);
    assert.deepEqual(
      { id: attempt.id, status: attempt.status, rail: attempt.rail, reference: attempt.railReference, number: attempt.number, merchantId: attempt.merchantId, livemode: attempt.livemode },
      { id: ids.submitted, status: 'SUBMITTED', rail: 'sandbox-rail', reference: ids.submitted, number: 1, merchantId: merchant.id, livemode: false },
    );
  });

  test('a page not handed over yet: a SUBMITTING attempt under the page id; a page with its attempt is left alone', async () => {
    const [attempt] = await attemptsOf(ids.unsubmitted);
    assert.equal(attempt?.id, ids.unsubmitted);
    assert.equal(attempt?.status, 'SUBMITTING');
    assert.equal(attempt?.railReference, null);
    const current = await attemptsOf(ids.current);
    assert.equal(current.length, 1);
    assert.notEqual(current[0]?.id, ids.current, 'its own attempt, not a backfilled one');
  });

  test('the statement is idempotent: run again, nothing changes', async () => {
    const before = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from payout_attempts`);
    await database.db.execute(sql.raw(backfillStatement()));
    const after = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from payout_attempts`);
    assert.deepEqual(after, before);
  });

  test('the reconciliation finishes both: PROCESSED, one payout each at the sandbox rail (the one sent before the upgrade found again)', async () => {
    const reconcileAfterMs = context.config.payoutReconcileAfterMs;
    context.clock.advance(reconcileAfterMs + 1_000);
    await database.transaction((tx) => context.platform.services.payoutPages.scheduleReconcile(tx, new Date(context.clock.now().getTime() - reconcileAfterMs)));
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    for (const id of [ids.submitted, ids.unsubmitted, ids.current]) {
      assert.equal((await getPage(context, merchant, id)).status, 'PROCESSED', `page ${id}`);
    }
    const records = await queryRows<{ reference: string; copies: number }>(
      database.db,
      sql`select reference, count(*)::int as copies from sandbox_provider_records where reference in (${ids.submitted}, ${ids.unsubmitted}) group by reference order by reference`,
    );
    assert.deepEqual(records.map((row) => row.copies), [1, 1], 'one payout per page at the rail');
  });
});
