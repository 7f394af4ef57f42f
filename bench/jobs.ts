// Issue 20: our job engine (src/jobs) beside pg-boss 10 and graphile-worker, on one throw-away
// PostgreSQL database, one engine after the other in the same run; and ours on PGlite (no peer
// runs there).
//
//   npm run bench -- jobs
//   BENCH_JOBS=20000 npm run bench -- jobs        backlog size on PostgreSQL (PGlite: a quarter)
//   BENCH_BACKENDS=postgres npm run bench -- jobs
//   BENCH_JOBS_WARMUP=0 npm run bench -- jobs   no untimed warm-up drain (2,000 jobs by default)
//   BENCH_JOBS_DRAINS=1 npm run bench -- jobs   one timed drain per engine (3 by default; the median is shown)
//
// Per engine, with no-op jobs (`{ n }`; the handler only notes that it started), after an untimed
// warm-up drain of BENCH_JOBS_WARMUP jobs:
// 1. Enqueue rate, workers stopped, 8 concurrent producers for a fixed time each: one job per
//    transaction (one statement committing on its own), then inside a business transaction
//    (BEGIN; INSERT into bench_orders; enqueue; COMMIT), as our services enqueue.
// 2. Drain: the backlog is topped up to BENCH_JOBS by a bulk insert, the workers start, and the
//    clock runs until every job's handler has started and the database shows none left; three
//    times (BENCH_JOBS_DRAINS), the median reported.
// 3. Latency: one job per transaction on a fixed schedule of 500 jobs/s with the workers running;
//    "commit acknowledged to the producer" → "handler started", p50 and p99.
// Targets (issue 20): drain ≥ pg-boss's and ≥ 2× graphile-worker's; commit→start p99 ≤ 50 ms.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import pg from 'pg';
import { migrateDatabase, openPglite, openPostgres } from '../src/db/client.ts';
import type { BenchOptions, BenchReport, ComparisonRow, Measurement } from './harness.ts';
import { graphileEngine, loadPeerVersions, oursEngine, pgBossEngine, poolSize, type JobEngine } from './jobs-engines.ts';
import { percentile } from './stats.ts';
import { intSetting } from './settings.ts';
import { waitFor } from './wait.ts';

const defaultDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';
const pacedRate = 500;
const producers = 8;
const enqueueSeconds = 2;
export const targets = { drainVsPgBoss: 1, drainVsGraphile: 2, p99Ms: 50 } as const;

interface EngineResult {
  name: string;
  settings: string;
  enqueuePerSecond: number;
  enqueueInTransactionPerSecond: number;
  enqueued: JobCounts;
  enqueuedInTransaction: JobCounts;
  /** The backlog of one drain. */
  backlog: number;
  /** Jobs of every measured drain, and their rates. */
  drainedJobs: number;
  drainRates: number[];
  /** Handlers of the drains' backlogs that had started when the clock stopped. */
  backlogStarted: number;
  drainPerSecond: number;
  /** The backlog ÷ the time until every handler had started (completions may still be on their way). */
  startedPerSecond: number;
  pacedRate: number;
  pacedJobs: number;
  /** Paced jobs whose handler started. */
  pacedStarted: number;
  p50: number;
  p99: number;
  max: number;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));


/** Jobs counted in one phase: `done` of `counted` (enqueued, or whose handler started), `errors` thrown by the engine. */
interface JobCounts {
  counted: number;
  done: number;
  errors: number;
}

/** `producers` loops calling `enqueue(n)` for `seconds`; answers jobs per second, and the enqueues that answered and that threw. */
async function enqueueRate(enqueue: (n: number) => Promise<void>, next: () => number, seconds: number): Promise<{ perSecond: number; counts: JobCounts }> {
  const started = performance.now();
  const end = started + seconds * 1000;
  let done = 0;
  let errors = 0;
  await Promise.all(
    Array.from({ length: producers }, async () => {
      while (performance.now() < end) {
        try {
          await enqueue(next());
          done += 1;
        } catch {
          // Counted: the row is INVALID when an enqueue failed (harness measurementProblems).
          errors += 1;
        }
      }
    }),
  );
  return { perSecond: done / ((performance.now() - started) / 1000), counts: { counted: done + errors, done, errors } };
}

