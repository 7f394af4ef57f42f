import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { migrationsFolder, queryRows } from '../../../src/db/client.ts';
import { paymentPages, payments } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { paidPage } from '../../helpers/refunds.ts';
import { runInProcess } from '../../cli/helpers.ts';

const migrationFile = fs.readdirSync(migrationsFolder).find((name) => name.endsWith('_backfill_payment_credits.sql'));

/**
 * Card payments that succeeded before card payments were posted to the ledger have no credit: the
 * backfill (the job the migration enqueues, and `paysail balance backfill-payments`) gives every
 * succeeded payment exactly one.
 */
describe('ledger backfill of card payments settled before they were posted', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  /**
   * A page paid before card payments were posted: a copy of a paid page and its payment under new
   * ids, with no ledger transaction (as the old settlement wrote it), in `overrides`' currency and mode.
   */
  async function legacyPayment(template: string, overrides: { amount: number; currency?: string; livemode?: boolean; status?: 'SUCCEEDED' | 'DECLINED' }): Promise<string> {
    const [page] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, template));
    const [payment] = await context.database.db.select().from(payments).where(eq(payments.pageId, template));
    assert.ok(page && payment);
    const now = context.clock.now();
    const pageId = newId('paymentPage', now.getTime());
    const paymentId = newId('payment', now.getTime());
    const currency = overrides.currency ?? 'USD';
    const livemode = overrides.livemode ?? false;
    const status = overrides.status ?? 'SUCCEEDED';
    await context.database.transaction(async (tx) => {
      await tx.insert(paymentPages).values({ ...page, id: pageId, clientReferenceId: randomUUID(), amount: overrides.amount, currency, livemode, status: status === 'SUCCEEDED' ? 'PAID' : 'CREATED', paymentId: status === 'SUCCEEDED' ? paymentId : null, attemptPaymentId: null });
      await tx.insert(payments).values({ ...payment, id: paymentId, pageId, amount: overrides.amount, currency, livemode, status, refundedAmount: 0, cardTokenId: null });
    });
    return paymentId;
  }

  async function creditsOf(paymentId: string): Promise<Array<{ kind: string; currency: string; livemode: boolean }>> {
    return queryRows(context.database.db, sql`select kind, currency, livemode from ledger_transactions where reference = ${paymentId} and kind = 'payment'`);
  }

  async function uncredited(): Promise<string[]> {
    const rows = await queryRows<{ id: string }>(
      context.database.db,
      sql`select p.id from payments p where p.status = 'SUCCEEDED' and (select count(*) from ledger_transactions t where t.idempotency_key = p.id || ':payment' and t.kind = 'payment') <> 1`,
    );
    return rows.map((row) => row.id);
  }

  async function backfillJobs(): Promise<Array<{ status: string }>> {
    return queryRows(context.database.db, sql`select status from jobs where queue = 'payments.backfill-credits'`);
  }

  test('the migration enqueues the job once; it credits each succeeded payment once, in its currency and mode, and nothing else', async () => {
    assert.ok(migrationFile, 'a generated migration holds the data statement');
    const migration = fs.readFileSync(path.join(migrationsFolder, migrationFile), 'utf8');
    // A fresh database holds no payment: the migration enqueued nothing.
    assert.deepEqual(await backfillJobs(), []);

    const settledNow = await paidPage(context, merchant, { amount: 1500 });
    assert.ok(settledNow.paymentId);
    assert.equal((await creditsOf(settledNow.paymentId)).length, 1, 'a payment settled today is credited by its settlement');
    const before = {
      sandboxUsd: await balanceOf(context.database, merchant.id, false, 'USD'),
      sandboxEur: await balanceOf(context.database, merchant.id, false, 'EUR'),
      liveGbp: await balanceOf(context.database, merchant.id, true, 'GBP'),
    };
    const legacy = [
      await legacyPayment(settledNow.id, { amount: 1000 }),
      await legacyPayment(settledNow.id, { amount: 2200, currency: 'EUR' }),
      await legacyPayment(settledNow.id, { amount: 999, currency: 'GBP', livemode: true }),
    ];
    const declined = await legacyPayment(settledNow.id, { amount: 4000, status: 'DECLINED' });
    assert.deepEqual((await uncredited()).sort(), [...legacy].sort());

    // The migration's data statement, as it runs on an installation that holds payments (twice: one job).
    await context.database.db.execute(sql.raw(migration));
    await context.database.db.execute(sql.raw(migration));
    assert.deepEqual(await backfillJobs(), [{ status: 'pending' }]);
    // The statement enqueues it due at the database's now(), which the test clock may be behind.
    context.clock.set(Math.max(context.clock.now().getTime(), Date.now()) + 1_000);
    await context.drainJobs();
    assert.deepEqual(await backfillJobs(), [{ status: 'succeeded' }]);

    assert.deepEqual(await uncredited(), [], 'every succeeded payment has exactly one credit');
    assert.deepEqual(await creditsOf(legacy[1] ?? ''), [{ kind: 'payment', currency: 'EUR', livemode: false }]);
    assert.deepEqual(await creditsOf(legacy[2] ?? ''), [{ kind: 'payment', currency: 'GBP', livemode: true }]);
    assert.deepEqual(await creditsOf(declined), [], 'a declined payment is not credited');
    assert.equal((await creditsOf(settledNow.paymentId)).length, 1, 'one already credited is not credited again');
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, before.sandboxUsd.available + 1000);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'EUR')).available, before.sandboxEur.available + 2200);
    assert.equal((await balanceOf(context.database, merchant.id, true, 'GBP')).available, before.liveGbp.available + 999);

    // Run again (the CLI): nothing more.
    const again = await runInProcess(context.platform, ['balance', 'backfill-payments', '--json']);
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(JSON.parse(again.stdout), { credited: 0, alreadyCredited: 0 });
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, before.sandboxUsd.available + 1000);
  });

  test('concurrent runs and small batches credit each payment exactly once; the CLI reports the count', async () => {
    const template = await paidPage(context, merchant, { amount: 100 });
    const legacy = [];
    for (let index = 0; index < 7; index += 1) {
      legacy.push(await legacyPayment(template.id, { amount: 100 + index }));
    }
    const before = await balanceOf(context.database, merchant.id, false, 'USD');
    const runs = await Promise.all([context.platform.services.paymentCredits.run({ batchSize: 2 }), context.platform.services.paymentCredits.run({ batchSize: 3 })]);
    assert.equal(runs.reduce((sum, run) => sum + run.credited, 0), 7, 'seven credits between the two runs');
    assert.deepEqual(await uncredited(), []);
    const added = legacy.length * 100 + (0 + 1 + 2 + 3 + 4 + 5 + 6);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, before.available + added);

    const one = await legacyPayment(template.id, { amount: 321 });
    const cli = await runInProcess(context.platform, ['balance', 'backfill-payments']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(cli.stdout, 'Credited 1 card payment that had no ledger credit; every succeeded payment now has exactly one.\n');
    assert.equal((await creditsOf(one)).length, 1);
  });
});
