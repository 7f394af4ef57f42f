import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../../src/db/client.ts';
import { enqueueJob } from '../../../src/jobs/queue.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestWorker, jobRows, waitFor } from '../../helpers/jobs.ts';

describe('enqueueJob: the job exists if and only if the caller commits', () => {
  let database: Database;
  const clock = new TestClock();

  before(async () => {
    database = await openTestDatabase();
  });
  after(async () => database.close());

  test('an enqueue inside a rolled-back transaction leaves no job (and runs no after-commit hook)', async () => {
    let afterCommitRan = false;
    await assert.rejects(
      database.transaction(async (tx, afterCommit) => {
        const id = await enqueueJob(tx, clock.now(), 'test.rollback', { n: 1 });
        assert.ok(id);
        afterCommit(() => {
          afterCommitRan = true;
        });
        assert.equal((await queryRows(tx, sql`select 1 from jobs where id = ${id}`)).length, 1, 'visible inside the transaction');
        throw new Error('the business change failed');
      }),
      /business change failed/,
    );
    assert.deepEqual(await jobRows(database, 'test.rollback'), []);
    assert.equal(afterCommitRan, false);
  });

  test('a committed enqueue is pending, due at runAt, with the queue policy marker for attempts', async () => {
    const runAt = new Date(clock.now().getTime() + 5_000);
    const id = await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.commit', { n: 2 }, { runAt }));
    const [row] = await jobRows(database, 'test.commit');
    assert.equal(row?.id, id);
    assert.equal(row?.status, 'pending');
    assert.equal(row?.attempts, 0);
    assert.equal(row?.runAt.getTime(), runAt.getTime());
    assert.match(String(id), /^job_[0-9a-z]{36}$/);
  });

  test('a dedupeKey makes enqueue exactly-once, also across transactions and after the job ran', async () => {
    const first = await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.dedupe', { n: 1 }, { dedupeKey: 'dedupe-1' }));
    const second = await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.dedupe', { n: 2 }, { dedupeKey: 'dedupe-1' }));
    assert.ok(first);
    assert.equal(second, null, 'the second enqueue is a no-op');
    const runs: unknown[] = [];
    const { worker } = createTestWorker({ database, clock, definitions: [{ queue: 'test.dedupe', handle: async (payload: never) => void runs.push(payload) }] });
    await worker.drain();
    assert.deepEqual(runs, [{ n: 1 }]);
    assert.equal(await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.dedupe', { n: 3 }, { dedupeKey: 'dedupe-1' })), null);
    await worker.drain();
    assert.deepEqual(runs, [{ n: 1 }]);
    assert.equal((await jobRows(database, 'test.dedupe')).length, 1);
    // Without a key, every enqueue is a job.
    await database.transaction(async (tx) => {
      await enqueueJob(tx, clock.now(), 'test.dedupe', { n: 4 });
      await enqueueJob(tx, clock.now(), 'test.dedupe', { n: 4 });
    });
    assert.equal((await jobRows(database, 'test.dedupe')).length, 3);
  });

  test('concurrent enqueues with one dedupeKey create one job', async () => {
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, index) => database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.dedupe-race', { index }, { dedupeKey: 'race-key' }))),
    );
    assert.equal(results.filter((result) => result !== null).length, 1);
    assert.equal((await jobRows(database, 'test.dedupe-race')).length, 1);
  });

  test('a committed enqueue wakes an idle worker through NOTIFY (no poll wait)', async () => {
    const ran: string[] = [];
    const { worker } = createTestWorker({ database, clock, pollIntervalMs: 60_000, definitions: [{ queue: 'test.notify', handle: async (payload: never) => void ran.push((payload as { name: string }).name) }] });
    await worker.start();
    try {
      // Let the loop reach its idle wait first.
      await new Promise((resolve) => setTimeout(resolve, 200));
      await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.notify', { name: 'woken' }));
      await waitFor(async () => ran.length === 1, { timeoutMs: 10_000, what: 'the NOTIFY wake-up' });
      assert.deepEqual(ran, ['woken']);
    } finally {
      await worker.stop();
    }
  });
});
