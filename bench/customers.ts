// Issue 2, item 11: `POST /v1/customers` (full KYC data) and `GET /v1/customers/:id` of the real
// app, beside a bare Fastify + driver baseline doing the same INSERT and primary-key SELECT, on
// PGlite and on PostgreSQL. Targets: GET ≥ 50 % of its baseline and create ≥ 40 % on PGlite (issue
// 2); on PostgreSQL GET ≥ 60 % and create ≥ 50 % (issue 20).
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { pino } from 'pino';
import { sql } from 'drizzle-orm';
import type { PGlite } from '@electric-sql/pglite';
import { loadConfig, type Config } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { newId } from '../src/crypto/ids.ts';
import { createLogger } from '../src/logger.ts';
import { createPlatform, type Platform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { migrateDatabase, openPglite, openPostgres, queryRows, type Database } from '../src/db/client.ts';
import { compare, type BenchOptions, type BenchReport, type ComparisonRow } from './harness.ts';

/** Minimum ratios to the baseline, per backend label. */
const targetsOn = (label: string) => (label === 'PostgreSQL' ? { create: 0.5, get: 0.6 } : { create: 0.4, get: 0.5 });
const defaultDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';
/** How many existing customers the GET load cycles through. */
const readSetSize = 1000;

/** A complete KYC data set (US, so the state is required too): creation starts verification. */
function fullKycBody(): Record<string, unknown> {
  return {
    referenceId: 'replaced-per-request',
    signupAt: Date.now() - 60_000,
    email: 'jane.doe@example.com',
    supportedPaymentMethods: ['CARD', 'BANK_TRANSFER'],
    firstName: 'Jane',
    middleName: 'Quinn',
    lastName: 'Doe',
    dateOfBirth: '1990-04-12',
    phoneNumber: '+14155550123',
    address: { line1: '1 Market St', line2: 'Suite 100', city: 'San Francisco', state: 'CA', postalCode: '94105', country: 'US' },
  };
}

/** The plain table of the baseline: the columns of `customers`, its two indexes, no foreign key. */
const baselineDdl = [
  `create table if not exists bench_customers (
     id text primary key,
     merchant_id text not null,
     livemode boolean not null,
     reference_id text not null,
     signup_at timestamptz not null,
     pii jsonb not null,
     supported_payment_methods jsonb,
     supported_payout_methods jsonb,
     kyc_status text not null,
     created_at timestamptz not null,
     updated_at timestamptz not null)`,
  'create unique index if not exists bench_customers_reference_unique on bench_customers (merchant_id, livemode, reference_id)',
  'create index if not exists bench_customers_merchant_created on bench_customers (merchant_id, livemode, created_at, id)',
];

type Query = (text: string, params?: unknown[]) => Promise<Array<Record<string, unknown>>>;

interface Backend {
  label: string;
  database: Database;
  env: Record<string, string>;
  /** The baseline's own connection: a `pg` Pool, or the same PGlite instance (one session per process). */
  baselineQuery: Query;
  close(): Promise<void>;
}

/**
 * The baseline: Fastify with JSON parsing only (no auth, schema, encryption, idempotency, KYC or
 * logging), one INSERT … RETURNING per create and one primary-key SELECT per read.
 */
async function startBaseline(query: Query, merchantId: string): Promise<FastifyInstance> {
  const app = Fastify({ logger: false });
  app.post('/customers', async (request) => {
    const { referenceId, signupAt, supportedPaymentMethods, ...pii } = request.body as Record<string, unknown>;
    const now = new Date();
    const [row] = await query(
      `insert into bench_customers (id, merchant_id, livemode, reference_id, signup_at, pii, supported_payment_methods, kyc_status, created_at, updated_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *`,
      [newId('customer', now.getTime()), merchantId, false, referenceId, new Date(Number(signupAt)), JSON.stringify(pii), JSON.stringify(supportedPaymentMethods ?? null), 'NOT_STARTED', now, now],
    );
    return row;
  });
  app.get('/customers/:id', async (request, reply) => {
    const [row] = await query('select * from bench_customers where id = $1', [(request.params as { id: string }).id]);
    if (!row) {
      return reply.code(404).send({ error: 'not found' });
    }
    return row;
  });
  await app.listen({ host: '127.0.0.1', port: 0 });
  return app;
}

function originOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') {
    throw new Error('server has no TCP address');
  }
  return `http://127.0.0.1:${address.port}`;
}

