// The three job engines of bench/jobs.ts behind one shape: ours (src/jobs), pg-boss 10 and
// graphile-worker 0.17, each at the settings its documentation gives for throughput. Not a bench
// itself (bench/run.ts lists jobs.ts only).
import pg from 'pg';
import { sql } from 'drizzle-orm';
import PgBoss from 'pg-boss';
import { Logger as GraphileLogger, makeWorkerUtils, run as runGraphile, runMigrations as migrateGraphile, type Runner, type WorkerUtils } from 'graphile-worker';
import { queryRows, type Database } from '../src/db/client.ts';
import { createCoalescedWakeup, enqueueJob, jobInsertStatement } from '../src/jobs/queue.ts';
import { JobRegistry, Worker } from '../src/jobs/worker.ts';
import { systemClock } from '../src/clock.ts';
import { createLogger } from '../src/logger.ts';

/** Every engine's no-op job carries `{ n }`; its handler only reports that it started. */
export interface NoopPayload {
  n: number;
}

export interface JobEngine {
  readonly name: string;
  /** The settings used, for the report's notes. */
  readonly settings: string;
  /** Bulk-inserts `count` no-op jobs numbered from `first` (workers stopped; not measured). */
  fillBacklog(first: number, count: number): Promise<void>;
  /** Starts the workers; `onStart(n)` runs as each job's handler starts. */
  start(onStart: (n: number) => void): Promise<void>;
  stop(): Promise<void>;
  /** One job in a transaction of its own (one statement where the engine allows). */
  enqueue(n: number): Promise<void>;
  /** BEGIN; a business row (`bench_orders`); the job; COMMIT — as our services enqueue. */
  enqueueInTransaction(n: number): Promise<void>;
  /** Jobs of the bench queue not completed yet. */
  remaining(): Promise<number>;
  close(): Promise<void>;
}

const queue = 'bench_noop';
/** One pool size for every engine (graphile-worker's documented `maxPoolSize` for 24 jobs). */
export const poolSize = 25;
const businessTable = 'create table if not exists bench_orders (id bigserial primary key, reference text not null, amount integer not null, created_at timestamptz not null default now())';

/**
 * Ours: a plain `handle` queue with a lane of its own: 2,048 jobs in flight, claimed 1,024 per round
 * trip (`JobDefinition.concurrency`, `batchSize`), so one claim is under way while the jobs of the
 * previous one complete. `producer` is the producers' handle (an API process's pool); `database`
 * is the worker's.
 */
export async function oursEngine(database: Database, producer: Database, label: string): Promise<JobEngine> {
  await queryRows(database.db, sql.raw(businessTable));
  let onStart: (n: number) => void = () => undefined;
  const registry = new JobRegistry();
  registry.register<NoopPayload>({
    queue,
    concurrency: 2048,
    batchSize: 1024,
    async handle(payload) {
      onStart(payload.n);
    },
  });
  const worker = new Worker({ database, registry, clock: systemClock, logger: createLogger({ level: 'silent' }), concurrency: 4, pollIntervalMs: 500 });
  // A statement that commits on its own wakes the workers after its commit, coalesced (queue.ts).
  const wakeup = createCoalescedWakeup(producer, queue);
  const pool = database.kind === 'postgres' ? `pools of ${poolSize} for the worker and for the producers` : 'one PGlite session';
  return {
    name: label,
    settings: `${label}: a lane of its own, 2,048 jobs in flight, claims of 1,024 (JobDefinition.concurrency, batchSize), JOB_POLL_INTERVAL_MS 500, ${pool}; one job per transaction = jobInsertStatement + createCoalescedWakeup (as customers.create); in a business transaction = enqueueJob (INSERT + NOTIFY in the transaction)`,
    async fillBacklog(first, count) {
      await queryRows(
        database.db,
        sql`insert into jobs (id, queue, payload, status, run_at, attempts, max_attempts, created_at, updated_at)
            select 'job_bench' || lpad(i::text, 9, '0'), ${queue}, jsonb_build_object('n', i), 'pending', now(), 0, 0, now(), now()
            from generate_series(${first}::integer, ${first + count - 1}::integer) as i`,
      );
    },
    async start(callback) {
      onStart = callback;
      await worker.start();
    },
    stop: () => worker.stop(),
    async enqueue(n) {
      await queryRows(producer.db, jobInsertStatement(new Date(), queue, { n }));
      wakeup.request();
    },
    async enqueueInTransaction(n) {
      await producer.transaction(async (tx) => {
        await queryRows(tx, sql`insert into bench_orders (reference, amount) values (${`order-${n}`}, 1250) returning id`);
        await enqueueJob(tx, new Date(), queue, { n });
      });
    },
    async remaining() {
      // One count per partial index (pending, running): an `in` over both statuses is a scan of the
      // whole table, which keeps every finished job for a week (60,000 rows here after the drains,
      // 10 ms a count, polled every 5 ms while the drain is timed). The peers' tables shrink instead.
      const [row] = await queryRows<{ count: number }>(
        database.db,
        sql`select ((select count(*) from jobs where queue = ${queue} and status = 'pending') + (select count(*) from jobs where status = 'running' and queue = ${queue}))::integer as count`,
      );
      return row?.count ?? 0;
    },
    close: async () => undefined,
  };
}

/** A plain `pg` pool for the peers' business transactions; a dropped connection is not a crash. */
function businessPool(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: poolSize });
  pool.on('error', () => undefined);
  return pool;
}

