// Issue 18, item 1: one merchant cannot slow another's webhooks. The outside test's attack runs —
// a sandbox merchant with 13 endpoints that answer after 20 s (each its own origin) and ~30 events/s
// — while a victim merchant's events are recorded at 10/s and a test event is sent every 2 s to its
// one endpoint (the fast loopback receiver thread of the other webhook benches). Measured: the
// victim's commit → arrival p50/p99 (target p99 ≤ 1 s) for events and for test events; the attack's
// requests are counted too. The throughput row to compare with is bench/webhooks.ts's backlog row
// (target: no more than 10 % below its figure before the fairness change, docs/BENCHMARKS.md).
//
//   npm run bench -- webhooks-attack                   PostgreSQL (DATABASE_URL or the local test server)
//   BENCH_BACKENDS=pglite npx tsx bench/webhooks-attack.ts
//   BENCH_ATTACK_SECONDS=10 npx tsx bench/webhooks-attack.ts   victim phase length (default 20)
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../src/db/client.ts';
import { createLogger } from '../src/logger.ts';
import { recordEvent } from '../src/modules/events/record.ts';
import { createPlatform } from '../src/platform.ts';
import { intSetting } from './settings.ts';
import type { BenchOptions, BenchReport, ComparisonRow } from './harness.ts';
import { phaseCounts, startReceiver, countedMeasurement } from './webhook-receiver.ts';
import { percentile } from './stats.ts';

const attackEndpoints = 13;
const attackAnswerAfterMs = 20_000;
const attackRate = 30;
const victimRate = 10;
const testEventEveryMs = 2_000;
const targetP99Ms = 1_000;

