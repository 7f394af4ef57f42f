import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../../src/db/client.ts';
import { claimJobLanes, completeJobs, enqueueJob, jobsChannel } from '../../../src/jobs/queue.ts';
import type { BatchContext, BatchJob, JobDefinition } from '../../../src/jobs/worker.ts';
import { openTestDatabase } from '../../helpers/database.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestWorker, jobRows, waitFor } from '../../helpers/jobs.ts';

type Payload = { index: number };

describe('batch claims, lanes and batch handlers', () => {
  let database: Database;
  const clock = new TestClock();

  before(async () => {
    database = await openTestDatabase();
    await database.db.execute(sql`create table batch_effects (job_id text not null, worker text not null, batch_size integer not null)`);
  });
  after(async () => database.close());

  async function enqueueMany(queue: string, count: number): Promise<void> {
    for (let start = 0; start < count; start += 250) {
      await database.transaction(async (tx) => {
        for (let index = start; index < Math.min(count, start + 250); index += 1) {
          await enqueueJob(tx, clock.now(), queue, { index });
        }
      });
    }
  }

  async function effects(): Promise<Array<{ jobId: string; worker: string; batchSize: number }>> {
    return queryRows(database.db, sql`select job_id as "jobId", worker, batch_size as "batchSize" from batch_effects`);
  }

  /** A batch queue whose handler writes one effect row per job in the transaction that completes them. */
  function batchDefinition(queue: string, worker: string, options: { batchSize?: number; concurrency?: number } = {}): JobDefinition<Payload> {
    return {
      queue,
      batchSize: options.batchSize ?? 25,
      concurrency: options.concurrency ?? 100,
      handle: async () => {
        throw new Error('the worker must call handleBatch for a batch queue');
      },
      handleBatch: async (jobs: BatchJob<Payload>[], context: BatchContext<Payload>) => {
        await new Promise((resolve) => setImmediate(resolve));
        await context.transaction(jobs, async (tx, held) => {
          for (const job of held) {
            await tx.execute(sql`insert into batch_effects (job_id, worker, batch_size) values (${job.id}, ${worker}, ${jobs.length})`);
          }
        });
      },
    };
  }

  test('two workers racing over 1,000 jobs of a batch queue: every job runs exactly once, in batches', async () => {
    await database.db.execute(sql`delete from batch_effects`);
    await enqueueMany('test.batch', 1000);
    const first = createTestWorker({ database, clock, definitions: [batchDefinition('test.batch', 'first') as JobDefinition<never>] });
    const second = createTestWorker({ database, clock, definitions: [batchDefinition('test.batch', 'second') as JobDefinition<never>] });
    await Promise.all([first.worker.start(), second.worker.start()]);
    try {
      await waitFor(async () => (await jobRows(database, 'test.batch')).every((row) => row.status === 'succeeded'), { timeoutMs: 120_000, what: '1,000 batch jobs' });
    } finally {
      await Promise.all([first.worker.stop(), second.worker.stop()]);
    }
    const rows = await jobRows(database, 'test.batch');
    const done = await effects();
    const perJob = new Map<string, number>();
    for (const effect of done) {
      perJob.set(effect.jobId, (perJob.get(effect.jobId) ?? 0) + 1);
    }
    assert.equal(rows.length, 1000);
    assert.equal(perJob.size, 1000, 'every job has its effect');
    assert.deepEqual([...perJob.values()].filter((count) => count !== 1), [], 'no job ran twice');
    assert.ok(rows.every((row) => row.attempts === 1 && row.finishedAt !== null), 'each claimed once');
    assert.ok(Math.max(...done.map((effect) => effect.batchSize)) > 1, 'jobs were handed over in batches');
    assert.ok(done.every((effect) => effect.batchSize <= 25), 'never more than batchSize per batch');
  });

  test('concurrent lane claims hand out disjoint sets and respect each lane limit', async () => {
    await enqueueMany('test.lane-a', 30);
    await enqueueMany('test.lane-b', 30);
    const claims = await Promise.all(
      Array.from({ length: 4 }, (_, index) =>
        claimJobLanes(database.db, {
          now: clock.now(),
          leaseMs: 60_000,
          workerId: `lane-claimer-${index}`,
          lanes: [
            { queues: ['test.lane-a'], limit: 10 },
            { queues: ['test.lane-b'], limit: 5 },
          ],
        }),
      ),
    );
    for (const claim of claims) {
      assert.ok(claim.filter((job) => job.queue === 'test.lane-a').length <= 10);
      assert.ok(claim.filter((job) => job.queue === 'test.lane-b').length <= 5);
    }
    const ids = claims.flat().map((job) => job.id);
    assert.equal(new Set(ids).size, ids.length, 'no job in two claims');
    assert.equal(claims.flat().filter((job) => job.queue === 'test.lane-a').length, 30);
    assert.equal(claims.flat().filter((job) => job.queue === 'test.lane-b').length, 20);
  });

  test('completeJobs completes only the jobs this worker still holds', async () => {
    await enqueueMany('test.complete', 3);
    const claimed = await claimJobLanes(database.db, { now: clock.now(), leaseMs: 60_000, workerId: 'holder', lanes: [{ queues: ['test.complete'], limit: 2 }] });
    assert.equal(claimed.length, 2);
    const [unclaimed] = (await jobRows(database, 'test.complete')).filter((row) => row.status === 'pending');
    assert.ok(unclaimed);
    const ids = [...claimed.map((job) => job.id), unclaimed.id];
    assert.deepEqual(await completeJobs(database.db, ids, 'someone-else', clock.now()), [], 'another worker completes nothing');
    assert.deepEqual((await completeJobs(database.db, ids, 'holder', clock.now())).sort(), claimed.map((job) => job.id).sort());
    assert.deepEqual(await completeJobs(database.db, ids, 'holder', clock.now()), [], 'done already');
    const statuses = new Map((await jobRows(database, 'test.complete')).map((row) => [row.id, row.status]));
    assert.equal(statuses.get(unclaimed.id), 'pending', 'an unclaimed job is not completed');
  });

  test('a batch whose leases were taken over commits nothing for those jobs', async () => {
    await database.db.execute(sql`delete from batch_effects`);
    await enqueueMany('test.batch-lost', 4);
    let entered: () => void = () => undefined;
    const enteredSlow = new Promise<void>((resolve) => {
      entered = resolve;
    });
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    const slowDefinition: JobDefinition<Payload> = {
      ...batchDefinition('test.batch-lost', 'slow'),
      handleBatch: async (jobs, context) => {
        entered();
        await released;
        await context.transaction(jobs, async (tx, held) => {
          for (const job of held) {
            await tx.execute(sql`insert into batch_effects (job_id, worker, batch_size) values (${job.id}, 'slow', ${jobs.length})`);
          }
        });
      },
    };
    const slow = createTestWorker({ database, clock, leaseMs: 1_000, definitions: [slowDefinition as JobDefinition<never>] });
    const fast = createTestWorker({ database, clock, leaseMs: 1_000, definitions: [batchDefinition('test.batch-lost', 'fast') as JobDefinition<never>] });
    const slowDrain = slow.worker.drain();
    await enteredSlow;
    clock.advance(1_001);
    assert.equal(await fast.worker.drain(), 4);
    release();
    await slowDrain;
    const done = await effects();
    assert.deepEqual(
      done.map((effect) => effect.worker),
      ['fast', 'fast', 'fast', 'fast'],
      'only the current lease holder committed effects',
    );
    assert.ok((await jobRows(database, 'test.batch-lost')).every((row) => row.status === 'succeeded' && row.attempts === 2));
    assert.ok(slow.logs.some((line) => line.includes('lease lost')));
  });

  test('jobs a batch handler leaves alone are completed when it returns; a throwing handler retries them with backoff', async () => {
    await enqueueMany('test.batch-quiet', 3);
    const quiet = createTestWorker({ database, clock, definitions: [{ ...batchDefinition('test.batch-quiet', 'quiet'), handleBatch: async () => undefined } as JobDefinition<never>] });
    assert.equal(await quiet.worker.drain(), 3);
    assert.ok((await jobRows(database, 'test.batch-quiet')).every((row) => row.status === 'succeeded'));

    await enqueueMany('test.batch-throws', 3);
    const failing = createTestWorker({
      database,
      clock,
      definitions: [
        {
          ...batchDefinition('test.batch-throws', 'failing'),
          backoff: () => 60_000,
          handleBatch: async () => {
            throw new Error('receiver exploded');
          },
        } as JobDefinition<never>,
      ],
    });
    assert.equal(await failing.worker.drain(), 3);
    const rows = await jobRows(database, 'test.batch-throws');
    assert.ok(rows.every((row) => row.status === 'pending' && row.attempts === 1 && row.lastError === 'receiver exploded'));
    assert.ok(rows.every((row) => row.runAt.getTime() === clock.now().getTime() + 60_000), 'retried after the queue backoff');
    assert.equal(await failing.worker.drain(), 0, 'not due yet');
  });

  test('a queue with its own concurrency runs while the shared lane is full', async () => {
    let unblock: () => void = () => undefined;
    const blocked = new Promise<void>((resolve) => {
      unblock = resolve;
    });
    let blockerStarted = false;
    const blocker: JobDefinition<Payload> = {
      queue: 'test.shared-blocker',
      handle: async () => {
        blockerStarted = true;
        await blocked;
      },
    };
    let ownLaneRan = false;
    const ownLane: JobDefinition<Payload> = {
      queue: 'test.own-lane',
      concurrency: 2,
      handle: async () => {
        ownLaneRan = true;
      },
    };
    await enqueueMany('test.shared-blocker', 1);
    const { worker } = createTestWorker({ database, clock, concurrency: 1, definitions: [blocker as JobDefinition<never>, ownLane as JobDefinition<never>] });
    await worker.start();
    try {
      await waitFor(async () => blockerStarted, { what: 'the blocker to start' });
      await enqueueMany('test.own-lane', 1);
      await waitFor(async () => (await jobRows(database, 'test.own-lane')).every((row) => row.status === 'succeeded'), { what: 'the own-lane job' });
      assert.ok(ownLaneRan);
      assert.equal((await jobRows(database, 'test.shared-blocker'))[0]?.status, 'running', 'the shared lane was still full meanwhile');
    } finally {
      unblock();
      await worker.stop();
    }
  });

  test('enqueue notifies for an inserted job only, not for a duplicate dedupe key', async () => {
    const notified: string[] = [];
    // The payload is the queue name; notifications arrive in commit order.
    const unlisten = await database.listen(jobsChannel, () => notified.push('n'));
    try {
      const before = notified.length;
      assert.ok(await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.notify-one', {}, { dedupeKey: 'notify-once' })));
      await waitFor(async () => notified.length === before + 1, { what: 'the first notification' });
      assert.equal(await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.notify-two', {}, { dedupeKey: 'notify-once' })), null);
      // A third, different job as a barrier: once its notification is in, a duplicate's would be too.
      assert.ok(await database.transaction((tx) => enqueueJob(tx, clock.now(), 'test.notify-three', {})));
      await waitFor(async () => notified.length >= before + 2, { what: 'the barrier notification' });
      assert.equal(notified.length, before + 2, 'the duplicate notified nobody');
    } finally {
      await unlisten();
    }
  });
});
