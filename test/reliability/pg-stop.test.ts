import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { testDatabaseKind } from '../helpers/database.ts';
import { runPgStopHarness } from './pg-stop.ts';

/**
 * CI's short version of the database-outage harness (pg-stop.ts): a private PostgreSQL cluster is
 * crashed (`pg_ctl stop -m immediate`) 3 times under load; `npm run soak` does it 10 times.
 *
 * Run with the PostgreSQL half of the suite only: it needs PostgreSQL's server binaries (which that
 * half has), and on PGlite the embedded database cannot be stopped apart from the process.
 */
describe('database outages: PostgreSQL stopped abruptly under load', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL half of the suite only (needs the server binaries)' : false }, () => {
  test('3 immediate stops: 503 envelopes during the outage, no hang, every acknowledged write survives', { timeout: 240_000 }, async (t) => {
    const result = await runPgStopHarness({ stops: 3, log: (line) => t.diagnostic(line) });
    t.diagnostic(JSON.stringify(result));
    assert.equal(result.lost, 0);
    assert.equal(result.hangs, 0);
    assert.ok(result.acknowledged > 0, 'writes were acknowledged');
    assert.equal(result.duringOutage.serviceUnavailable, result.duringOutage.answers, 'every outage answer was a 503');
  });
});