/** 13 slow receivers, each on its own port (its own origin: its own connection pool in the client). */
async function startSlowReceivers(): Promise<{ urls: string[]; requests: () => number; close: () => Promise<void> }> {
  let requests = 0;
  const servers = await Promise.all(
    Array.from({ length: attackEndpoints }, async () => {
      const server = http.createServer((request, response) => {
        requests += 1;
        request.resume();
        setTimeout(() => response.end('late'), attackAnswerAfterMs).unref();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  return {
    urls: servers.map((server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/slow`),
    requests: () => requests,
    close: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))));
    },
  };
}

interface AttackResult {
  backend: string;
  victimEvents: number;
  p50: number;
  p99: number;
  testEvents: number;
  testP50: number;
  testP99: number;
  attackEvents: number;
  attackRequests: number;
  counts: Awaited<ReturnType<typeof phaseCounts>>;
}

const seconds = () => intSetting('BENCH_ATTACK_SECONDS', 20, 2, 600);

async function measure(backend: string, database: Database, durationSeconds: number): Promise<AttackResult> {
  const config = loadConfig({ NODE_ENV: 'development', ADMIN_API_KEY: 'adm_bench_key_0123456789abcdefghijklmnop', LOG_LEVEL: 'silent', JOB_POLL_INTERVAL_MS: '200' }, []);
  const platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(generateKeySpec('bench1'))), logger: createLogger({ level: 'silent' }) });
  const receiver = await startReceiver();
  const slow = await startSlowReceivers();
  const { merchants, webhooks } = platform.services;
  try {
    const attacker = await merchants.getMerchant((await merchants.createMerchant({ name: 'Attacker', email: `attacker-${randomBytes(3).toString('hex')}@example.com` })).merchant.id);
    const victim = await merchants.getMerchant((await merchants.createMerchant({ name: 'Victim', email: `victim-${randomBytes(3).toString('hex')}@example.com` })).merchant.id);
    for (const url of slow.urls) {
      await webhooks.createEndpoint(attacker, false, { url });
    }
    const victimEndpoint = await webhooks.createEndpoint(victim, false, { url: receiver.url });
    const data = { pageId: 'page_bench', clientReferenceId: 'order-1', amount: 1250, currency: 'USD' };
    const record = (merchantId: string) => database.transaction((tx) => recordEvent(tx, new Date(), { merchantId, livemode: false, type: 'PAYMENT_SUCCEEDED', data }));
    await platform.worker.start();

    // The attack, paced, until the victim's phase is over.
    let attacking = true;
    let attackEvents = 0;
    const attack = (async () => {
      const started = Date.now();
      while (attacking) {
        const wait = started + (attackEvents * 1000) / attackRate - Date.now();
        if (wait > 0) {
          await new Promise((resolve) => setTimeout(resolve, wait));
        }
        await record(attacker.id);
        attackEvents += 1;
      }
    })();
    // Let it fill the lanes first (more than the 15 s attempt timeout: the circuit breakers have tripped by then, or not).
    await new Promise((resolve) => setTimeout(resolve, 17_000));

    const committed = new Map<string, number>();
    const testCommitted = new Map<string, number>();
    const before = { requests: receiver.requests(), statusCodes: receiver.statusCodes() };
    const phaseStart = Date.now();
    const total = victimRate * durationSeconds;
    let nextTest = phaseStart;
    for (let index = 0; index < total; index += 1) {
      const wait = phaseStart + (index * 1000) / victimRate - Date.now();
      if (wait > 0) {
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
      const event = await record(victim.id);
      committed.set(event.id, Date.now());
      if (Date.now() >= nextTest) {
        nextTest += testEventEveryMs;
        const sent = await webhooks.sendTestEvent(victim, false, victimEndpoint.id, 'PAYMENT_SUCCEEDED');
        testCommitted.set(sent.event.id, Date.now());
      }
    }
    const ids = [...committed.keys(), ...testCommitted.keys()];
    const deadline = Date.now() + 600_000;
    while (!ids.every((id) => receiver.arrivals.has(id)) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    attacking = false;
    await attack;
    const latencies = (map: Map<string, number>) => [...map].map(([id, at]) => (receiver.arrivals.get(id) ?? Number.POSITIVE_INFINITY) - at).sort((left, right) => left - right);
    const victimLatencies = latencies(committed);
    const testLatencies = latencies(testCommitted);
    const counts = await phaseCounts(database, receiver, before, ids);
    return {
      backend,
      victimEvents: committed.size,
      p50: percentile(victimLatencies, 0.5),
      p99: percentile(victimLatencies, 0.99),
      testEvents: testCommitted.size,
      testP50: percentile(testLatencies, 0.5),
      testP99: percentile(testLatencies, 0.99),
      attackEvents,
      attackRequests: slow.requests(),
      counts,
    };
  } finally {
    await slow.close();
    await platform.close();
    await receiver.close();
  }
}

async function onPostgres(durationSeconds: number): Promise<AttackResult> {
  const baseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `paysail_bench_attack_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  try {
    await admin.query(`create database "${name}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    const database = await openPostgres(url.toString(), { max: 24 });
    try {
      await migrateDatabase(database);
      return await measure('PostgreSQL', database, durationSeconds);
    } finally {
      await database.close();
    }
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
}

async function onPglite(durationSeconds: number): Promise<AttackResult> {
  const database = await openPglite({});
  try {
    await migrateDatabase(database);
    return await measure('PGlite', database, durationSeconds);
  } finally {
    await database.close();
  }
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `npm run bench -- webhooks-attack` (bench/run.ts). */
export async function run(_options: BenchOptions): Promise<BenchReport> {
  const backends = (process.env.BENCH_BACKENDS ?? 'postgres').toLowerCase().split(',').map((name) => name.trim());
  const rows: ComparisonRow[] = [];
  const notes: string[] = [];
  for (const backend of ['postgres', 'pglite'].filter((name) => backends.includes(name))) {
    const result = backend === 'pglite' ? await onPglite(seconds()) : await onPostgres(seconds());
    rows.push({
      scenario: `victim events at ${victimRate}/s, attack running`,
      backend: result.backend,
      ours: countedMeasurement(result.victimEvents / seconds(), result.p50, result.p99, result.counts),
      baseline: null,
      target: null,
      absolute: { target: `p99 ≤ ${fmt(targetP99Ms)} ms`, met: result.p99 <= targetP99Ms },
    });
    rows.push({
      scenario: `victim test events every ${testEventEveryMs / 1000} s, attack running`,
      backend: result.backend,
      ours: countedMeasurement(result.testEvents / seconds(), result.testP50, result.testP99, result.counts),
      baseline: null,
      target: null,
      absolute: { target: `p99 ≤ ${fmt(targetP99Ms)} ms`, met: result.testP99 <= targetP99Ms },
    });
    notes.push(
      `${result.backend}: the attacker recorded ${fmt(result.attackEvents)} events (${attackEndpoints} endpoints answering after ${attackAnswerAfterMs / 1000} s); its receivers got ${fmt(result.attackRequests)} requests. Victim: ${fmt(result.victimEvents)} events, ${fmt(result.testEvents)} test events; p50/p99 = commit → arrival at the receiver.`,
    );
  }
  notes.push('Throughput: compare bench/webhooks.ts\'s backlog row with its figure before the fairness change (docs/BENCHMARKS.md); the target is no more than 10 % lower.');
  return { title: 'webhooks under attack: a merchant with 13 endpoints answering after 20 s at ~30 events/s; another merchant\'s deliveries (issue 18 item 1)', rows, notes };
}

async function main(): Promise<void> {
  console.log(`bench/webhooks-attack: Node ${process.version}, ${os.cpus().length} cores, load average ${os.loadavg().map((value) => value.toFixed(1)).join(' ')}`);
  const report = await run({ durationSeconds: seconds(), warmupSeconds: 0, connections: 0 });
  console.log(report.title);
  for (const row of report.rows) {
    const ours = row.ours;
    console.log(`${row.backend}  ${row.scenario}: ${ours ? `p50 ${fmt(ours.p50Ms)} ms, p99 ${fmt(ours.p99Ms)} ms` : 'no result'}  (${row.absolute?.target ?? ''} → ${row.absolute?.met ? 'met' : 'MISSED'})`);
  }
  for (const note of report.notes) {
    console.log(note);
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  await main();
}