/** A transaction on a plain `pg` pool, for the peers' business transactions. */
async function inTransaction(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<void>): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('begin');
    await work(client);
    await client.query('commit');
  } catch (error) {
    await client.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

/** pg-boss 10: 4 workers, batches of 1,000, polling every 0.5 s (its minimum; it has no NOTIFY). */
export async function pgBossEngine(url: string, errors: Error[]): Promise<JobEngine> {
  const business = businessPool(url);
  await business.query(businessTable);
  const boss = new PgBoss({ connectionString: url, max: poolSize, schedule: false });
  boss.on('error', (error: Error) => errors.push(error));
  const producers = { executeSql: (text: string, values: unknown[]) => business.query(text, values) };
  await boss.start();
  await boss.createQueue(queue);
  return {
    name: 'pg-boss',
    settings: `pg-boss ${packageVersion('pg-boss')}: 4 × work() with batchSize 1,000 and pollingIntervalSeconds 0.5, pool ${poolSize}; send() per job`,
    async fillBacklog(first, count) {
      for (let offset = 0; offset < count; offset += 1000) {
        const size = Math.min(1000, count - offset);
        await boss.insert(Array.from({ length: size }, (_, index) => ({ name: queue, data: { n: first + offset + index } })));
      }
    },
    async start(onStart) {
      for (let index = 0; index < 4; index += 1) {
        await boss.work<NoopPayload>(queue, { batchSize: 1000, pollingIntervalSeconds: 0.5 }, async (jobs) => {
          for (const job of jobs) {
            onStart(job.data.n);
          }
        });
      }
    },
    async stop() {
      await boss.offWork(queue);
    },
    async enqueue(n) {
      // Producers on a pool of their own (as an API process would be), not the workers'.
      await boss.send(queue, { n }, { db: producers });
    },
    async enqueueInTransaction(n) {
      await inTransaction(business, async (client) => {
        await client.query('insert into bench_orders (reference, amount) values ($1, 1250) returning id', [`order-${n}`]);
        await boss.send(queue, { n }, { db: { executeSql: (text: string, values: unknown[]) => client.query(text, values) } });
      });
    },
    async remaining() {
      const result = await business.query<{ count: number }>(`select count(*)::integer as count from pgboss.job where name = $1 and state in ('created', 'retry', 'active')`, [queue]);
      return result.rows[0]?.count ?? 0;
    },
    async close() {
      await boss.stop({ graceful: false, wait: true, timeout: 5000 });
      await business.end();
    },
  };
}

/** graphile-worker: its performance page's settings (24 jobs, pool 25, local queue of 500, batched completion). */
export async function graphileEngine(url: string): Promise<JobEngine> {
  const business = businessPool(url);
  await business.query(businessTable);
  const logger = new GraphileLogger(() => () => undefined);
  const preset = {
    worker: { connectionString: url, concurrentJobs: 24, maxPoolSize: poolSize, pollInterval: 2000, localQueue: { size: 500 }, completeJobBatchDelay: 0, failJobBatchDelay: 0, logger },
  };
  await migrateGraphile({ preset });
  const utils: WorkerUtils = await makeWorkerUtils({ preset });
  let runner: Runner | undefined;
  return {
    name: 'graphile-worker',
    settings: `graphile-worker ${packageVersion('graphile-worker')}: concurrentJobs 24, maxPoolSize ${poolSize}, localQueue.size 500, completeJobBatchDelay 0, failJobBatchDelay 0 (worker.graphile.org/docs/performance); addJob() per job`,
    async fillBacklog(first, count) {
      for (let offset = 0; offset < count; offset += 1000) {
        const size = Math.min(1000, count - offset);
        await utils.addJobs(Array.from({ length: size }, (_, index) => ({ identifier: queue, payload: { n: first + offset + index } })));
      }
    },
    async start(onStart) {
      runner = await runGraphile({
        preset,
        noHandleSignals: true,
        taskList: {
          [queue]: async (payload) => {
            onStart((payload as NoopPayload).n);
          },
        },
      });
    },
    async stop() {
      await runner?.stop();
      runner = undefined;
    },
    async enqueue(n) {
      await utils.addJob(queue, { n });
    },
    async enqueueInTransaction(n) {
      await inTransaction(business, async (client) => {
        await client.query('insert into bench_orders (reference, amount) values ($1, 1250) returning id', [`order-${n}`]);
        await client.query('select graphile_worker.add_job($1, $2::json)', [queue, JSON.stringify({ n })]);
      });
    },
    async remaining() {
      const result = await business.query<{ count: number }>('select count(*)::integer as count from graphile_worker.jobs where task_identifier = $1', [queue]);
      return result.rows[0]?.count ?? 0;
    },
    async close() {
      await runner?.stop();
      await utils.release();
      await business.end();
    },
  };
}

const versions = new Map<string, string>();

/** The installed version of a peer, for the notes. */
export function packageVersion(name: string): string {
  return versions.get(name) ?? '?';
}

export async function loadPeerVersions(): Promise<void> {
  const { createRequire } = await import('node:module');
  const require = createRequire(import.meta.url);
  for (const name of ['pg-boss', 'graphile-worker']) {
    try {
      versions.set(name, (require(`${name}/package.json`) as { version: string }).version);
    } catch {
      versions.set(name, '?');
    }
  }
}
