// Issue 20, item 4: many tenants sharing one webhook backlog. 100 merchants × 10 endpoints each
// (the same loopback receiver, one path per endpoint), a backlog of events recorded with the worker
// stopped, then the worker drains it. Per merchant: p99 of "worker started → delivery completed"
// (the delivery row's completed_at, the attempt's time); fairness = the slowest merchant's p99 ÷
// the median merchant's (1.0 = every merchant waits alike). PostgreSQL only.
//
//   npm run bench -- webhooks-tenants
//   BENCH_TENANT_EVENTS=3 npm run bench -- webhooks-tenants     events per merchant
import os from 'node:os';
import { randomBytes } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { sql } from 'drizzle-orm';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { migrateDatabase, openPostgres, queryRows, type Database } from '../src/db/client.ts';
import { createLogger } from '../src/logger.ts';
import { recordEvent } from '../src/modules/events/record.ts';
import { createPlatform } from '../src/platform.ts';
import { intSetting } from './settings.ts';
import type { BenchOptions, BenchReport } from './harness.ts';
import { countedMeasurement, phaseCounts, startReceiver, type PhaseCounts } from './webhook-receiver.ts';

const merchantCount = 100;
const endpointsPerMerchant = 10;

const eventsPerMerchant = () => intSetting('BENCH_TENANT_EVENTS', 3, 1, 100);

interface TenantResult {
  deliveries: number;
  /** The receiver's requests and statuses, the worker's failed attempts and timeouts, during the drain. */
  counts: PhaseCounts;
  perSecond: number;
  medianP99: number;
  slowestP99: number;
  fastestP99: number;
  fairness: number;
  setupSeconds: number;
}

