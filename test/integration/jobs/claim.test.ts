import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database, type Executor } from '../../../src/db/client.ts';
import { claimJobs, completeJob, enqueueJob, type ClaimedJob } from '../../../src/jobs/queue.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestWorker, jobRows, waitFor } from '../../helpers/jobs.ts';

describe('claiming jobs: SKIP LOCKED and leases', () => {
  let database: Database;
  const clock = new TestClock();

  before(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table job_effects (job_id text not null, worker text not null)`);
  });
  after(async () => database.close());

  async function enqueueMany(queue: string, count: number): Promise<void> {
    await database.transaction(async (tx) => {
      for (let index = 0; index < count; index += 1) {
        await enqueueJob(tx, clock.now(), queue, { index });
      }
    });
  }

  test('two workers running their loops on one database never run a job twice (200 jobs)', async () => {
    await enqueueMany('test.many', 200);
    const runs = new Map<number, number>();
    const byWorker = new Map<string, number>();
    const definition = (name: string) => ({
      queue: 'test.many',
      handle: async (payload: never) => {
        const { index } = payload as { index: number };
        runs.set(index, (runs.get(index) ?? 0) + 1);
        byWorker.set(name, (byWorker.get(name) ?? 0) + 1);
        await new Promise((resolve) => setTimeout(resolve, 1));
      },
    });
    const first = createTestWorker({ database, clock, definitions: [definition('first')], concurrency: 4 }).worker;
    const second = createTestWorker({ database, clock, definitions: [definition('second')], concurrency: 4 }).worker;
    await Promise.all([first.start(), second.start()]);
    try {
      await waitFor(async () => (await jobRows(database, 'test.many')).every((row) => row.status === 'succeeded'), { timeoutMs: 60_000, what: '200 jobs' });
    } finally {
      await Promise.all([first.stop(), second.stop()]);
    }
    assert.equal(runs.size, 200);
    assert.deepEqual([...runs.values()].filter((count) => count !== 1), [], 'every job ran exactly once');
    assert.equal([...byWorker.values()].reduce((sum, count) => sum + count, 0), 200);
    const rows = await jobRows(database, 'test.many');
    assert.ok(rows.every((row) => row.attempts === 1 && row.finishedAt !== null));
  });

  test('two workers draining at the same time split the work without overlap', async () => {
    await enqueueMany('test.drain', 120);
    const runs = new Map<number, number>();
    const definition = {
      queue: 'test.drain',
      handle: async (payload: never) => {
        const { index } = payload as { index: number };
        runs.set(index, (runs.get(index) ?? 0) + 1);
      },
    };
    const first = createTestWorker({ database, clock, definitions: [definition] }).worker;
    const second = createTestWorker({ database, clock, definitions: [definition] }).worker;
    const [a, b] = await Promise.all([first.drain(), second.drain()]);
    assert.equal(a + b, 120);
    assert.equal(runs.size, 120);
    assert.ok([...runs.values()].every((count) => count === 1));
  });

  test('concurrent claims hand out disjoint sets', async () => {
    await enqueueMany('test.claims', 40);
    const claims = await Promise.all(
      Array.from({ length: 4 }, (_, index) => claimJobs(database.db, { now: clock.now(), limit: 15, leaseMs: 60_000, workerId: `claimer-${index}`, queues: ['test.claims'] })),
    );
    const ids = claims.flat().map((job) => job.id);
    assert.equal(ids.length, 40);
    assert.equal(new Set(ids).size, 40);
  });

  test("an expired lease is reclaimed: a dead worker's job runs again elsewhere", async () => {
    await enqueueMany('test.lease', 1);
    const [claimed] = await claimJobs(database.db, { now: clock.now(), limit: 1, leaseMs: 30_000, workerId: 'worker-that-died', queues: ['test.lease'] });
    assert.ok(claimed);
    assert.equal(claimed.attempts, 1);
    const runs: number[] = [];
    const { worker } = createTestWorker({ database, clock, definitions: [{ queue: 'test.lease', handle: async (_payload: never, context) => void runs.push(context.attempt) }] });
    assert.equal(await worker.drain(), 0, 'leased: not claimable');
    clock.advance(29_999);
    assert.equal(await worker.drain(), 0, 'still leased');
    clock.advance(2);
    assert.equal(await worker.drain(), 1, 'lease expired: reclaimed');
    assert.deepEqual(runs, [2]);
    const [row] = await jobRows(database, 'test.lease');
    assert.equal(row?.status, 'succeeded');
    assert.equal(await completeJob(database.db, claimed.id, 'worker-that-died', clock.now()), false, 'the old lease holder can no longer complete it');
  });

  test('a worker that lost its lease cannot commit its effects (ctx.transaction rolls back)', async () => {
    await enqueueMany('test.lost', 1);
    let enteredSlow: () => void = () => undefined;
    const slowEntered = new Promise<void>((resolve) => {
      enteredSlow = resolve;
    });
    let releaseSlow: () => void = () => undefined;
    const slowReleased = new Promise<void>((resolve) => {
      releaseSlow = resolve;
    });
    const effect = (worker: string) => async (_payload: never, context: { jobId: string; transaction: (work: (tx: Executor) => Promise<void>) => Promise<void> }) => {
      if (worker === 'slow') {
        enteredSlow();
        await slowReleased;
      }
      await context.transaction(async (tx) => {
        await tx.execute(sql`insert into job_effects (job_id, worker) values (${context.jobId}, ${worker})`);
      });
    };
    const slow = createTestWorker({ database, clock, leaseMs: 1_000, definitions: [{ queue: 'test.lost', handle: effect('slow') }] });
    const fast = createTestWorker({ database, clock, leaseMs: 1_000, definitions: [{ queue: 'test.lost', handle: effect('fast') }] });
    const slowDrain = slow.worker.drain();
    await slowEntered;
    clock.advance(1_001);
    assert.equal(await fast.worker.drain(), 1);
    releaseSlow();
    await slowDrain;
    const effects = await queryRows<{ worker: string }>(database.db, sql`select worker from job_effects`);
    assert.deepEqual(
      effects.map((row) => row.worker),
      ['fast'],
      'only the current lease holder committed',
    );
    assert.equal((await jobRows(database, 'test.lost'))[0]?.status, 'succeeded');
    assert.ok(slow.logs.some((line) => line.includes('lease lost')));
  });

  test('a claim takes expired leases first, then the oldest due jobs of its queues, behind a backlog of other queues', async () => {
    const at = (offsetMs: number) => new Date(clock.now().getTime() + offsetMs);
    await database.transaction(async (tx) => {
      // Another queue's backlog, older than everything below.
      for (let index = 0; index < 30; index += 1) {
        await enqueueJob(tx, clock.now(), 'test.order.other', { index }, { runAt: at(-60_000 + index) });
      }
      for (const [queue, offset] of [['test.order.a', -3_000], ['test.order.b', -2_000], ['test.order.a', -1_000], ['test.order.b', -500], ['test.order.a', 5_000]] as const) {
        await enqueueJob(tx, clock.now(), queue, { offset }, { runAt: at(offset) });
      }
    });
    const offsets = (claimed: ClaimedJob[]) => claimed.map((job) => (job.payload as { offset: number }).offset).sort((left, right) => left - right);
    const oldest = await claimJobs(database.db, { now: clock.now(), limit: 1, leaseMs: 60_000, workerId: 'order-1', queues: ['test.order.a'] });
    assert.deepEqual(offsets(oldest), [-3_000], 'the oldest due job of its queue, not the older backlog of another queue');
    const due = await claimJobs(database.db, { now: clock.now(), limit: 10, leaseMs: 60_000, workerId: 'order-1', queues: ['test.order.a'] });
    assert.deepEqual(offsets(due), [-1_000], 'only due jobs (the one due in 5 s is left)');
    const [first] = await claimJobs(database.db, { now: clock.now(), limit: 1, leaseMs: 120_000, workerId: 'order-2', queues: ['test.order.a', 'test.order.b'] });
    assert.equal((first?.payload as { offset: number }).offset, -2_000, 'several queues: the oldest due job of any of them');
    // order-1 died: once its leases expire, they come before the pending job of b.
    clock.advance(60_001);
    const again = await claimJobs(database.db, { now: clock.now(), limit: 2, leaseMs: 60_000, workerId: 'order-3', queues: ['test.order.a', 'test.order.b'] });
    assert.deepEqual(offsets(again), [-3_000, -1_000], 'the expired leases first, before the pending job of b');
    assert.ok(again.every((job) => job.attempts === 2));
    const rest = await claimJobs(database.db, { now: clock.now(), limit: 10, leaseMs: 60_000, workerId: 'order-4', queues: ['test.order.a', 'test.order.b'] });
    assert.deepEqual(offsets(rest), [-500, 5_000], 'then the pending ones (a is due by now)');
  });

  test('plain jobs finishing together are completed together, only where the worker still holds the lease', async () => {
    await enqueueMany('test.grouped', 20);
    const started: string[] = [];
    let stolen: string | undefined;
    const { worker } = createTestWorker({
      database,
      clock,
      concurrency: 20,
      definitions: [
        {
          queue: 'test.grouped',
          handle: async (_payload: never, context) => {
            started.push(context.jobId);
            if (stolen === undefined) {
              // Another worker takes this job over while its handler runs (its lease ran out).
              stolen = context.jobId;
              await database.db.execute(sql`update jobs set locked_by = 'thief', locked_until = ${new Date(clock.now().getTime() + 60_000)} where id = ${stolen}`);
            }
          },
        },
      ],
    });
    assert.equal(await worker.drain({ maxRounds: 1 }), 20);
    const rows = await jobRows(database, 'test.grouped');
    assert.equal(new Set(started).size, 20);
    const taken = rows.find((row) => row.id === stolen);
    assert.equal(taken?.status, 'running', 'the job another worker holds now is not completed by the first');
    assert.equal(taken?.lockedBy, 'thief');
    assert.equal(rows.filter((row) => row.status === 'succeeded' && row.finishedAt !== null).length, 19, 'the others are completed');
  });
});