async function measureEngine(engine: JobEngine, options: { backlog: number; drains: number; warmupJobs: number; pacedSeconds: number; enqueueSeconds: number }): Promise<EngineResult> {
  const trace = (what: string) => process.env.BENCH_TRACE && process.stderr.write(`${new Date().toISOString()} ${engine.name}: ${what}\n`);
  let sequence = 0;
  const next = () => (sequence += 1);
  // 0. Warm-up, not measured: a small backlog drained, so every engine's claim and completion code
  // is compiled and its connections are open before the clock runs (as the HTTP benches' warm-up).
  const warmupJobs = Math.min(options.warmupJobs, options.backlog);
  if (warmupJobs > 0) {
    await engine.fillBacklog(sequence + 1, warmupJobs);
    sequence += warmupJobs;
    let warmed = 0;
    await engine.start(() => {
      warmed += 1;
    });
    await waitFor(`${engine.name}: the warm-up's handlers`, () => warmed >= warmupJobs, 60_000, 2);
    await waitFor(`${engine.name}: the warm-up to complete`, async () => (await engine.remaining()) === 0, 60_000, 5);
    await engine.stop();
  }
  // 1. Enqueue rates (workers stopped: these jobs become part of the backlog).
  const { perSecond: enqueuePerSecond, counts: enqueued } = await enqueueRate((n) => engine.enqueue(n), next, options.enqueueSeconds);
  const { perSecond: enqueueInTransactionPerSecond, counts: enqueuedInTransaction } = await enqueueRate((n) => engine.enqueueInTransaction(n), next, options.enqueueSeconds);

  trace(`enqueue ${Math.round(enqueuePerSecond)}/s, in a transaction ${Math.round(enqueueInTransactionPerSecond)}/s`);
  // 2. Drain a backlog of `options.backlog`, `options.drains` times (the median is reported: one
  // drain of ours takes about half a second, and one sample swung ±20 % from run to run).
  const startedAt = new Map<number, number>();
  let started = 0;
  const onStart = (n: number) => {
    started += 1;
    startedAt.set(n, performance.now());
  };
  const drains: Array<{ backlog: number; started: number; drainPerSecond: number; startedPerSecond: number }> = [];
  for (let round = 0; round < options.drains; round += 1) {
    const pending = await engine.remaining();
    if (pending < options.backlog) {
      await engine.fillBacklog(sequence + 1, options.backlog - pending);
      sequence += options.backlog - pending;
    }
    const backlog = await engine.remaining();
    started = 0;
    const drainStart = performance.now();
    await engine.start(onStart);
    await waitFor(`${engine.name}: the backlog's handlers`, () => started >= backlog, 300_000, 2);
    const startedPerSecond = backlog / ((performance.now() - drainStart) / 1000);
    await waitFor(`${engine.name}: the backlog to complete`, async () => (await engine.remaining()) === 0, 60_000, 5);
    drains.push({ backlog, started, drainPerSecond: backlog / ((performance.now() - drainStart) / 1000), startedPerSecond });
    trace(`drained ${backlog} at ${Math.round(drains.at(-1)?.drainPerSecond ?? 0)}/s`);
    if (round < options.drains - 1) {
      await engine.stop(); // the last drain's workers stay for the latency phase
    }
  }
  const median = (values: number[]) => percentile([...values].sort((left, right) => left - right), 0.5);
  const backlog = drains[0]?.backlog ?? 0;
  const drainedJobs = drains.reduce((sum, drain) => sum + drain.backlog, 0);
  const backlogStarted = drains.reduce((sum, drain) => sum + drain.started, 0);
  const drainRates = drains.map((drain) => drain.drainPerSecond);
  const drainPerSecond = median(drainRates);
  const startedPerSecond = median(drains.map((drain) => drain.startedPerSecond));

  // 3. Latency at a paced rate, one job per transaction, workers running.
  const committedAt = new Map<number, number>();
  const total = Math.round(pacedRate * options.pacedSeconds);
  const inFlight = new Set<Promise<void>>();
  const pacedStart = performance.now();
  for (let index = 0; index < total; index += 1) {
    const wait = pacedStart + (index * 1000) / pacedRate - performance.now();
    if (wait > 1) {
      await sleep(wait);
    }
    if (inFlight.size >= 64) {
      await Promise.race(inFlight);
    }
    const n = next();
    const produced: Promise<void> = engine
      .enqueue(n)
      .then(() => {
        committedAt.set(n, performance.now());
      })
      .finally(() => inFlight.delete(produced));
    inFlight.add(produced);
  }
  await Promise.all(inFlight);
  const achievedRate = total / ((performance.now() - pacedStart) / 1000);
  await waitFor(`${engine.name}: the paced jobs`, () => [...committedAt.keys()].every((n) => startedAt.has(n)), 60_000, 20);
  await engine.stop();
  // A handler may start before the producer has read the commit's answer: that counts as 0 ms.
  const latencies = [...committedAt].map(([n, at]) => Math.max(0, (startedAt.get(n) ?? Number.NaN) - at)).sort((left, right) => left - right);
  return {
    name: engine.name,
    settings: engine.settings,
    enqueuePerSecond,
    enqueueInTransactionPerSecond,
    enqueued,
    enqueuedInTransaction,
    backlog,
    drainedJobs,
    drainRates,
    backlogStarted,
    drainPerSecond,
    startedPerSecond,
    pacedRate: achievedRate,
    pacedJobs: total,
    pacedStarted: [...committedAt.keys()].filter((n) => startedAt.has(n)).length,
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    max: latencies[latencies.length - 1] ?? Number.NaN,
  };
}