async function openPgliteBackend(): Promise<Backend> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-bench-'));
  let database: (Database & { client: PGlite }) | undefined;
  try {
    database = await openPglite({ dataDir });
    await migrateDatabase(database);
    const client = database.client;
    const opened = database;
    return {
      label: 'PGlite',
      database,
      env: { DATA_DIR: dataDir },
      baselineQuery: async (text, params) => (await client.query<Record<string, unknown>>(text, params)).rows,
      async close() {
        await opened.close();
        fs.rmSync(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await database?.close().catch(() => undefined);
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}

function redact(url: string): string {
  const parsed = new URL(url);
  if (parsed.password) {
    parsed.password = '***';
  }
  return parsed.toString();
}

async function openPostgresBackend(baseUrl: string): Promise<Backend> {
  const name = `paysail_bench_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 3000 });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  await admin.end();
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  let database: Database | undefined;
  let pool: pg.Pool | undefined;
  const drop = async () => {
    const dropper = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 3000 });
    await dropper.connect();
    try {
      await dropper.query(`drop database if exists "${name}" with (force)`);
    } finally {
      await dropper.end();
    }
  };
  try {
    // The pool size the app uses by default (openDatabase → openPostgres max 10); the baseline gets the same.
    database = await openPostgres(url.toString());
    await migrateDatabase(database);
    const baselinePool = new pg.Pool({ connectionString: url.toString(), max: 10 });
    pool = baselinePool;
    baselinePool.on('error', () => undefined);
    const opened = database;
    return {
      label: 'PostgreSQL',
      database,
      env: { DATABASE_URL: url.toString() },
      baselineQuery: async (text, params) => (await baselinePool.query<Record<string, unknown>>(text, params)).rows,
      async close() {
        await baselinePool.end().catch(() => undefined);
        await opened.close().catch(() => undefined);
        await drop();
      },
    };
  } catch (error) {
    await pool?.end().catch(() => undefined);
    await database?.close().catch(() => undefined);
    await drop().catch(() => undefined);
    throw error;
  }
}

function progress(message: string): void {
  process.stderr.write(`  customers: ${message}\n`);
}

function benchConfig(backend: Backend, keySpec: string): Config {
  return loadConfig(
    {
      NODE_ENV: 'production',
      HOST: '127.0.0.1',
      PORT: '0',
      PUBLIC_URL: 'http://127.0.0.1',
      ROLE: 'api',
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'warn',
      ENCRYPTION_KEYS: keySpec,
      ADMIN_API_KEY: `adm_bench_${randomBytes(16).toString('hex')}`,
      // One merchant key is hammered: the limiter must never answer 429.
      RATE_LIMIT_PER_SECOND: '1000000',
      RATE_LIMIT_BURST: '1000000',
      // The worker is not started (ROLE api), so the KYC jobs queue up unprocessed; the delay only matters if it were.
      SANDBOX_KYC_DELAY_MS: '3600000',
      ...backend.env,
    },
    [],
  );
}

async function expectJson(response: Response, what: string): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (response.status !== 200) {
    throw new Error(`${what}: HTTP ${response.status}: ${text.slice(0, 300)}`);
  }
  return JSON.parse(text) as Record<string, unknown>;
}

/** One request of each kind before loading, so a broken setup fails loudly instead of timing 401s. */
async function sanityCheck(ours: string, baseline: string, authorization: string): Promise<void> {
  const body = JSON.stringify({ ...fullKycBody(), referenceId: `sanity-${randomBytes(4).toString('hex')}` });
  const created = await expectJson(await fetch(`${ours}/v1/customers?livemode=false`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body }), 'ours POST');
  const customer = created.data as Record<string, unknown> | undefined;
  if (created.status !== 'SUCCEEDED' || customer?.kycStatus !== 'PENDING' || String(customer.firstName).split('.').length !== 5) {
    throw new Error(`ours POST: unexpected answer ${JSON.stringify(created).slice(0, 300)}`);
  }
  const read = await expectJson(await fetch(`${ours}/v1/customers/${String(customer.id)}`, { headers: { authorization } }), 'ours GET');
  if ((read.data as Record<string, unknown> | undefined)?.id !== customer.id) {
    throw new Error('ours GET: another customer came back');
  }
  const row = await expectJson(await fetch(`${baseline}/customers`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }), 'baseline POST');
  await expectJson(await fetch(`${baseline}/customers/${String(row.id)}`), 'baseline GET');
}

async function benchBackend(backend: Backend, options: BenchOptions): Promise<ComparisonRow[]> {
  const keySpec = generateKeySpec('bench');
  const config = benchConfig(backend, keySpec);
  // Warnings and errors go to stderr; request logging (BENCH_LOG_LEVEL=info) is written, but to /dev/null.
  const quiet = ['warn', 'error', 'fatal', 'silent'].includes(config.logLevel);
  const destination = pino.destination({ dest: quiet ? 2 : '/dev/null', sync: false });
  const logger = createLogger({ level: config.logLevel, stream: destination });
  let platform: Platform | undefined;
  let app: FastifyInstance | undefined;
  let baseline: FastifyInstance | undefined;
  try {
    platform = await createPlatform({ config, database: backend.database, keyRing: createKeyRing(parseKeySpec(keySpec)), logger });
    app = (await buildApp(platform)) as unknown as FastifyInstance;
    await app.listen({ host: config.host, port: config.port });
    const merchant = await platform.services.merchants.createMerchant({ name: 'Bench Merchant', email: `bench-${randomBytes(4).toString('hex')}@example.com` });
    for (const statement of baselineDdl) {
      await backend.baselineQuery(statement);
    }
    baseline = await startBaseline(backend.baselineQuery, merchant.merchant.id);
    const ours = originOf(app);
    const base = originOf(baseline);
    const authorization = `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`;
    await sanityCheck(ours, base, authorization);
    progress(`${backend.label}: app on ${ours}, baseline on ${base}; measuring`);

    const run = randomBytes(4).toString('hex');
    const create = await compare(
      { origin: ours, method: 'POST', paths: ['/v1/customers?livemode=false'], headers: { authorization }, body: fullKycBody(), uniqueField: 'referenceId', uniquePrefix: `ours-${run}` },
      { origin: base, method: 'POST', paths: ['/customers'], headers: {}, body: fullKycBody(), uniqueField: 'referenceId', uniquePrefix: `base-${run}` },
      options,
    );
    const ourIds = await queryRows<{ id: string }>(backend.database.db, sql`select id from customers where merchant_id = ${merchant.merchant.id} limit ${readSetSize}`);
    const baseIds = (await backend.baselineQuery('select id from bench_customers limit $1', [readSetSize])) as Array<{ id: string }>;
    const read = await compare(
      { origin: ours, method: 'GET', paths: ourIds.map((row) => `/v1/customers/${row.id}`), headers: { authorization } },
      { origin: base, method: 'GET', paths: baseIds.map((row) => `/customers/${row.id}`), headers: {} },
      options,
    );

    return [
      { scenario: 'POST /v1/customers (full KYC)', backend: backend.label, ours: create.ours, baseline: create.baseline, target: targetsOn(backend.label).create },
      { scenario: 'GET /v1/customers/:id', backend: backend.label, ours: read.ours, baseline: read.baseline, target: targetsOn(backend.label).get },
    ];
  } finally {
    await baseline?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await platform?.close().catch(() => undefined);
    try {
      if (quiet) {
        destination.flushSync();
      } else {
        destination.end();
      }
    } catch {
      // nothing buffered, or the stream is not open yet: nothing to flush
    }
  }
}

function skippedRows(label: string, note: string, failed = false): ComparisonRow[] {
  return [
    { scenario: 'POST /v1/customers (full KYC)', backend: label, ours: null, baseline: null, target: targetsOn(label).create, note, failed },
    { scenario: 'GET /v1/customers/:id', backend: label, ours: null, baseline: null, target: targetsOn(label).get, note, failed },
  ];
}

async function runOn(label: string, open: () => Promise<Backend>, options: BenchOptions): Promise<ComparisonRow[]> {
  let backend: Backend;
  const started = Date.now();
  try {
    backend = await open();
    progress(`${label}: database ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  } catch (error) {
    return skippedRows(label, `skipped: ${(error as Error).message}`);
  }
  try {
    return await benchBackend(backend, options);
  } catch (error) {
    console.error(`bench/customers.ts on ${label} failed:`, error);
    return skippedRows(label, `FAILED: ${(error as Error).message}`, true);
  } finally {
    await backend.close();
  }
}

export async function run(options: BenchOptions): Promise<BenchReport> {
  const databaseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : defaultDatabaseUrl;
  // BENCH_BACKENDS=pglite or =postgres runs one of them; the other is listed as skipped.
  const selected = (process.env.BENCH_BACKENDS ?? 'pglite,postgres').toLowerCase().split(',').map((name) => name.trim());
  const notSelected = (label: string) => skippedRows(label, 'skipped: not selected by BENCH_BACKENDS');
  const rows = [
    ...(selected.includes('pglite') ? await runOn('PGlite', openPgliteBackend, options) : notSelected('PGlite')),
    ...(selected.includes('postgres') ? await runOn('PostgreSQL', () => openPostgresBackend(databaseUrl), options) : notSelected('PostgreSQL')),
  ];
  return {
    title: 'customers: the Paysail app vs bare Fastify + driver (same INSERT / primary-key SELECT)',
    rows,
    notes: [
      'ratio = ours req/s ÷ baseline req/s. p50/p99 are autocannon latencies. The load generator (a child process) and the servers share this machine\'s cores.',
      'ours: Basic auth (key lookup), rate limit, TypeBox validation, AES-GCM sealing at rest, one INSERT statement (customer + KYC verification + job) and a coalesced worker wake-up, JWE per PII field in the answer.',
      'baseline: no auth/validation/encryption; one INSERT … RETURNING or primary-key SELECT on a plain table with the same columns and indexes (no foreign key).',
      `PGlite: a fresh data dir; ours and the baseline share the one PGlite instance, loaded one after the other. PostgreSQL: a throw-away database paysail_bench_* on ${redact(databaseUrl)}, a pool of 10 each.`,
      'The app runs as ROLE=api (no job worker in-process): the KYC jobs it enqueues stay queued. LOG_LEVEL=warn (BENCH_LOG_LEVEL=info writes the two request log lines, to /dev/null).',
    ],
  };
}
