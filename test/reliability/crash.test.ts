import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { createPostgresTestDatabase, testDatabaseKind } from '../helpers/database.ts';
import { runCrashHarness } from './crash.ts';

/**
 * CI's short version of the crash-safety harness (crash.ts): 30 SIGKILLs of API and worker
 * processes over 150 operations. `npm run soak` runs the long one (200 kills over 1,000).
 *
 * PostgreSQL only: the harness runs several real processes on one database, which an embedded
 * PGlite data directory does not allow (one owner process, enforced by a lock file).
 */
describe('crash safety: SIGKILL API and worker processes at random points', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL only (several processes on one database)' : false }, () => {
  test('30 kills over 150 operations: nothing acknowledged is lost, nothing is duplicated, the ledger balances', { timeout: 300_000 }, async (t) => {
    const database = await createPostgresTestDatabase();
    try {
      const seed = process.env.CRASH_SEED ? Number(process.env.CRASH_SEED) : undefined;
      const result = await runCrashHarness({ databaseUrl: database.url, operations: 150, kills: 30, ...(seed !== undefined ? { seed } : {}), log: (line) => t.diagnostic(line) });
      t.diagnostic(JSON.stringify(result));
      assert.ok(result.operations >= 150, 'every operation was issued (and the follow-ups they queued)');
      assert.equal(result.acknowledged, result.operations, 'every operation was acknowledged');
      assert.equal(result.kills.api + result.kills.worker, 30, 'every kill happened');
      assert.ok(result.kills.api > 0 && result.kills.worker > 0, 'both API and worker processes were killed');
      assert.ok(result.events > 0 && result.emails > 0, 'the run produced events and e-mails');
    } finally {
      await database.drop();
    }
  });
});