/** The backlog drained on PostgreSQL (BENCH_JOBS; PGlite drains a quarter). */
const backlogSize = () => intSetting('BENCH_JOBS', 20_000, 500, 200_000);
/** Drains measured per engine (BENCH_JOBS_DRAINS); the rows show their median. */
const drainCount = () => intSetting('BENCH_JOBS_DRAINS', 3, 1, 9);
/** Jobs drained per engine before the measurements, not timed (BENCH_JOBS_WARMUP; 0 for none). */
const warmupJobs = () => intSetting('BENCH_JOBS_WARMUP', 2_000, 0, 200_000);

type Outcome = EngineResult | { name: string; error: string };

/** Ours, pg-boss, graphile-worker on one throw-away database, one after the other. */
async function onPostgres(pacedSeconds: number): Promise<Outcome[]> {
  const baseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : defaultDatabaseUrl;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `paysail_bench_jobs_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const outcomes: Outcome[] = [];
  try {
    await admin.query(`create database "${name}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    const options = { backlog: backlogSize(), drains: drainCount(), warmupJobs: warmupJobs(), pacedSeconds, enqueueSeconds };
    const engines: Array<[string, () => Promise<{ engine: JobEngine; close: () => Promise<void> }>]> = [
      [
        'ours',
        async () => {
          const database = await openPostgres(url.toString(), { max: poolSize });
          await migrateDatabase(database);
          const producer = await openPostgres(url.toString(), { max: poolSize });
          return {
            engine: await oursEngine(database, producer, 'ours'),
            close: async () => {
              await producer.close();
              await database.close();
            },
          };
        },
      ],
      [
        'pg-boss',
        async () => {
          const errors: Error[] = [];
          const engine = await pgBossEngine(url.toString(), errors);
          return {
            engine,
            close: async () => {
              await engine.close();
              if (errors.length > 0) {
                throw new Error(`pg-boss reported ${errors.length} error(s): ${errors[0]?.message}`);
              }
            },
          };
        },
      ],
      [
        'graphile-worker',
        async () => {
          const engine = await graphileEngine(url.toString());
          return { engine, close: () => engine.close() };
        },
      ],
    ];
    for (const [label, open] of engines) {
      try {
        const { engine, close } = await open();
        try {
          outcomes.push(await measureEngine(engine, options));
        } finally {
          await close();
        }
      } catch (error) {
        outcomes.push({ name: label, error: (error as Error).message });
      }
    }
  } finally {
    // graphile-worker ends its pools without waiting: let their connections close before the drop
    // (a connection the drop terminates while idle would be an unhandled pool error).
    await waitFor('the bench connections to close', async () => (await admin.query<{ count: number }>('select count(*)::integer as count from pg_stat_activity where datname = $1', [name])).rows[0]?.count === 0, 5_000, 50).catch(() => undefined);
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
  return outcomes;
}

