import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { PGlite } from '@electric-sql/pglite';
import { openTestDatabase, testDatabaseKind } from '../../helpers/database.ts';
import { createTestContext } from '../../helpers/context.ts';

type Embedded = Awaited<ReturnType<typeof openTestDatabase>> & { client: PGlite };

/** A new transaction's id: it goes on in a database kept open, and starts again from the snapshot's in one loaded anew. */
async function currentTransaction(database: Embedded): Promise<number> {
  return Number((await database.client.query<{ id: string }>('select txid_current()::text as id')).rows[0]?.id);
}

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
    const lastTransaction = await currentTransaction(used);
    await context.close();
    await assert.rejects(used.ping(), /closed/, 'the closed handle is refused, as a closed database');

    const next = (await openTestDatabase()) as Embedded;
    try {
      assert.ok((await currentTransaction(next)) > lastTransaction, 'the kept database is handed out again (its transaction ids go on)');
      const after = await rowCounts(next);
      assert.deepEqual(Object.entries(after).filter(([, count]) => count !== 0), []);
      assert.equal((await next.client.query<{ n: number }>('select count(*)::int as n from drizzle.__drizzle_migrations')).rows[0]?.n, journal);
      // The ledger's triggers are on again: a ledger entry cannot be deleted or truncated.
      await assert.rejects(next.client.query('truncate ledger_entries'), /ledger/);
    } finally {
      await next.close();
    }
  });

  for (const [what, change] of [
    ['a changed schema', 'alter table merchants add column scratch text'],
    ['a transaction left open', 'begin'],
    ['a disabled trigger', 'alter table ledger_entries disable trigger ledger_entries_immutable'],
  ] as const) {
    test(`a database with ${what} is closed instead of kept: the next file gets the snapshot`, async () => {
      const changed = (await openTestDatabase()) as Embedded;
      // Transactions the snapshot does not have: a database loaded from it starts below these.
      for (let index = 0; index < 5; index += 1) {
        await currentTransaction(changed);
      }
      const lastTransaction = await currentTransaction(changed);
      await changed.client.exec(change);
      await changed.close();
      const next = (await openTestDatabase()) as Embedded;
      try {
        assert.ok((await currentTransaction(next)) < lastTransaction, `${what}: not handed out again`);
      } finally {
        await next.close();
      }
    });
  }
});
