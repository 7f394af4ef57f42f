// Issue 6: `GET /v1/entitlements` with 1,000,000 entitlements across 1,000 merchants on PostgreSQL.
// Target: a page of 100 for one customer answers with p99 ≤ 20 ms through the HTTP API.
//
//   npx tsx bench/entitlements.ts                 (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
//   BENCH_REQUESTS=5000 npx tsx bench/entitlements.ts
//
// Standalone: it creates a fresh database `paysail_bench_ent_<random>`, migrates it, bulk-loads the
// rows with INSERT … SELECT generate_series, measures sequential requests against the real app on
// 127.0.0.1 (one client, so the numbers are service time, not queueing), prints the EXPLAIN ANALYZE
// plans of the queries the endpoint runs, and drops the database again.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { createLogger } from '../src/logger.ts';
import { createPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { migrateDatabase, openPostgres } from '../src/db/client.ts';
import { elapsedMs, percentile } from './stats.ts';

const merchantCount = 1000;
const customersPerMerchant = 5;
const entitlementCount = Number(process.env.BENCH_ENTITLEMENTS ?? 1_000_000);
/** 1,000,000 / (1,000 × 5): every customer has 200 entitlements, two full pages. */
const perCustomer = entitlementCount / (merchantCount * customersPerMerchant);
const targetP99Ms = 20;
/** Sequential requests measured for the headline scenario; the others run a quarter of it. */
const requests = Number(process.env.BENCH_REQUESTS ?? 2000);
const warmupRequests = 200;

async function main(): Promise<void> {
  const started = Date.now();
  const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `paysail_bench_ent_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  console.log(`database ${name} created`);

  const database = await openPostgres(url.toString(), { max: 10 });
  let closeApp: (() => Promise<void>) | undefined;
  try {
    await migrateDatabase(database);
    const keySpec = generateKeySpec('bench');
    const config = loadConfig(
      { NODE_ENV: 'production', ENCRYPTION_KEYS: keySpec, DATABASE_URL: url.toString(), ADMIN_API_KEY: `adm_${randomBytes(24).toString('hex')}`, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', PUBLIC_URL: 'http://127.0.0.1' },
      [],
    );
    const platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(keySpec)), logger: createLogger({ level: 'silent' }) });
    const created = await platform.services.merchants.createMerchant({ name: 'Bench merchant 0', email: `bench-0-${randomBytes(4).toString('hex')}@example.com` });
    const merchantId = created.merchant.id;

    // Bulk load. Entitlement n belongs to merchant n % 1000 and customer (n / 1000) % 5, so each
    // customer's rows are spread over the whole table, as a year of renewals would leave them.
    const loadStarted = process.hrtime.bigint();
    const client = await database.pool.connect();
    try {
      await client.query('begin');
      await client.query(
        `create temporary table bench_merchants on commit drop as
           select 0 as idx, $1::text as id
           union all select i, 'mer_bench_' || lpad(i::text, 4, '0') from generate_series(1, ${merchantCount - 1}) i`,
        [merchantId],
      );
      await client.query(
        `insert into merchants (id, name, email, live_enabled, fraud_report_webhooks_enabled, created_at, updated_at)
           select id, 'Bench merchant ' || idx, 'bench-' || idx || '@example.com', false, false, now(), now() from bench_merchants where idx > 0`,
      );
      await client.query(
        `insert into customers (id, merchant_id, livemode, reference_id, signup_at, pii, kyc_status, created_at, updated_at)
           select 'cus_bench_' || m.idx || '_' || c, m.id, false, 'ref-' || c, now(), '{}'::jsonb, 'NOT_STARTED', now(), now()
           from bench_merchants m cross join generate_series(0, ${customersPerMerchant - 1}) c`,
      );
      await client.query(
        `insert into subscriptions (id, merchant_id, livemode, customer_id, product_id, status, interval, interval_count, amount, currency, page_id,
                                    anchor_at, anchor_period_index, current_period_start, current_period_end, paid_periods, created_at, updated_at)
           select 'sub_bench_' || m.idx || '_' || c, m.id, false, 'cus_bench_' || m.idx || '_' || c, 'prod_bench', 'ACTIVE', 'DAY', 1, 1000, 'USD',
                  'page_bench_' || m.idx || '_' || c, timestamptz '2020-01-01', ${perCustomer - 1},
                  timestamptz '2020-01-01' + ${perCustomer - 1} * interval '1 day', timestamptz '2020-01-01' + ${perCustomer} * interval '1 day',
                  ${perCustomer}, now(), now()
           from bench_merchants m cross join generate_series(0, ${customersPerMerchant - 1}) c`,
      );
      // Bulk path: load without the entitlements indexes and constraints, then rebuild them exactly
      // as the migrations define them (a sorted index build is far faster than 1M index inserts).
      await client.query(`set local maintenance_work_mem = '512MB'`);
      await client.query('set local synchronous_commit = off');
      const constraints = (
        await client.query<{ name: string; definition: string; isForeignKey: boolean }>(
          `select conname as name, pg_get_constraintdef(oid) as definition, contype = 'f' as "isForeignKey" from pg_constraint where conrelid = 'entitlements'::regclass`,
        )
      ).rows;
      const indexes = (
        await client.query<{ name: string; definition: string }>(
          `select indexname as name, indexdef as definition from pg_indexes where tablename = 'entitlements' and indexname not in (select conname from pg_constraint where conrelid = 'entitlements'::regclass)`,
        )
      ).rows;
      for (const constraint of constraints) {
        await client.query(`alter table entitlements drop constraint "${constraint.name}"`);
      }
      for (const index of indexes) {
        await client.query(`drop index "${index.name}"`);
      }
      const step = (label: string, since: bigint) => console.log(`  ${label}: ${(elapsedMs(since) / 1000).toFixed(1)} s`);
      let stepStarted = process.hrtime.bigint();
      await client.query(
        `insert into entitlements (id, merchant_id, livemode, customer_id, subscription_id, product_id, invoice_id, start_period, end_period, idempotency_key, created_at, updated_at)
           select 'ent_bench_' || lpad(n::text, 7, '0'), m.id, false, 'cus_bench_' || m.idx || '_' || d.c, 'sub_bench_' || m.idx || '_' || d.c, 'prod_bench', null,
                  d.start_period, d.start_period + interval '1 day',
                  'sub_bench_' || m.idx || '_' || d.c || '-' || (extract(epoch from d.start_period) * 1000)::bigint || '-' || (extract(epoch from d.start_period + interval '1 day') * 1000)::bigint,
                  timestamptz '2020-01-01' + n * interval '157 milliseconds', null
           from generate_series(0, ${entitlementCount - 1}) n
           cross join lateral (select n % ${merchantCount} as midx, (n / ${merchantCount}) % ${customersPerMerchant} as c,
                                      timestamptz '2020-01-01' + (n / ${merchantCount * customersPerMerchant}) * interval '1 day' as start_period) d
           join bench_merchants m on m.idx = d.midx`,
      );
      step('insert', stepStarted);
      stepStarted = process.hrtime.bigint();
      for (const constraint of constraints.filter((candidate) => !candidate.isForeignKey)) {
        await client.query(`alter table entitlements add constraint "${constraint.name}" ${constraint.definition}`);
      }
      for (const index of indexes) {
        await client.query(index.definition);
      }
      step('indexes', stepStarted);
      stepStarted = process.hrtime.bigint();
      for (const constraint of constraints.filter((candidate) => candidate.isForeignKey)) {
        await client.query(`alter table entitlements add constraint "${constraint.name}" ${constraint.definition}`);
      }
      await client.query('commit');
      step('foreign keys + commit', stepStarted);
      stepStarted = process.hrtime.bigint();
      await client.query('analyze merchants, customers, subscriptions, entitlements');
      step('analyze', stepStarted);
    } finally {
      client.release();
    }
    const [{ count } = { count: 0 }] = (await database.pool.query<{ count: number }>('select count(*)::int as count from entitlements')).rows;
    console.log(`loaded ${count.toLocaleString('en-US')} entitlements for ${merchantCount} merchants in ${(elapsedMs(loadStarted) / 1000).toFixed(1)} s`);

    const app = await buildApp(platform);
    await app.listen({ port: 0, host: '127.0.0.1' });
    closeApp = async () => {
      await app.close();
      await platform.close();
    };
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const authorization = `Basic ${Buffer.from(`${created.apiKey}:`).toString('base64')}`;

    async function get(path: string): Promise<{ ms: number; body: { entitlements: unknown[]; hasMore: boolean; nextPageToken?: string } }> {
      const start = process.hrtime.bigint();
      const response = await fetch(`${origin}${path}`, { headers: { authorization } });
      const body = (await response.json()) as { entitlements: unknown[]; hasMore: boolean; nextPageToken?: string };
      const ms = elapsedMs(start);
      if (response.status !== 200) {
        throw new Error(`GET ${path} answered ${response.status}: ${JSON.stringify(body)}`);
      }
      return { ms, body };
    }

    const customers = Array.from({ length: customersPerMerchant }, (_, index) => `cus_bench_0_${index}`);
    const firstPage = await get(`/v1/entitlements?customerId=${customers[0]}&limit=100`);
    if (firstPage.body.entitlements.length !== 100 || !firstPage.body.hasMore || !firstPage.body.nextPageToken) {
      throw new Error('the first page of a customer should be full, with a nextPageToken');
    }
    const cursors = new Map<string, string>();
    for (const customer of customers) {
      const page = await get(`/v1/entitlements?customerId=${customer}&limit=100`);
      cursors.set(customer, page.body.nextPageToken ?? '');
    }

    const scenarios: Array<{ label: string; requests: number; path: (index: number) => string }> = [
      { label: 'first page of 100, one customer', requests, path: (index) => `/v1/entitlements?customerId=${customers[index % customers.length]}&limit=100` },
      {
        label: 'second page of 100 (cursor), one customer',
        requests: Math.ceil(requests / 4),
        path: (index) => {
          const customer = customers[index % customers.length] ?? '';
          return `/v1/entitlements?customerId=${customer}&limit=100&cursorToken=${encodeURIComponent(cursors.get(customer) ?? '')}`;
        },
      },
      { label: 'active entitlements of one customer', requests: Math.ceil(requests / 4), path: (index) => `/v1/entitlements?customerId=${customers[index % customers.length]}&isActive=true&limit=100` },
      { label: 'newest 100 of the merchant (desc)', requests: Math.ceil(requests / 4), path: () => '/v1/entitlements?sort=desc&limit=100' },
    ];

    const results: Array<{ label: string; requests: number; p50: number; p99: number; max: number; rps: number }> = [];
    for (const scenario of scenarios) {
      for (let index = 0; index < warmupRequests; index += 1) {
        await get(scenario.path(index));
      }
      const latencies: number[] = [];
      const scenarioStarted = process.hrtime.bigint();
      for (let index = 0; index < scenario.requests; index += 1) {
        latencies.push((await get(scenario.path(index))).ms);
      }
      const seconds = elapsedMs(scenarioStarted) / 1000;
      latencies.sort((left, right) => left - right);
      results.push({ label: scenario.label, requests: scenario.requests, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? Number.NaN, rps: scenario.requests / seconds });
    }

    const [load1] = os.loadavg();
    console.log(`\nGET /v1/entitlements through HTTP: sequential requests after ${warmupRequests} warm-up each; Node ${process.version}, ${os.cpus().length} cores, load average ${load1?.toFixed(1)}`);
    console.log(`${'scenario'.padEnd(44)} ${'requests'.padStart(8)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)} ${'req/s'.padStart(8)}`);
    for (const result of results) {
      console.log(`${result.label.padEnd(44)} ${String(result.requests).padStart(8)} ${`${result.p50.toFixed(2)} ms`.padStart(9)} ${`${result.p99.toFixed(2)} ms`.padStart(9)} ${`${result.max.toFixed(1)} ms`.padStart(9)} ${result.rps.toFixed(0).padStart(8)}`);
    }

    // The plans of the statements the endpoint runs (the same shape the service builds).
    const cursorPosition = await database.pool.query<{ created_at: Date; id: string }>(
      'select created_at, id from entitlements where merchant_id = $1 and customer_id = $2 order by created_at, id offset 99 limit 1',
      [merchantId, customers[0]],
    );
    const position = cursorPosition.rows[0];
    const plans: Array<{ label: string; text: string; params: unknown[] }> = [
      {
        label: 'first page, one customer',
        text: 'select * from entitlements where merchant_id = $1 and customer_id = $2 order by created_at asc, id asc limit 101',
        params: [merchantId, customers[0]],
      },
      {
        label: 'next page, one customer (keyset)',
        text: 'select * from entitlements where merchant_id = $1 and customer_id = $2 and (created_at, id) > ($3::timestamptz, $4::text) order by created_at asc, id asc limit 101',
        params: [merchantId, customers[0], position?.created_at.toISOString(), position?.id],
      },
    ];
    for (const plan of plans) {
      const explained = await database.pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${plan.text}`, plan.params);
      console.log(`\nEXPLAIN ANALYZE — ${plan.label}`);
      for (const row of explained.rows) {
        console.log(`  ${row['QUERY PLAN']}`);
      }
    }

    const headline = results[0];
    const met = headline !== undefined && headline.p99 <= targetP99Ms;
    console.log(`\ntarget: p99 ≤ ${targetP99Ms} ms for a page of 100 for one customer → ${headline?.p99.toFixed(2)} ms: ${met ? 'met' : 'NOT MET'}`);
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (!met) {
      process.exitCode = 1;
    }
  } finally {
    await closeApp?.().catch(() => undefined);
    await database.close().catch(() => undefined);
    await admin.query(`drop database if exists "${name}" with (force)`);
    await admin.end();
    console.log(`database ${name} dropped`);
  }
}

await main();
