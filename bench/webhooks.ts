// Issue 3: webhook delivery throughput and latency, on PostgreSQL and on PGlite.
//
//   npx tsx bench/webhooks.ts                       both backends
//   DATABASE_URL=postgres://… npx tsx bench/webhooks.ts
//   BENCH_BACKENDS=pglite npx tsx bench/webhooks.ts
//
// 1. Throughput: N events are recorded with the worker stopped, then the worker starts and drains
//    them: deliveries per second from "worker started" to "every delivery SUCCEEDED" (this counts
//    the fan-out job of each event too).
// 2. Latency: events are recorded one transaction each at 200/s while the worker runs; latency is
//    "transaction committed" → "request arrived at the receiver", p50 and p99.
// The receiver is a node:http server in a worker thread (its own event loop), answering 204 at once.
// Targets on PostgreSQL: ≥ 1,000 deliveries/s, p99 ≤ 250 ms.
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { Worker as Thread } from 'node:worker_threads';
import { and, count, eq } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../src/db/client.ts';
import { webhookDeliveries } from '../src/db/schema/index.ts';
import { createLogger } from '../src/logger.ts';
import { recordEvent } from '../src/modules/events/record.ts';
import { createPlatform, type Platform } from '../src/platform.ts';

const defaultDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';
const latencyRate = 200;

interface Result {
  backend: string;
  concurrency: number;
  throughputEvents: number;
  deliveriesPerSecond: number;
  latencyEvents: number;
  achievedRate: number;
  p50: number;
  p99: number;
  max: number;
}

/** The receiver thread: answers 204 and reports `[webhook-id, arrival ms]` in batches. */
const receiverSource = `
const http = require('node:http');
const { parentPort } = require('node:worker_threads');
let batch = [];
setInterval(() => { if (batch.length) { parentPort.postMessage(batch); batch = []; } }, 20).unref();
const server = http.createServer({ keepAliveTimeout: 30000 }, (request, response) => {
  request.resume();
  request.on('end', () => {
    batch.push([request.headers['webhook-id'], Date.now()]);
    response.writeHead(204);
    response.end();
  });
});
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }));
parentPort.on('message', (message) => { if (message === 'close') { server.closeAllConnections(); server.close(() => process.exit(0)); } });
`;

interface Receiver {
  url: string;
  arrivals: Map<string, number>;
  requests: () => number;
  close(): Promise<void>;
}

async function startReceiver(): Promise<Receiver> {
  const thread = new Thread(receiverSource, { eval: true });
  const arrivals = new Map<string, number>();
  let requests = 0;
  const port = await new Promise<number>((resolve) => {
    thread.on('message', (message: { port: number } | Array<[string, number]>) => {
      if (Array.isArray(message)) {
        for (const [id, at] of message) {
          requests += 1;
          if (!arrivals.has(id)) {
            arrivals.set(id, at);
          }
        }
      } else {
        resolve(message.port);
      }
    });
  });
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    requests: () => requests,
    close: async () => {
      thread.postMessage('close');
      await new Promise((resolve) => thread.once('exit', resolve));
    },
  };
}

async function succeeded(database: Database, merchantId: string): Promise<number> {
  const [row] = await database.db
    .select({ total: count() })
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.status, 'SUCCEEDED')));
  return row?.total ?? 0;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs: number, pollMs = 20): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) {
    return Number.NaN;
  }
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;
}

