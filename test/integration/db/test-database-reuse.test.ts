import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { openTestDatabase, testDatabaseKind } from '../../helpers/database.ts';
import { createTestContext } from '../../helpers/context.ts';

type Embedded = Awaited<ReturnType<typeof openTestDatabase>> & { client: PGlite };

/** Every table of `public` with its row count. */
async function rowCounts(database: Embedded): Promise<Record<string, number>> {
  const tables = await database.client.query<{ name: string }>(`select tablename as name from pg_tables where schemaname = 'public' order by 1`);
  const counts: Record<string, number> = {};
  for (const { name } of tables.rows) {
    counts[name] = (await database.client.query<{ n: number }>(`select count(*)::int as n from "${name}"`)).rows[0]?.n ?? -1;
  }
  return counts;
}

describe('test databases: a closed embedded database goes, emptied, to the next file of the process (decision 0066)', { skip: testDatabaseKind === 'postgres' ? 'the PostgreSQL run clones a database per file' : false }, () => {
  test('rows of every kind (ledger and audit log included) are gone, the migration journal stays, and the database is the same instance', async () => {
    const context = await createTestContext();
    const merchant = await context.createMerchant({ live: true });
    const funded = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { amount: 5000, currency: 'USD' } });
    assert.equal(funded.statusCode, 200, funded.body);
    const used = context.database as Embedded;
    const before = await rowCounts(used);
    assert.ok((before.ledger_entries ?? 0) > 0 && (before.merchants ?? 0) > 0, JSON.stringify(before));
    const journal = (await used.client.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0]?.n;
    await context.close();

    const next = (await openTestDatabase()) as Embedded;
    try {
      assert.equal(next.client, used.client, 'the kept database is handed out again');
      const after = await rowCounts(next);
      assert.deepEqual(Object.entries(after).filter(([, count]) => count !== 0), []);
      assert.equal((await next.client.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0]?.n, journal);
      // The ledger's triggers are on again: a ledger entry cannot be deleted or truncated.
      await assert.rejects(next.client.query('truncate ledger_entries'), /ledger/);
    } finally {
      await next.close();
    }
  });

  test('a database whose schema a file changed, or left inside a transaction, is closed instead of kept', async () => {
    const altered = (await openTestDatabase()) as Embedded;
    await altered.client.exec('alter table merchants add column scratch text');
    await altered.close();
    assert.equal(altered.client.closed, true, 'a changed schema is not handed out again');

    const open = (await openTestDatabase()) as Embedded;
    assert.notEqual(open.client, altered.client);
    await open.client.exec('begin');
    await open.close();
    assert.equal(open.client.closed, true, 'a database left inside a transaction is not handed out again');

    const triggerOff = (await openTestDatabase()) as Embedded;
    await triggerOff.client.exec('alter table ledger_entries disable trigger ledger_entries_immutable');
    await triggerOff.close();
    assert.equal(triggerOff.client.closed, true, 'a disabled trigger is a changed snapshot');
  });
});
