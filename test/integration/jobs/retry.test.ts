import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../../src/db/client.ts';
import { defaultBackoff, enqueueJob } from '../../../src/jobs/queue.ts';
import type { JobContext } from '../../../src/jobs/worker.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestWorker, jobRows } from '../../helpers/jobs.ts';

describe('job outcomes: retries, dead jobs, rescheduling, transactional completion', () => {
  let database: Database;
  const clock = new TestClock();

  before(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table job_effects (job_id text not null, note text not null)`);
  });
  after(async () => database.close());

  const enqueue = (queue: string, payload: unknown = {}, options: { maxAttempts?: number } = {}) => database.transaction((tx) => enqueueJob(tx, clock.now(), queue, payload, options));
  const effects = async (jobId: string) => (await queryRows<{ note: string }>(database.db, sql`select note from job_effects where job_id = ${jobId} order by note`)).map((row) => row.note);

  test('a failing handler retries on its backoff schedule (test clock) and ends dead after maxAttempts', async () => {
    const attempts: number[] = [];
    const { worker, logs } = createTestWorker({
      database,
      clock,
      definitions: [
        {
          queue: 'test.fail',
          maxAttempts: 3,
          backoff: (attempt) => attempt * 10_000,
          handle: async (_payload: never, context) => {
            attempts.push(context.attempt);
            throw new Error(`boom ${context.attempt}`);
          },
        },
      ],
    });
    const id = await enqueue('test.fail');
    const start = clock.now().getTime();
    assert.equal(await worker.drain(), 1);
    let [row] = await jobRows(database, 'test.fail');
    assert.equal(row?.status, 'pending');
    assert.equal(row?.attempts, 1);
    assert.equal(row?.lastError, 'boom 1');
    assert.equal(row?.runAt.getTime(), start + 10_000);

    clock.advance(9_999);
    assert.equal(await worker.drain(), 0, 'not before its backoff');
    clock.advance(1);
    assert.equal(await worker.drain(), 1);
    [row] = await jobRows(database, 'test.fail');
    assert.equal(row?.attempts, 2);
    assert.equal(row?.runAt.getTime(), clock.now().getTime() + 20_000, 'the delay grows with the attempt');

    clock.advance(20_000);
    assert.equal(await worker.drain(), 1);
    [row] = await jobRows(database, 'test.fail');
    assert.equal(row?.id, id);
    assert.equal(row?.status, 'dead', 'the definition’s maxAttempts (3) applies');
    assert.equal(row?.lastError, 'boom 3');
    assert.equal(row?.finishedAt?.getTime(), clock.now().getTime());
    clock.advance(24 * 60 * 60 * 1000);
    assert.equal(await worker.drain(), 0, 'a dead job never runs again');
    assert.deepEqual(attempts, [1, 2, 3]);
    assert.ok(logs.some((line) => line.includes('"outcome":"dead"')));
  });

  test('a per-job maxAttempts given at enqueue overrides the queue policy', async () => {
    let runs = 0;
    const { worker } = createTestWorker({
      database,
      clock,
      definitions: [{ queue: 'test.override', maxAttempts: 5, backoff: () => 1_000, handle: async () => {
        runs += 1;
        throw new Error('nope');
      } }],
    });
    await enqueue('test.override', {}, { maxAttempts: 1 });
    await worker.drain();
    assert.equal((await jobRows(database, 'test.override'))[0]?.status, 'dead');
    assert.equal(runs, 1);
  });

  test('without any policy a job gets 10 attempts', async () => {
    const { worker } = createTestWorker({ database, clock, definitions: [{ queue: 'test.default', backoff: () => 1, handle: async () => {
      throw new Error('always');
    } }] });
    await enqueue('test.default');
    for (let round = 0; round < 12; round += 1) {
      await worker.drain();
      clock.advance(1);
    }
    const [row] = await jobRows(database, 'test.default');
    assert.equal(row?.status, 'dead');
    assert.equal(row?.attempts, 10);
  });

  test('the default backoff is exponential with jitter, capped at an hour', () => {
    for (let attempt = 1; attempt <= 25; attempt += 1) {
      const base = Math.min(3_600_000, 1000 * 2 ** attempt);
      for (let sample = 0; sample < 20; sample += 1) {
        const delay = defaultBackoff(attempt);
        assert.ok(delay >= base / 2 && delay <= base, `attempt ${attempt}: ${delay} within [${base / 2}, ${base}]`);
      }
    }
  });

  test('rescheduleAt polls without using up attempts', async () => {
    let calls = 0;
    const { worker } = createTestWorker({
      database,
      clock,
      definitions: [{ queue: 'test.poll', maxAttempts: 2, handle: async (_payload: never, context) => {
        calls += 1;
        if (calls <= 5) {
          return { rescheduleAt: new Date(context.now.getTime() + 5_000) };
        }
        return undefined;
      } }],
    });
    await enqueue('test.poll');
    for (let round = 1; round <= 5; round += 1) {
      assert.equal(await worker.drain(), 1);
      const [row] = await jobRows(database, 'test.poll');
      assert.equal(row?.status, 'pending');
      assert.equal(row?.attempts, 0, 'a reschedule gives the attempt back');
      assert.equal(row?.runAt.getTime(), clock.now().getTime() + 5_000);
      assert.equal(await worker.drain(), 0, 'not due yet');
      clock.advance(5_000);
    }
    assert.equal(await worker.drain(), 1);
    const [row] = await jobRows(database, 'test.poll');
    assert.equal(row?.status, 'succeeded');
    assert.equal(calls, 6);
  });

  test('ctx.transaction commits the effects and the completion together', async () => {
    let completedInsideTransaction: string | undefined;
    const { worker } = createTestWorker({
      database,
      clock,
      definitions: [{ queue: 'test.tx', handle: async (_payload: never, context: JobContext) => {
        await context.transaction(async (tx: Executor) => {
          await tx.execute(sql`insert into job_effects (job_id, note) values (${context.jobId}, 'done')`);
        });
        const [row] = await queryRows<{ status: string }>(database.db, sql`select status from jobs where id = ${context.jobId}`);
        completedInsideTransaction = row?.status;
      } }],
    });
    const id = String(await enqueue('test.tx'));
    await worker.drain();
    assert.equal(completedInsideTransaction, 'succeeded', 'the job was already complete when its transaction committed');
    assert.deepEqual(await effects(id), ['done']);
  });

  test('a failure inside ctx.transaction rolls back both; the retry applies the effects once', async () => {
    let attempt = 0;
    const { worker } = createTestWorker({
      database,
      clock,
      definitions: [{ queue: 'test.tx-fail', backoff: () => 1_000, handle: async (_payload: never, context: JobContext) => {
        attempt += 1;
        await context.transaction(async (tx: Executor) => {
          await tx.execute(sql`insert into job_effects (job_id, note) values (${context.jobId}, ${`attempt ${attempt}`})`);
          if (attempt === 1) {
            throw new Error('failed half way');
          }
        });
      } }],
    });
    const id = String(await enqueue('test.tx-fail'));
    await worker.drain();
    assert.deepEqual(await effects(id), [], 'nothing of the failed attempt stays');
    assert.equal((await jobRows(database, 'test.tx-fail'))[0]?.status, 'pending');
    clock.advance(1_000);
    await worker.drain();
    assert.deepEqual(await effects(id), ['attempt 2']);
    assert.equal((await jobRows(database, 'test.tx-fail'))[0]?.status, 'succeeded');
  });

  test('a throw after ctx.transaction committed does not retry effects that already happened', async () => {
    let runs = 0;
    const { worker, logs } = createTestWorker({
      database,
      clock,
      definitions: [{ queue: 'test.tx-after', backoff: () => 1, handle: async (_payload: never, context: JobContext) => {
        runs += 1;
        await context.transaction(async (tx: Executor) => {
          await tx.execute(sql`insert into job_effects (job_id, note) values (${context.jobId}, 'once')`);
        });
        throw new Error('after commit');
      } }],
    });
    const id = String(await enqueue('test.tx-after'));
    await worker.drain();
    clock.advance(10);
    await worker.drain();
    assert.equal(runs, 1);
    assert.deepEqual(await effects(id), ['once']);
    assert.equal((await jobRows(database, 'test.tx-after'))[0]?.status, 'succeeded');
    assert.ok(logs.some((line) => line.includes('after its transaction committed')));
  });
});