async function runBackend(backend: string, database: Database, options: { concurrency: number; throughputEvents: number; latencySeconds: number }): Promise<Result> {
  const keySpec = generateKeySpec('bench1');
  const config = loadConfig(
    { NODE_ENV: 'development', ADMIN_API_KEY: 'adm_bench_key_0123456789abcdefghijklmnop', LOG_LEVEL: 'silent', WORKER_CONCURRENCY: String(options.concurrency), JOB_POLL_INTERVAL_MS: '200' },
    [],
  );
  const platform: Platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(keySpec)), logger: createLogger({ level: 'silent' }) });
  const receiver = await startReceiver();
  try {
    const created = await platform.services.merchants.createMerchant({ name: `Bench ${backend}`, email: `bench-${randomBytes(4).toString('hex')}@example.com` });
    const merchant = await platform.services.merchants.getMerchant(created.merchant.id);
    await platform.services.webhooks.createEndpoint(merchant, false, { url: receiver.url });
    const data = { pageId: 'page_bench', clientReferenceId: 'order-1', amount: 1250, currency: 'USD' };

    // Warm-up: JIT, pools, the receiver's keep-alive connections.
    await platform.worker.start();
    for (let index = 0; index < 50; index += 1) {
      await database.transaction((tx) => recordEvent(tx, new Date(), { merchantId: merchant.id, livemode: false, type: 'PAYMENT_SUCCEEDED', data }));
    }
    await waitFor('warm-up', async () => (await succeeded(database, merchant.id)) >= 50, 60_000);
    await platform.worker.stop();

    // 1. Throughput: a backlog of N events, then the worker drains it.
    const before = await succeeded(database, merchant.id);
    for (let index = 0; index < options.throughputEvents; index += 100) {
      await database.transaction(async (tx) => {
        for (let offset = 0; offset < 100 && index + offset < options.throughputEvents; offset += 1) {
          await recordEvent(tx, new Date(), { merchantId: merchant.id, livemode: false, type: 'PAYMENT_SUCCEEDED', data });
        }
      });
    }
    const started = performance.now();
    await platform.worker.start();
    await waitFor('the backlog', async () => (await succeeded(database, merchant.id)) >= before + options.throughputEvents, 300_000, 10);
    const deliveriesPerSecond = options.throughputEvents / ((performance.now() - started) / 1000);

    // 2. Latency at 200 events/s, one transaction per event, worker running. Events start on a fixed
    //    schedule (not one after the other), so a slow commit does not lower the rate.
    const committed = new Map<string, number>();
    const total = latencyRate * options.latencySeconds;
    const producerStart = Date.now();
    const inFlight = new Set<Promise<void>>();
    for (let index = 0; index < total; index += 1) {
      const wait = producerStart + (index * 1000) / latencyRate - Date.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      if (inFlight.size >= 32) {
        await Promise.race(inFlight);
      }
      const produced: Promise<void> = database
        .transaction((tx) => recordEvent(tx, new Date(), { merchantId: merchant.id, livemode: false, type: 'PAYMENT_SUCCEEDED', data }))
        .then((event) => {
          committed.set(event.id, Date.now());
        })
        .finally(() => inFlight.delete(produced));
      inFlight.add(produced);
    }
    await Promise.all(inFlight);
    const achievedRate = total / ((Date.now() - producerStart) / 1000);
    await waitFor('the paced events', async () => [...committed.keys()].every((id) => receiver.arrivals.has(id)), 120_000, 50);
    const latencies = [...committed].map(([id, at]) => (receiver.arrivals.get(id) ?? Number.NaN) - at).sort((left, right) => left - right);
    await platform.worker.stop();
    return {
      backend,
      concurrency: options.concurrency,
      throughputEvents: options.throughputEvents,
      deliveriesPerSecond,
      latencyEvents: total,
      achievedRate,
      p50: percentile(latencies, 0.5),
      p99: percentile(latencies, 0.99),
      max: latencies[latencies.length - 1] ?? Number.NaN,
    };
  } finally {
    await platform.close();
    await receiver.close();
  }
}

async function postgres(): Promise<Result> {
  const baseUrl = process.env.DATABASE_URL ?? defaultDatabaseUrl;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `paysail_bench_webhooks_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await admin.query(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: 24 });
  try {
    await migrateDatabase(database);
    return await runBackend('PostgreSQL', database, { concurrency: 32, throughputEvents: 2000, latencySeconds: 8 });
  } finally {
    await database.close();
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
}

async function pglite(): Promise<Result> {
  const database = await openPglite({});
  try {
    await migrateDatabase(database);
    return await runBackend('PGlite', database, { concurrency: 8, throughputEvents: 500, latencySeconds: 3 });
  } finally {
    await database.close();
  }
}

const backends = (process.env.BENCH_BACKENDS ?? 'postgres,pglite').split(',').map((name) => name.trim());
const results: Result[] = [];
const began = Date.now();
console.log(`bench/webhooks: Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((value) => value.toFixed(1)).join(' ')}`);
for (const backend of backends) {
  try {
    results.push(backend === 'pglite' ? await pglite() : await postgres());
  } catch (error) {
    console.log(`${backend}: failed: ${(error as Error).message}`);
    process.exitCode = 1;
  }
}

const rows = [
  ['backend', 'workers', 'throughput (backlog)', 'paced rate', 'enqueue→delivered p50', 'p99', 'max'],
  ...results.map((result) => [
    result.backend,
    String(result.concurrency),
    `${Math.round(result.deliveriesPerSecond)} deliveries/s (${result.throughputEvents})`,
    `${result.achievedRate.toFixed(0)} events/s (${result.latencyEvents})`,
    `${result.p50.toFixed(0)} ms`,
    `${result.p99.toFixed(0)} ms`,
    `${result.max.toFixed(0)} ms`,
  ]),
];
const widths = rows[0]?.map((_, column) => Math.max(...rows.map((row) => (row[column] ?? '').length))) ?? [];
for (const [index, row] of rows.entries()) {
  console.log(row.map((cell, column) => cell.padEnd(widths[column] ?? 0)).join('  ').trimEnd());
  if (index === 0) {
    console.log(widths.map((width) => '-'.repeat(width)).join('  '));
  }
}
const postgresResult = results.find((result) => result.backend === 'PostgreSQL');
if (postgresResult) {
  console.log(
    `targets (PostgreSQL): ≥ 1000 deliveries/s → ${postgresResult.deliveriesPerSecond >= 1000 ? 'met' : 'MISSED'}; p99 ≤ 250 ms → ${postgresResult.p99 <= 250 ? 'met' : 'MISSED'}`,
  );
}
console.log(`total ${((Date.now() - began) / 1000).toFixed(1)} s; load average now ${os.loadavg().map((value) => value.toFixed(1)).join(' ')}`);
