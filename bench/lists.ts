// Issue 17: the list endpoints (`GET /v1/customers`, `/v1/payout_pages`, `/v1/payment_pages`,
// `/v1/subscriptions`) with 1,000,000 rows each for ONE merchant on PostgreSQL. Target: a filtered
// first page and a deep cursor page answer with p99 ≤ 20 ms through the HTTP API.
//
//   npx tsx bench/lists.ts                         (DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test)
//   BENCH_LIST_ROWS=200000 BENCH_REQUESTS=300 npx tsx bench/lists.ts
//
// Standalone: it creates a fresh database `paysail_bench_lists_<random>`, migrates it, loads the rows
// (ids, sealed PII and e-mail lookup hashes made in this process with the app's own key ring and
// sealing functions, so every listed row decrypts exactly as a real one; the other columns by SQL),
// measures sequential requests against the real app on 127.0.0.1 (one client: service time, not
// queueing), prints the EXPLAIN ANALYZE plans of the statements the lists run, and drops the database.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { newId } from '../src/crypto/ids.ts';
import { createKeyRing, generateKeySpec, parseKeySpec, type KeyRing } from '../src/crypto/keyring.ts';
import { sealFields, sealRecord } from '../src/crypto/pii.ts';
import { createLogger } from '../src/logger.ts';
import { createPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { migrateDatabase, openPostgres } from '../src/db/client.ts';
import { emailLookupOf } from '../src/modules/customers/sealing.ts';
import { elapsedMs, percentile } from './stats.ts';

const rows = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000);
const requests = Number(process.env.BENCH_REQUESTS ?? 1000);
const warmupRequests = 100;
const targetP99Ms = 20;
const batch = 20_000;
const start = Date.parse('2024-01-01T00:00:00Z');
/** Row n is created at start + n × 31 ms: the newest rows have the highest n. */
const createdAt = (n: number) => start + n * 31;

/** Drops a table's secondary indexes and foreign keys, runs `load`, then rebuilds them as the migrations define them. */
async function bulkLoad(client: pg.PoolClient, table: string, load: () => Promise<void>): Promise<void> {
  const foreignKeys = (await client.query<{ name: string; definition: string }>(`select conname as name, pg_get_constraintdef(oid) as definition from pg_constraint where conrelid = $1::regclass and contype = 'f'`, [table])).rows;
  const indexes = (
    await client.query<{ name: string; definition: string }>(
      `select indexname as name, indexdef as definition from pg_indexes where tablename = $1 and indexname not in (select conname from pg_constraint where conrelid = $1::regclass)`,
      [table],
    )
  ).rows;
  for (const key of foreignKeys) {
    await client.query(`alter table ${table} drop constraint "${key.name}"`);
  }
  for (const index of indexes) {
    await client.query(`drop index "${index.name}"`);
  }
  await load();
  for (const index of indexes) {
    await client.query(index.definition);
  }
  for (const key of foreignKeys) {
    await client.query(`alter table ${table} add constraint "${key.name}" ${key.definition}`);
  }
}

/** Inserts `rows` rows in batches: `values(from, to)` makes the JavaScript-side arrays, `statement` uses them as $1…. */
async function insertInBatches(client: pg.PoolClient, statement: string, values: (from: number, to: number) => unknown[]): Promise<void> {
  for (let from = 0; from < rows; from += batch) {
    await client.query(statement, [from, ...values(from, Math.min(rows, from + batch))]);
  }
}

function range<T>(from: number, to: number, make: (n: number) => T): T[] {
  return Array.from({ length: to - from }, (_, index) => make(from + index));
}