async function onPglite(pacedSeconds: number): Promise<Outcome> {
  try {
    const database = await openPglite({});
    try {
      await migrateDatabase(database);
      const engine = await oursEngine(database, database, 'ours (PGlite)');
      return await measureEngine(engine, { backlog: Math.max(500, Math.round(backlogSize() / 4)), drains: drainCount(), warmupJobs: Math.round(warmupJobs() / 4), pacedSeconds: Math.min(pacedSeconds, 3), enqueueSeconds: 1 });
    } finally {
      await database.close();
    }
  } catch (error) {
    return { name: 'ours (PGlite)', error: (error as Error).message };
  }
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/**
 * A row's measurement from what was counted: `requests` = the jobs of the phase, `ok` = those done
 * (enqueued, or whose handler started), `errors` = enqueues the engine refused. Jobs are not HTTP
 * answers, so there are no statuses (an empty `statusCodes`, no non-2xx); a job whose handler never
 * starts fails the bench by its time limit instead (the row says FAILED).
 */
function measurement(perSecond: number, result: EngineResult, counts: JobCounts): Measurement {
  return { requestsPerSecond: perSecond, p50Ms: result.p50, p99Ms: result.p99, requests: counts.counted, ok: counts.done, non2xx: 0, errors: counts.errors, timeouts: 0, statusCodes: {}, cpuMsPerRequest: null };
}

function rows(outcomes: Outcome[], pglite: Outcome | null): ComparisonRow[] {
  const ours = outcomes.find((outcome) => outcome.name === 'ours');
  const result: ComparisonRow[] = [];
  const failed = (scenario: string, backend: string, error: string): ComparisonRow => ({ scenario, backend, ours: null, baseline: null, target: null, note: `failed: ${error}`, failed: true });
  const backlog = ours && !('error' in ours) ? ours.backlog : backlogSize();
  const scenarios: Array<{ scenario: string; rate: (result: EngineResult) => number; count: (result: EngineResult) => JobCounts; target: (peer: string) => number | null; latency?: boolean }> = [
    {
      scenario: `drain, backlog of ${fmt(backlog)} (jobs/s)`,
      rate: (r) => r.drainPerSecond,
      count: (r) => ({ counted: r.drainedJobs, done: r.backlogStarted, errors: 0 }),
      target: (peer) => (peer === 'pg-boss' ? targets.drainVsPgBoss : targets.drainVsGraphile),
    },
    { scenario: 'enqueue, 1 job per transaction (jobs/s)', rate: (r) => r.enqueuePerSecond, count: (r) => r.enqueued, target: () => null },
    { scenario: 'enqueue in a business transaction (jobs/s)', rate: (r) => r.enqueueInTransactionPerSecond, count: (r) => r.enqueuedInTransaction, target: () => null },
    { scenario: `commit→start at ${pacedRate} jobs/s (p50/p99)`, rate: (r) => r.pacedRate, count: (r) => ({ counted: r.pacedJobs, done: r.pacedStarted, errors: 0 }), target: () => null, latency: true },
  ];
  // PostgreSQL's rows only when it ran (BENCH_BACKENDS may name PGlite alone).
  for (const { scenario, rate, count, target, latency } of outcomes.length > 0 ? scenarios : []) {
    for (const peerName of ['pg-boss', 'graphile-worker']) {
      const backend = `PostgreSQL, ours vs ${peerName}`;
      const peer = outcomes.find((outcome) => outcome.name === peerName);
      if (!ours || 'error' in ours) {
        result.push(failed(scenario, backend, `ours: ${ours && 'error' in ours ? ours.error : 'not run'}`));
        continue;
      }
      const row: ComparisonRow = {
        scenario,
        backend,
        ours: measurement(rate(ours), ours, count(ours)),
        baseline: peer && !('error' in peer) ? measurement(rate(peer), peer, count(peer)) : null,
        target: latency ? null : target(peerName),
        ...(latency ? { absolute: { target: `p99 ≤ ${targets.p99Ms} ms`, met: ours.p99 <= targets.p99Ms } } : {}),
      };
      if (peer && 'error' in peer) {
        Object.assign(row, { note: `${peerName} failed: ${peer.error}`, failed: true });
      }
      result.push(row);
    }
  }
  if (pglite && 'error' in pglite) {
    result.push(failed('drain', 'PGlite, ours', pglite.error));
  } else if (pglite) {
    for (const { scenario, rate, count } of scenarios) {
      // The PGlite backlog is its own (a quarter of BENCH_JOBS): the drain row names it.
      const named = scenario.startsWith('drain, ') ? `drain, backlog of ${fmt(pglite.backlog)} (jobs/s)` : scenario;
      result.push({ scenario: named, backend: 'PGlite, ours (no peer)', ours: measurement(rate(pglite), pglite, count(pglite)), baseline: null, target: null });
    }
  }
  return result;
}

function selectedBackends(): string[] {
  return (process.env.BENCH_BACKENDS ?? 'postgres,pglite')
    .toLowerCase()
    .split(',')
    .map((name) => name.trim());
}

/** `npm run bench -- jobs` (bench/run.ts). BENCH_DURATION caps the paced seconds (at most 4). */
export async function run(options: BenchOptions): Promise<BenchReport> {
  await loadPeerVersions();
  const loadBefore = os.loadavg()[0] ?? 0;
  const pacedSeconds = Math.max(2, Math.min(4, options.durationSeconds));
  const backends = selectedBackends();
  const outcomes = backends.includes('postgres') ? await onPostgres(pacedSeconds) : [];
  const pglite = backends.includes('pglite') ? await onPglite(pacedSeconds) : null;
  const measured = [...outcomes, ...(pglite ? [pglite] : [])].filter((outcome): outcome is EngineResult => !('error' in outcome));
  return {
    title: 'jobs: our engine beside pg-boss and graphile-worker (no-op jobs; ratio = ours ÷ peer)',
    rows: rows(outcomes, pglite),
    notes: [
      `load average ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0] ?? 0, 2)} after; ${os.availableParallelism()} CPUs shared by this process, PostgreSQL and anything else running. Engines run one after the other, so compare the ratios; absolute rates follow the machine's load.`,
      `warm-up: ${fmt(warmupJobs())} jobs drained per engine before the measurements, not timed; then ${drainCount()} timed drains of the backlog per engine, the median shown. enqueue: ${producers} concurrent producers, ${enqueueSeconds} s per engine and mode, workers stopped. Drain: worker start → every handler started and no job left in the database. Latency: one job per transaction at ${pacedRate}/s for ${pacedSeconds} s, commit answered → handler started (negative clamped to 0); p50/p99 columns of the other rows repeat it.`,
      ...measured.map(
        (result) =>
          `${result.settings}. Drains: ${result.drainRates.map((rate) => fmt(rate)).join(', ')} jobs/s (the median in the table); every handler of a backlog started at ${fmt(result.startedPerSecond)}/s, median (a drain counts until the database shows its jobs completed); latency max ${fmt(result.max)} ms at ${fmt(result.pacedRate)} jobs/s.`,
      ),
    ],
  };
}
