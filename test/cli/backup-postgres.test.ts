import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../src/crypto/keyring.ts';
import { migrateDatabase, openPostgres, queryRows, type Database } from '../../src/db/client.ts';
import { createTestContext, json, type TestContext } from '../helpers/context.ts';
import { createPostgresTestDatabase, testDatabaseKind } from '../helpers/database.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { createPage as createPayoutPage } from '../helpers/payout-pages.ts';
import { createRefund, paidPage, settleSandboxRefunds } from '../helpers/refunds.ts';

const run = promisify(execFile);

/** Every table's row count and every ledger account's balance: what a restore must give back exactly. */
async function stateOf(database: Database): Promise<{ tables: Record<string, number>; accounts: Array<{ id: string; balance: number }> }> {
  const names = await queryRows<{ name: string }>(database.db, sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by 1`);
  const tables: Record<string, number> = {};
  for (const { name } of names) {
    const [row] = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from ${sql.identifier(name)}`);
    tables[name] = row?.count ?? 0;
  }
  const accounts = await queryRows<{ id: string; balance: number }>(database.db, sql`select id, balance from ledger_accounts order by id`);
  return { tables, accounts };
}

/**
 * The PostgreSQL restore drill of docs/guides/deployment.md (Backups): activity through the API
 * (card payments, a refund, a payout page holding funds), `pg_dump -Fc` of the database, `pg_restore`
 * into a new database, then Paysail starts on the copy (migrations, platform, app) and answers every
 * balance as before, with every table's row count equal. PostgreSQL's own binaries, as an operator
 * runs them. PostgreSQL only: the embedded database has `paysail backup` (backup.test.ts).
 */
describe('PostgreSQL restore drill: pg_dump → pg_restore into a new database → Paysail starts on it', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL half of the suite only (pg_dump and pg_restore against the test server)' : false }, () => {
  const keyRing = createKeyRing(parseKeySpec(generateKeySpec('drill1')));
  const baseUrl = process.env.DATABASE_URL ?? '';
  let source: { url: string; drop(): Promise<void> };
  let restoredName: string;
  let restoredUrl: string;
  let workDir: string;

  before(async () => {
    source = await createPostgresTestDatabase(baseUrl);
    restoredName = `paysail_drill_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
    const url = new URL(baseUrl);
    url.pathname = `/${restoredName}`;
    restoredUrl = url.toString();
    workDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-drill-'));
  });
  after(async () => {
    await source.drop();
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`drop database if exists "${restoredName}" with (force)`);
    await admin.end();
    fs.rmSync(workDir, { recursive: true, force: true });
  });

  test('every balance and row count is equal on the restored database, and it takes new writes', async () => {
    const database = await openPostgres(source.url, { max: 4 });
    let context: TestContext = await createTestContext({ database, keyRing });
    let merchantKey: string;
    let balancesBefore: unknown;
    let stateBefore: Awaited<ReturnType<typeof stateOf>>;
    try {
      const merchant = await context.createMerchant();
      merchantKey = merchant.apiKey;
      const first = await paidPage(context, merchant);
      await paidPage(context, merchant, { amount: 2_500 });
      await createRefund(context, merchant, { paymentPageId: first.id, amount: 300 });
      await settleSandboxRefunds(context);
      await createPayoutPage(context, merchant);
      balancesBefore = json(await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchantKey }));
      stateBefore = await stateOf(database);
      await assertLedgerInvariants(database);
    } finally {
      await context.close();
      await database.close();
    }
    assert.ok((stateBefore.tables.refunds ?? 0) > 0 && (stateBefore.tables.payout_pages ?? 0) > 0 && (stateBefore.tables.ledger_entries ?? 0) > 0);

    const dump = path.join(workDir, 'paysail.dump');
    await run('pg_dump', ['--format=custom', '--no-owner', `--file=${dump}`, source.url]);
    const admin = new pg.Client({ connectionString: baseUrl });
    await admin.connect();
    await admin.query(`create database "${restoredName}"`);
    await admin.end();
    await run('pg_restore', ['--no-owner', '--exit-on-error', `--dbname=${restoredUrl}`, dump]);

    const restored = await openPostgres(restoredUrl, { max: 4 });
    try {
      assert.deepEqual(await stateOf(restored), stateBefore, 'every table holds as many rows, and every account the same balance');
      await migrateDatabase(restored);
      context = await createTestContext({ database: restored, keyRing });
      try {
        const balances = json(await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: merchantKey }));
        assert.deepEqual(balances, balancesBefore);
        await assertLedgerInvariants(restored);
        const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchantKey, body: { referenceId: 'after-restore', signupAt: 1_767_225_600_000 } });
        assert.equal(created.statusCode, 200, created.body);
      } finally {
        await context.close();
      }
    } finally {
      await restored.close();
    }
  });
});