async function measure(database: Database, events: number): Promise<TenantResult> {
  const config = loadConfig({ NODE_ENV: 'development', ADMIN_API_KEY: 'adm_bench_key_0123456789abcdefghijklmnop', LOG_LEVEL: 'silent', JOB_POLL_INTERVAL_MS: '200' }, []);
  const platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(generateKeySpec('bench1'))), logger: createLogger({ level: 'silent' }) });
  const receiver = await startReceiver();
  try {
    const setupStarted = performance.now();
    const merchantIds: string[] = [];
    for (let index = 0; index < merchantCount; index += 1) {
      const created = await platform.services.merchants.createMerchant({ name: `Tenant ${index}`, email: `tenant-${index}-${randomBytes(3).toString('hex')}@example.com` });
      const merchant = await platform.services.merchants.getMerchant(created.merchant.id);
      for (let endpoint = 0; endpoint < endpointsPerMerchant; endpoint += 1) {
        await platform.services.webhooks.createEndpoint(merchant, false, { url: `${receiver.url}/${index}/${endpoint}` });
      }
      merchantIds.push(merchant.id);
    }
    const data = { pageId: 'page_bench', clientReferenceId: 'order-1', amount: 1250, currency: 'USD' };
    const eventIds: string[] = [];
    // One backlog, merchants interleaved as they would arrive: event k of every merchant, then k + 1.
    for (let round = 0; round < events; round += 1) {
      await database.transaction(async (tx) => {
        for (const merchantId of merchantIds) {
          eventIds.push((await recordEvent(tx, new Date(), { merchantId, livemode: false, type: 'PAYMENT_SUCCEEDED', data })).id);
        }
      });
    }
    const setupSeconds = (performance.now() - setupStarted) / 1000;
    const deliveries = merchantCount * endpointsPerMerchant * events;
    const before = { requests: receiver.requests(), statusCodes: receiver.statusCodes() };
    const startedAt = new Date();
    const started = performance.now();
    await platform.worker.start();
    const deadline = Date.now() + 300_000;
    for (;;) {
      const [row] = await queryRows<{ done: number }>(database.db, sql`select count(*)::integer as done from webhook_deliveries where status = 'SUCCEEDED'`);
      if ((row?.done ?? 0) >= deliveries) {
        break;
      }
      if (Date.now() > deadline) {
        throw new Error(`timed out: ${row?.done ?? 0} of ${deliveries} deliveries`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const perSecond = deliveries / ((performance.now() - started) / 1000);
    await platform.worker.stop();
    const counts = await phaseCounts(database, receiver, before, eventIds);
    const perMerchant = await queryRows<{ p99: number }>(
      database.db,
      sql`select (percentile_cont(0.99) within group (order by extract(epoch from completed_at - ${startedAt.toISOString()}::timestamptz)) * 1000)::float8 as p99
          from webhook_deliveries where status = 'SUCCEEDED' group by merchant_id order by 1`,
    );
    const p99s = perMerchant.map((row) => Number(row.p99));
    const median = p99s[Math.floor((p99s.length - 1) / 2)] ?? Number.NaN;
    const slowest = p99s[p99s.length - 1] ?? Number.NaN;
    return { deliveries, counts, perSecond, medianP99: median, slowestP99: slowest, fastestP99: p99s[0] ?? Number.NaN, fairness: slowest / median, setupSeconds };
  } finally {
    await platform.close();
    await receiver.close();
  }
}

const fmt = (value: number, digits = 0) => value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

/** `npm run bench -- webhooks-tenants` (bench/run.ts). */
export async function run(_options: BenchOptions): Promise<BenchReport> {
  const baseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : 'postgres://postgres@127.0.0.1:5432/test';
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  const name = `paysail_bench_tenants_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const loadBefore = os.loadavg()[0] ?? 0;
  let result: TenantResult;
  try {
    await admin.query(`create database "${name}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    const database = await openPostgres(url.toString(), { max: 24 });
    try {
      await migrateDatabase(database);
      result = await measure(database, eventsPerMerchant());
    } finally {
      await database.close();
    }
  } finally {
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
  // Counted, not assumed: the receiver's requests and the statuses it answered, the worker's failed
  // attempts and timeouts (a non-2xx or a failed attempt makes the row INVALID).
  const ours = countedMeasurement(result.perSecond, result.medianP99, result.slowestP99, result.counts);
  return {
    title: `webhooks, ${merchantCount} merchants × ${endpointsPerMerchant} endpoints: one backlog (PostgreSQL; no target, fairness printed)`,
    rows: [{ scenario: `backlog of ${fmt(result.deliveries)} deliveries, fairness ${fmt(result.fairness, 2)}`, backend: 'PostgreSQL', ours, baseline: null, target: null }],
    notes: [
      `ours req/s = deliveries per second (worker started → every delivery SUCCEEDED). "p50" = the median merchant's p99, "p99" = the slowest merchant's p99, of worker start → delivery completed; the fastest merchant's p99 was ${fmt(result.fastestP99)} ms.`,
      `the receiver got ${fmt(result.counts.requests)} requests for ${fmt(result.deliveries)} deliveries (${Object.entries(result.counts.statusCodes)
        .map(([status, total]) => `${fmt(total)} × ${status}`)
        .join(', ')}); the worker recorded ${fmt(result.counts.succeeded)} SUCCEEDED, ${fmt(result.counts.failedAttempts)} failed attempts, ${fmt(result.counts.timeouts)} timeouts.`,
      `fairness = slowest merchant's p99 ÷ median merchant's p99 = ${fmt(result.slowestP99)} ÷ ${fmt(result.medianP99)} = ${fmt(result.fairness, 2)} (1.00 = every merchant waits alike).`,
      `set-up (${merchantCount} merchants, ${merchantCount * endpointsPerMerchant} endpoints, the backlog) ${fmt(result.setupSeconds, 1)} s, not measured; load average ${fmt(loadBefore, 2)} before, ${fmt(os.loadavg()[0] ?? 0, 2)} after.`,
    ],
  };
}