async function load(client: pg.PoolClient, keyRing: KeyRing, merchantId: string): Promise<{ customerIds: string[] }> {
  const customerIds = range(0, rows, (n) => newId('customer', createdAt(n)));
  const pageIds = range(0, rows, (n) => newId('paymentPage', createdAt(n)));
  const at = (column: string) => `timestamptz '2024-01-01 00:00:00+00' + (($1::int + u.o - 1) * 31) * interval '1 millisecond' as ${column}`;
  await client.query(`set synchronous_commit = off`);
  await client.query(`set maintenance_work_mem = '512MB'`);
  await bulkLoad(client, 'customers', () =>
    insertInBatches(
      client,
      `insert into customers (id, merchant_id, livemode, reference_id, signup_at, pii, email_lookup, kyc_status, created_at, updated_at)
       select u.id, '${merchantId}', ($1::int + u.o) % 10 = 0, 'ref-' || ($1::int + u.o - 1), ts, u.pii::jsonb, u.lookup,
              (array['NOT_STARTED','PENDING','APPROVED','REJECTED'])[1 + ($1::int + u.o) % 4], ts, ts
       from (select u.*, ${at('ts')} from unnest($2::text[], $3::text[], $4::text[]) with ordinality u(id, pii, lookup, o)) u`,
      (from, to) => {
        const ids = customerIds.slice(from, to);
        const fields = (n: number) => ({ email: `customer-${n}@example.com`, firstName: `Ada${n}`, lastName: 'Lovelace', 'address.city': 'London', 'address.country': 'GB' });
        return [
          ids,
          ids.map((id, index) => JSON.stringify(sealRecord(keyRing, { merchantId, table: 'customers', rowId: id }, fields(from + index)))),
          ids.map((_, index) => emailLookupOf(keyRing, merchantId, fields(from + index).email)),
        ];
      },
    ),
  );
  console.log('  customers loaded');
  // Payout pages, payment pages and subscriptions of customer n belong to row n (one each): a
  // customer filter finds one row, as most customers of a large merchant have few.
  await bulkLoad(client, 'payout_pages', () =>
    insertInBatches(
      client,
      `insert into payout_pages (id, merchant_id, livemode, customer_id, customer_reference_id, customer_email_ciphertext, client_reference_id, amount, funding_currency,
                                 release_method, status, sub_status, metadata, expires_at, created_at, updated_at)
       select u.id, '${merchantId}', ($1::int + u.o) % 10 = 0, u.customer, 'ref-' || ($1::int + u.o - 1), u.email, 'payout-' || ($1::int + u.o - 1), 1000 + ($1::int + u.o) % 5000, 'USD',
              'MANUAL', s.status, s.sub_status, '{}'::jsonb, ts + interval '7 days', ts, ts
       from (select u.*, ${at('ts')} from unnest($2::text[], $3::text[], $4::text[]) with ordinality u(id, customer, email, o)) u
       cross join lateral (select (array['CREATED','PENDING','PROCESSED','CANCELED'])[1 + ($1::int + u.o) % 4] as status,
                                  (array['AWAITING_CUSTOMER','AWAITING_RELEASE','PAID','MERCHANT_CANCELED'])[1 + ($1::int + u.o) % 4] as sub_status) s`,
      (from, to) => {
        const ids = range(from, to, (n) => newId('payoutPage', createdAt(n)));
        return [ids, customerIds.slice(from, to), ids.map((id, index) => sealFields(keyRing, { merchantId, table: 'payout_pages', rowId: id }, { 'customer.email': `customer-${from + index}@example.com` })['customer.email'])];
      },
    ),
  );
  console.log('  payout pages loaded');
  await bulkLoad(client, 'payment_pages', () =>
    insertInBatches(
      client,
      `insert into payment_pages (id, merchant_id, livemode, status, client_reference_id, customer_id, customer_email_ciphertext, amount, currency, metadata, expires_at, created_at, updated_at)
       select u.id, '${merchantId}', ($1::int + u.o) % 10 = 0, (array['CREATED','PAID','EXPIRED'])[1 + ($1::int + u.o) % 3], 'order-' || ($1::int + u.o - 1), u.customer, u.email,
              1000 + ($1::int + u.o) % 5000, 'USD', '{}'::jsonb, ts + interval '1 day', ts, ts
       from (select u.*, ${at('ts')} from unnest($2::text[], $3::text[], $4::text[]) with ordinality u(id, customer, email, o)) u`,
      (from, to) => {
        const ids = pageIds.slice(from, to);
        return [ids, customerIds.slice(from, to), ids.map((id, index) => sealFields(keyRing, { merchantId, table: 'payment_pages', rowId: id }, { customerEmail: `customer-${from + index}@example.com` }).customerEmail)];
      },
    ),
  );
  console.log('  payment pages loaded');
  await bulkLoad(client, 'subscriptions', () =>
    insertInBatches(
      client,
      `insert into subscriptions (id, merchant_id, livemode, customer_id, product_id, status, interval, interval_count, amount, currency, page_id,
                                  anchor_at, anchor_period_index, current_period_start, current_period_end, paid_periods, created_at, updated_at)
       select u.id, '${merchantId}', ($1::int + u.o) % 10 = 0, u.customer, 'prod_bench', (array['ACTIVE','PAST_DUE','CANCELED'])[1 + ($1::int + u.o) % 3], 'MONTH', 1, 1000, 'USD', u.page,
              ts, 0, ts, ts + interval '1 month', 1, ts, ts
       from (select u.*, ${at('ts')} from unnest($2::text[], $3::text[], $4::text[]) with ordinality u(id, customer, page, o)) u`,
      (from, to) => [range(from, to, (n) => newId('subscription', createdAt(n))), customerIds.slice(from, to), pageIds.slice(from, to)],
    ),
  );
  console.log('  subscriptions loaded');
  await client.query('analyze customers, payout_pages, payment_pages, subscriptions');
  return { customerIds };
}

