import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { openPostgres, queryRows } from '../../src/db/client.ts';
import { isDatabaseUnavailable } from '../../src/http/core.ts';
import { createPostgresTestDatabase, testDatabaseKind } from '../helpers/database.ts';

/**
 * Regression (found by the pg-stop harness): a PostgreSQL connection that dies while the pool has
 * it checked out — between two statements of a transaction, as in a database restart or failover —
 * emitted an unhandled 'error' event and killed the whole process. Now the transaction fails with
 * an error answered as 503, and the pool carries on with fresh connections.
 *
 * PostgreSQL only: it terminates a server backend (pg_terminate_backend); PGlite has no connections.
 */
describe('the PostgreSQL pool survives a connection dying mid-transaction', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL only (terminates a server connection)' : false }, () => {
  test('the transaction fails as "database unavailable", the process lives on, the next query works', async () => {
    const created = await createPostgresTestDatabase();
    const database = await openPostgres(created.url, { max: 2 });
    const admin = new pg.Client({ connectionString: created.url });
    await admin.connect();
    try {
      const failure = await database
        .transaction(async (tx) => {
          const [row] = await queryRows<{ pid: number }>(tx, sql`select pg_backend_pid() as pid`);
          await admin.query('select pg_terminate_backend($1)', [row?.pid]);
          // Let the connection's 'error' event fire while no statement is running on it.
          await new Promise((resolve) => setTimeout(resolve, 300));
          await tx.execute(sql`select 1`);
          return 'committed';
        })
        .catch((error: unknown) => error);
      assert.notEqual(failure, 'committed', 'the transaction cannot go on without its connection');
      assert.ok(isDatabaseUnavailable(failure), `mapped to 503: ${String(failure)}`);
      await database.ping();
      const [again] = await queryRows<{ one: number }>(database.db, sql`select 1 as one`);
      assert.equal(again?.one, 1, 'fresh connections serve the next queries');
    } finally {
      await admin.end();
      await database.close();
      await created.drop();
    }
  });
});
