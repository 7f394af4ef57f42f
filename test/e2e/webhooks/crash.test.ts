import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, test } from 'node:test';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../../../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { migrateDatabase, openPostgres, type Database } from '../../../src/db/client.ts';
import { jobs, webhookDeliveries } from '../../../src/db/schema/index.ts';
import { JobRegistry, Worker, type JobDefinition } from '../../../src/jobs/worker.ts';
import { createLogger } from '../../../src/logger.ts';
import { eventFanoutQueue, recordEvent } from '../../../src/modules/events/record.ts';
import { createPlatform } from '../../../src/platform.ts';
import { adminApiKey, createTestContext } from '../../helpers/context.ts';
import { TestClock } from '../../helpers/clock.ts';
import { assertVerified, WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { createEndpoint, emitEvent } from '../../helpers/webhooks.ts';
import { ensureServerBuild } from '../../reliability/processes.ts';

const eventCount = 500;

/**
 * Real time that the test can move ahead: the in-process run uses real workers (not drains), so
 * leases, retries, parked deliveries and open circuits all wait on this clock. When nothing is due
 * and no healthy worker holds a job, the test moves it to the next due time instead of waiting for it
 * (see `waitForEveryDelivery`): a retry's 5 minutes or an open circuit's 30 s do not depend on the
 * machine being fast enough that no attempt ever timed out.
 */
class FastForwardClock extends TestClock {
  private offsetMs = 0;
  override now(): Date {
    return new Date(Date.now() + this.offsetMs);
  }
  override advance(ms: number): void {
    this.offsetMs += ms;
  }
  get skippedMs(): number {
    return this.offsetMs;
  }
}
const crashes = 20;
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * At least once, whatever dies when: every event reached the receiver, every copy verifies, and the
 * copies of one event (retries after a crash) share its webhook-id and body. Returns how many
 * requests were duplicates.
 */
function assertDeliveredAtLeastOnce(receiver: WebhookReceiver, eventIds: readonly string[], secret: string): number {
  const copies = new Map<string, string[]>();
  for (const request of receiver.requests) {
    const event = assertVerified(request, secret);
    const list = copies.get(event.id) ?? [];
    list.push(request.body);
    copies.set(event.id, list);
  }
  const missing = eventIds.filter((id) => !copies.has(id));
  assert.deepEqual(missing, [], `${missing.length} events were never delivered`);
  assert.equal(copies.size, eventIds.length, 'no delivery of an unknown event');
  for (const [id, bodies] of copies) {
    assert.ok(
      bodies.every((body) => body === bodies[0]),
      `every copy of ${id} is the same body`,
    );
  }
  return receiver.requests.length - copies.size;
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting until ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Waits until every delivery succeeded, moving `clock` over the waits: whenever no job is due and no
 * healthy worker holds one, to the earliest time a job becomes due or a frozen worker's lease runs out.
 * Fails if neither a delivery succeeds nor the clock can move for `stallMs` of real time (a hang), or
 * if the deliveries need more than a day of the retry schedule.
 */
async function waitForEveryDelivery(database: Database, merchantId: string, clock: FastForwardClock, healthyWorkerIds: readonly string[], stallMs: number): Promise<void> {
  let succeeded = -1;
  let lastProgress = Date.now();
  for (;;) {
    const now = await succeededDeliveries(database, merchantId);
    if (now === eventCount) {
      return;
    }
    if (now !== succeeded) {
      succeeded = now;
      lastProgress = Date.now();
    }
    const at = clock.now();
    const atSql = sql`${at.toISOString()}::timestamptz`;
    const [state] = await database.db
      .select({
        due: sql<number>`count(*) filter (where ${jobs.status} = 'pending' and ${jobs.runAt} <= ${atSql})`.mapWith(Number),
        heldByHealthy: sql<number>`count(*) filter (where ${jobs.status} = 'running' and ${jobs.lockedUntil} > ${atSql} and ${inArray(jobs.lockedBy, [...healthyWorkerIds])})`.mapWith(Number),
        nextAt: sql<string | null>`min(case when ${jobs.status} = 'pending' then ${jobs.runAt} when ${jobs.status} = 'running' then ${jobs.lockedUntil} end)`,
      })
      .from(jobs);
    if (state && state.due === 0 && state.heldByHealthy === 0 && state.nextAt !== null) {
      const ahead = new Date(state.nextAt).getTime() - at.getTime();
      if (ahead > 0) {
        clock.advance(ahead + 1);
        lastProgress = Date.now();
        assert.ok(clock.skippedMs < 86_400_000, `every delivery succeeded within a day of the retry schedule (${succeeded} of ${eventCount} did)`);
      }
    }
    if (Date.now() - lastProgress > stallMs) {
      throw new Error(`no delivery succeeded and nothing became due for ${stallMs} ms: ${succeeded} of ${eventCount} succeeded; ${await deliveryState(database)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** Where the deliveries and the jobs stand, for a failure's message: counts by status, attempts and last error. */
async function deliveryState(database: Database): Promise<string> {
  const deliveries = await database.db
    .select({ status: webhookDeliveries.status, attempts: webhookDeliveries.attemptCount, lastError: webhookDeliveries.lastError, deliveries: count() })
    .from(webhookDeliveries)
    .groupBy(webhookDeliveries.status, webhookDeliveries.attemptCount, webhookDeliveries.lastError)
    .limit(10);
  const queued = await database.db
    .select({ queue: jobs.queue, status: jobs.status, attempts: jobs.attempts, jobs: count() })
    .from(jobs)
    .groupBy(jobs.queue, jobs.status, jobs.attempts)
    .limit(20);
  return `deliveries: ${JSON.stringify(deliveries)}; jobs: ${JSON.stringify(queued)}`;
}

async function succeededDeliveries(database: Database, merchantId: string): Promise<number> {
  const [row] = await database.db
    .select({ total: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.status, 'SUCCEEDED')));
  return row?.total ?? 0;
}

describe('webhook delivery survives crashes (at least once, same webhook-id)', () => {
  const databaseUrl = process.env.DATABASE_URL;

  if (databaseUrl) {
    // 21 worker processes start one after another, each from the bundle `npm start` runs. The limit
    // only stops a hung run.
    test(`PostgreSQL: kill -9 the worker process ${crashes} times during a ${eventCount}-event run`, { timeout: 900_000 }, async (t) => {
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      const name = `paysail_crash_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
      await admin.query(`create database "${name}"`);
      const url = new URL(databaseUrl);
      url.pathname = `/${name}`;
      const database = await openPostgres(url.toString(), { max: 4 });
      const receiver = await WebhookReceiver.start();
      const children = new Set<ChildProcess>();
      try {
        await migrateDatabase(database);
        const keySpec = generateKeySpec('crash1');
        const env = {
          NODE_ENV: 'test',
          DATABASE_URL: url.toString(),
          ENCRYPTION_KEYS: keySpec,
          ADMIN_API_KEY: adminApiKey,
          LOG_LEVEL: 'silent',
          WORKER_CONCURRENCY: '4',
          JOB_POLL_INTERVAL_MS: '100',
          // A killed worker's jobs come back after the lease; the attempt limit may be at most the
          // lease less a second. A loaded CI machine (load 15–20) starves a worker for seconds: with
          // 1 s limits its attempts timed out or turned slow, the fairness gate parked a batch of
          // deliveries and the endpoint's circuit opened (30 s, then longer), and the last worker
          // could not finish in time. This test is about crashes, not slow receivers
          // (test/e2e/webhooks/fairness.test.ts covers those): an attempt never counts as slow here,
          // and its time limit is as long as a short lease allows.
          JOB_LEASE_MS: '4000',
          WEBHOOK_TIMEOUT_MS: '3000',
          WEBHOOK_SLOW_ATTEMPT_MS: '60000',
        };
        const platform = await createPlatform({ config: loadConfig(env, []), database, keyRing: createKeyRing(parseKeySpec(keySpec)), logger: createLogger({ level: 'silent' }) });
        const created = await platform.services.merchants.createMerchant({ name: 'Crash test', email: 'crash@example.com' });
        const merchant = await platform.services.merchants.getMerchant(created.merchant.id);
        const endpoint = await platform.services.webhooks.createEndpoint(merchant, false, { url: receiver.url() });
        // Slow enough answers that every kill lands while deliveries are in flight.
        receiver.answer = () => ({ status: 200, body: 'ok', delayMs: 20 });
        const eventIds: string[] = [];
        for (let index = 0; index < eventCount; index += 1) {
          const event = await database.transaction((tx) => recordEvent(tx, new Date(), { merchantId: merchant.id, livemode: false, type: 'PAYMENT_SUCCEEDED', data: { index } }));
          eventIds.push(event.id);
        }

        const startWorker = async (): Promise<ChildProcess> => {
          // What `npm start` runs (the bundle): a start costs about 0.5 CPU-s instead of 2.7 through tsx.
          await ensureServerBuild();
          const child = spawn(process.execPath, ['scripts/start.mjs', '--role=worker'], { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
          children.add(child);
          child.on('exit', () => children.delete(child));
          let output = '';
          await new Promise<void>((resolve, reject) => {
            const onData = (chunk: Buffer) => {
              output += chunk.toString();
              if (output.includes('Paysail worker')) {
                child.stdout?.off('data', onData);
                resolve();
              }
            };
            child.stdout?.on('data', onData);
            child.stderr?.on('data', (chunk: Buffer) => {
              output += chunk.toString();
            });
            child.once('exit', (code) => reject(new Error(`worker exited (${String(code)}) before it was ready: ${output.slice(-2000)}`)));
          });
          return child;
        };

        let kills = 0;
        for (; kills < crashes; kills += 1) {
          const worker = await startWorker();
          const seen = receiver.requests.length;
          // Let it deliver a little, then kill it without warning somewhere in the middle of its work.
          await waitUntil('the worker makes progress', async () => receiver.requests.length >= seen + 8 || receiver.requests.length >= eventCount * 2, 20_000);
          await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 40)));
          const exited = new Promise((resolve) => worker.once('exit', resolve));
          worker.kill('SIGKILL');
          await exited;
        }
        const midRun = await succeededDeliveries(database, merchant.id);
        t.diagnostic(`${kills} kills; ${midRun} of ${eventCount} deliveries had succeeded when the last worker was killed`);
        assert.ok(midRun < eventCount, 'the kills happened during the run, not after it');

        const last = await startWorker();
        // A passing run ends as soon as the last delivery succeeds; the limit leaves room for an
        // endpoint circuit that a starved worker's timeouts opened anyway (30 s, then 60 s).
        await waitUntil('every delivery succeeded', async () => (await succeededDeliveries(database, merchant.id)) === eventCount, 300_000).catch(async (error: unknown) => {
          throw new Error(`${String(error)}; ${await deliveryState(database)}`);
        });
        const stopped = new Promise((resolve) => last.once('exit', resolve));
        last.kill('SIGTERM');
        await stopped;

        const duplicates = assertDeliveredAtLeastOnce(receiver, eventIds, endpoint.secret);
        t.diagnostic(`${receiver.requests.length} requests for ${eventCount} events: ${duplicates} duplicates (redone after a kill)`);
        await platform.close();
      } finally {
        for (const child of children) {
          child.kill('SIGKILL');
        }
        await receiver.close();
        await database.close();
        await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
        await admin.end();
      }
    });
  } else {
    test(`PGlite (one process): ${eventCount} events through two workers while ${crashes} workers freeze mid-delivery`, { timeout: 600_000 }, async (t) => {
      // PGlite is one process, so a crash is simulated in-process: each doomed worker claims fan-out
      // jobs, sends the HTTP requests, and then never commits (as if killed there). Its leases run
      // out and the two healthy workers redo those deliveries.
      // What waits on time (leases, retries, parked deliveries, open circuits) waits on the test's
      // clock, which skips ahead when nothing is due, so the frozen workers' leases can be long.
      // What runs on real time is generous because the receiver shares the event loop with PGlite's
      // synchronous queries, and a loaded machine gives this process a fraction of a core: the attempt
      // timeout and the time after which an attempt counts as slow (else the fairness gate isolates
      // the endpoint and no crash is exercised), and the lease (a healthy worker's batch that outlives
      // its lease is redone, and under starvation would be redone forever). A run that stops making
      // progress fails after two minutes; the test's limit only stops a hung run.
      const clock = new FastForwardClock();
      const context = await createTestContext({ env: { JOB_LEASE_MS: '60000', WEBHOOK_TIMEOUT_MS: '20000', WEBHOOK_SLOW_ATTEMPT_MS: '20000' }, clock });
      const receiver = await WebhookReceiver.start();
      const logger = createLogger({ level: 'silent' });
      const options = { registry: context.platform.jobs, clock, logger, concurrency: 8, pollIntervalMs: 20, leaseMs: 60_000 };
      const healthy = [new Worker({ ...options, database: context.database }), new Worker({ ...options, database: context.database })];
      try {
        const merchant = await context.createMerchant();
        const endpoint = await createEndpoint(context, merchant, { url: receiver.url() });
        const eventIds: string[] = [];
        for (let index = 0; index < eventCount; index += 1) {
          eventIds.push((await emitEvent(context, merchant, { data: { index } })).id);
        }
        // First attempts are made by the fan-out job: the doomed workers take only those.
        const fanoutOnly = new JobRegistry();
        fanoutOnly.register(context.platform.jobs.get(eventFanoutQueue) as JobDefinition);
        const frozenDatabase: Database = { ...context.database, transaction: () => new Promise<never>(() => undefined) };

        await Promise.all(healthy.map((worker) => worker.start()));
        for (let crash = 0; crash < crashes; crash += 1) {
          const doomed = new Worker({ ...options, registry: fanoutOnly, database: frozenDatabase });
          await doomed.start();
          await new Promise((resolve) => setTimeout(resolve, 40));
          // It stops claiming; the jobs it holds never finish (their promises never settle).
          void doomed.stop();
        }
        await waitForEveryDelivery(context.database, merchant.id, clock, healthy.map((worker) => worker.id), 120_000);

        const duplicates = assertDeliveredAtLeastOnce(receiver, eventIds, endpoint.secret);
        t.diagnostic(`${receiver.requests.length} requests for ${eventCount} events: ${duplicates} duplicates redone after ${crashes} frozen workers; the clock skipped ${Math.round(clock.skippedMs / 1000)} s of waits`);
        assert.ok(duplicates > 0, 'deliveries a frozen worker had sent were sent again by a healthy one, with the same webhook-id');
      } finally {
        await Promise.all(healthy.map((worker) => worker.stop()));
        await receiver.close();
        await context.close();
      }
    });
  }
});
