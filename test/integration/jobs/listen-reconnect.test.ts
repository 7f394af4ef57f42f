import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../../src/db/client.ts';
import { openTestDatabase, testDatabaseKind } from '../../helpers/database.ts';
import { waitFor } from '../../helpers/jobs.ts';

// PostgreSQL only: the LISTEN connection is a separate server session there, which a database
// restart or failover can break; PGlite's LISTEN lives in-process and cannot be cut.
describe('LISTEN survives a broken connection (PostgreSQL)', { skip: testDatabaseKind !== 'postgres' ? 'PGlite has no separate LISTEN connection to break' : false }, () => {
  let database: Database;
  let unlisten: () => Promise<void>;
  let received = 0;

  before(async () => {
    database = await openTestDatabase();
    unlisten = await database.listen('paysail_reconnect_test', () => {
      received += 1;
    });
  });
  after(async () => {
    await unlisten();
    await database.close();
  });

  test('a terminated LISTEN session is re-opened, wakes its listener once, and receives later notifications', async () => {
    await queryRows(database.db, sql`select pg_notify('paysail_reconnect_test', 'before')`);
    await waitFor(async () => received === 1, { what: 'the first notification' });

    const terminated = await queryRows<{ terminated: boolean }>(
      database.db,
      sql`select pg_terminate_backend(pid) as terminated from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and query like 'LISTEN "paysail_reconnect_test"%'`,
    );
    assert.equal(terminated.length, 1, 'exactly one LISTEN session to cut');
    // The reconnect itself calls the listener once (work may have been notified while it was down).
    await waitFor(async () => received === 2, { what: 'the wake-up after reconnecting', timeoutMs: 20_000 });
    await waitFor(
      async () => (await queryRows(database.db, sql`select 1 from pg_stat_activity where datname = current_database() and query like 'LISTEN "paysail_reconnect_test"%'`)).length === 1,
      { what: 'a new LISTEN session' },
    );

    await queryRows(database.db, sql`select pg_notify('paysail_reconnect_test', 'after')`);
    await waitFor(async () => received === 3, { what: 'a notification on the new session' });
  });
});