async function main(): Promise<void> {
  const started = Date.now();
  const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
  const name = `paysail_bench_lists_${randomBytes(4).toString('hex')}`;
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
    const keyRing = createKeyRing(parseKeySpec(keySpec));
    const config = loadConfig(
      { NODE_ENV: 'production', ENCRYPTION_KEYS: keySpec, DATABASE_URL: url.toString(), ADMIN_API_KEY: `adm_${randomBytes(24).toString('hex')}`, LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000', PUBLIC_URL: 'http://127.0.0.1' },
      [],
    );
    const platform = await createPlatform({ config, database, keyRing, logger: createLogger({ level: 'silent' }) });
    const created = await platform.services.merchants.createMerchant({ name: 'Bench merchant', email: `bench-${randomBytes(4).toString('hex')}@example.com` });
    const merchantId = created.merchant.id;

    const loadStarted = process.hrtime.bigint();
    const client = await database.pool.connect();
    let customerIds: string[];
    try {
      ({ customerIds } = await load(client, keyRing, merchantId));
    } finally {
      client.release();
    }
    console.log(`loaded ${rows.toLocaleString('en-US')} rows into each of 4 tables for one merchant in ${(elapsedMs(loadStarted) / 1000).toFixed(1)} s`);

    const app = await buildApp(platform);
    await app.listen({ port: 0, host: '127.0.0.1' });
    closeApp = async () => {
      await app.close();
      await platform.close();
    };
    const origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const authorization = `Basic ${Buffer.from(`${created.apiKey}:`).toString('base64')}`;
    async function get(path: string): Promise<{ ms: number; body: { data: Record<string, unknown> & { hasMore: boolean } } }> {
      const begun = process.hrtime.bigint();
      const response = await fetch(`${origin}${path}`, { headers: { authorization } });
      const body = (await response.json()) as { data: Record<string, unknown> & { hasMore: boolean } };
      const ms = elapsedMs(begun);
      if (response.status !== 200) {
        throw new Error(`GET ${path} answered ${response.status}: ${JSON.stringify(body)}`);
      }
      return { ms, body };
    }

    // A deep position: the id of the row halfway down (startingAfter accepts the last id seen).
    const middle = Math.floor(rows / 2);
    const deep = async (table: string) => (await database.pool.query<{ id: string }>(`select id from ${table} where merchant_id = $1 order by created_at desc, id desc offset ${middle} limit 1`, [merchantId])).rows[0]?.id ?? '';
    const someCustomer = (index: number) => customerIds[(index * 7919) % rows] ?? '';
    const scenarios: Array<{ label: string; path: (index: number) => string; items: string }> = [
      { label: 'customers: first page, sandbox', items: 'customers', path: () => '/v1/customers?livemode=false' },
      { label: 'customers: kycStatus=APPROVED', items: 'customers', path: () => '/v1/customers?kycStatus=APPROVED' },
      { label: 'customers: email= (keyed hash)', items: 'customers', path: (index) => `/v1/customers?email=customer-${(index * 7919) % rows}%40example.com` },
      { label: 'customers: deep page (startingAfter)', items: 'customers', path: () => `/v1/customers?startingAfter=${deepIds.customers}` },
      { label: 'payout pages: status=PROCESSED', items: 'payoutPages', path: () => '/v1/payout_pages?status=PROCESSED' },
      { label: 'payout pages: customerId=', items: 'payoutPages', path: (index) => `/v1/payout_pages?customerId=${someCustomer(index)}` },
      { label: 'payout pages: deep page (startingAfter)', items: 'payoutPages', path: () => `/v1/payout_pages?startingAfter=${deepIds.payout_pages}` },
      { label: 'payment pages: status=PAID', items: 'paymentPages', path: () => '/v1/payment_pages?status=PAID' },
      { label: 'payment pages: clientReferenceId=', items: 'paymentPages', path: (index) => `/v1/payment_pages?livemode=false&clientReferenceId=order-${((index * 7919) % rows) - (((index * 7919) % rows) % 10) + 1}` },
      { label: 'payment pages: deep page (startingAfter)', items: 'paymentPages', path: () => `/v1/payment_pages?startingAfter=${deepIds.payment_pages}` },
      { label: 'subscriptions: status=PAST_DUE', items: 'subscriptions', path: () => '/v1/subscriptions?status=PAST_DUE' },
      { label: 'subscriptions: customerId=', items: 'subscriptions', path: (index) => `/v1/subscriptions?customerId=${someCustomer(index)}` },
      { label: 'subscriptions: deep page (startingAfter)', items: 'subscriptions', path: () => `/v1/subscriptions?startingAfter=${deepIds.subscriptions}` },
    ];
    const deepIds = { customers: await deep('customers'), payout_pages: await deep('payout_pages'), payment_pages: await deep('payment_pages'), subscriptions: await deep('subscriptions') };

    const results: Array<{ label: string; items: number; p50: number; p99: number; max: number }> = [];
    for (const scenario of scenarios) {
      const first = await get(scenario.path(1));
      const items = (first.body.data[scenario.items] as unknown[] | undefined)?.length ?? 0;
      if (items === 0) {
        throw new Error(`${scenario.label}: the page is empty (${scenario.path(1)})`);
      }
      for (let index = 0; index < warmupRequests; index += 1) {
        await get(scenario.path(index));
      }
      const latencies: number[] = [];
      for (let index = 0; index < requests; index += 1) {
        latencies.push((await get(scenario.path(index))).ms);
      }
      latencies.sort((left, right) => left - right);
      results.push({ label: scenario.label, items, p50: percentile(latencies, 0.5), p99: percentile(latencies, 0.99), max: latencies.at(-1) ?? Number.NaN });
    }

    const [load1] = os.loadavg();
    console.log(`\nlists through HTTP, ${rows.toLocaleString('en-US')} rows per list for one merchant: ${requests} sequential requests per scenario after ${warmupRequests} warm-up; Node ${process.version}, ${os.cpus().length} cores, load average ${load1?.toFixed(1)}`);
    console.log(`${'scenario'.padEnd(42)} ${'items'.padStart(5)} ${'p50'.padStart(9)} ${'p99'.padStart(9)} ${'max'.padStart(9)}  target p99 ≤ ${targetP99Ms} ms`);
    for (const result of results) {
      console.log(`${result.label.padEnd(42)} ${String(result.items).padStart(5)} ${`${result.p50.toFixed(2)} ms`.padStart(9)} ${`${result.p99.toFixed(2)} ms`.padStart(9)} ${`${result.max.toFixed(1)} ms`.padStart(9)}  ${result.p99 <= targetP99Ms ? 'met' : 'MISSED'}`);
    }

    // The plans of the statements the lists run (the shape the services build: scope, filter, keyset, newest first, limit + 1).
    const position = async (table: string, id: string) => (await database.pool.query<{ created_at: Date }>(`select created_at from ${table} where id = $1`, [id])).rows[0]?.created_at.toISOString();
    const plans: Array<{ label: string; text: string; params: unknown[] }> = [
      { label: 'customers, kycStatus filter, first page', text: 'select * from customers where merchant_id = $1 and kyc_status = $2 order by created_at desc, id desc limit 21', params: [merchantId, 'APPROVED'] },
      { label: 'customers, e-mail lookup', text: 'select * from customers where merchant_id = $1 and email_lookup in ($2) order by created_at desc, id desc limit 21', params: [merchantId, emailLookupOf(keyRing, merchantId, 'customer-7919@example.com')] },
      {
        label: 'customers, deep page (keyset)',
        text: 'select * from customers where merchant_id = $1 and (created_at, id) < ($2::timestamptz, $3::text) order by created_at desc, id desc limit 21',
        params: [merchantId, await position('customers', deepIds.customers), deepIds.customers],
      },
      { label: 'payout pages, status filter, first page', text: 'select * from payout_pages where merchant_id = $1 and status = $2 order by created_at desc, id desc limit 21', params: [merchantId, 'PROCESSED'] },
      { label: 'payment pages, clientReferenceId', text: 'select * from payment_pages where merchant_id = $1 and livemode = false and client_reference_id = $2 order by created_at desc, id desc limit 21', params: [merchantId, 'order-7911'] },
      { label: 'subscriptions, customerId', text: 'select * from subscriptions where merchant_id = $1 and customer_id = $2 order by created_at desc, id desc limit 21', params: [merchantId, someCustomer(1)] },
    ];
    for (const plan of plans) {
      const explained = await database.pool.query<{ 'QUERY PLAN': string }>(`explain (analyze, buffers) ${plan.text}`, plan.params);
      console.log(`\nEXPLAIN ANALYZE — ${plan.label}`);
      for (const row of explained.rows) {
        console.log(`  ${row['QUERY PLAN']}`);
      }
    }
    const missed = results.filter((result) => result.p99 > targetP99Ms);
    console.log(`\ntarget: p99 ≤ ${targetP99Ms} ms for every scenario → ${missed.length === 0 ? 'met' : `MISSED by ${missed.map((result) => result.label).join(', ')}`}`);
    console.log(`total ${((Date.now() - started) / 1000).toFixed(1)} s`);
    if (missed.length > 0) {
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
