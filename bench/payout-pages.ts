// Payout page creation, `npm run bench -- payout-pages` (or standalone `npx tsx bench/payout-pages.ts`),
// on PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database
// is created and dropped).
//
// Both sides are HTTP servers on 127.0.0.1 loaded by autocannon from the load-generator process, in
// alternating rounds with the elapsed time measured (`compare` in harness.ts):
// - ours: `POST /v1/payout_pages` of the real app (auth, rate limit, validation, a new customer each,
//   PII sealing, the reservation in the ledger with its balance checks and account locks, status
//   history, expiry job, e-mail, response schema);
// - baseline: a bare Fastify + pg route that writes the same rows into same-shaped tables (same
//   columns, indexes and checks; no foreign keys, no triggers) in one transaction: customer, payout
//   page, ledger transaction, two entries, two conditional balance updates, history row, two jobs
//   (+ NOTIFY), e-mail — with values prepared in JavaScript (a fixed sealed-looking string, no
//   encryption, no idempotency record, no answer schema).
// Target: ours ≥ 25 % of the baseline's creates per second.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import Fastify, { type FastifyInstance } from 'fastify';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { newId } from '../src/crypto/ids.ts';
import { createLogger } from '../src/logger.ts';
import { createPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { migrateDatabase, openPostgres } from '../src/db/client.ts';
import { compare, formatReport, stopLoadGenerator, type BenchOptions, type BenchReport } from './harness.ts';

const target = 0.25;
const defaultDatabaseUrl = 'postgres://postgres@127.0.0.1:5432/test';
const baselineTables = ['customers', 'payout_pages', 'ledger_accounts', 'ledger_transactions', 'ledger_entries', 'payout_page_status_history', 'jobs', 'emails'];

function originOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') {
    throw new Error('server has no TCP address');
  }
  return `http://127.0.0.1:${address.port}`;
}

function createBody(): Record<string, unknown> {
  return {
    amount: 1,
    fundingCurrency: 'USDC',
    clientReferenceId: 'replaced-per-request',
    releaseMethod: 'MANUAL',
    customer: { referenceId: 'replaced-per-request', email: 'bench@example.com' },
    metadata: { order: 'bench' },
  };
}

export async function run(options: BenchOptions): Promise<BenchReport> {
  const baseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : defaultDatabaseUrl;
  const name = `paysail_bench_payouts_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl, connectionTimeoutMillis: 3000 });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: options.connections + 2 });
  const pool = new pg.Pool({ connectionString: url.toString(), max: options.connections });
  pool.on('error', () => undefined);
  let app: FastifyInstance | undefined;
  let baseline: FastifyInstance | undefined;
  let closePlatform: (() => Promise<void>) | undefined;
  try {
    await migrateDatabase(database);
    const config = loadConfig(
      { NODE_ENV: 'test', DATABASE_URL: url.toString(), ADMIN_API_KEY: 'adm_bench_key_0123456789abcdefghij', LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'silent', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' },
      [],
    );
    const platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(generateKeySpec('bench'))), logger: createLogger({ level: 'silent' }) });
    closePlatform = () => platform.close();
    app = (await buildApp(platform)) as unknown as FastifyInstance;
    await app.listen({ host: '127.0.0.1', port: 0 });
    const merchant = await platform.services.merchants.createMerchant({ name: 'Bench merchant', email: `bench-${name}@example.com` });
    const authorization = `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`;

    for (const table of baselineTables) {
      await pool.query(`create table bench_${table} (like ${table} including all)`);
    }
    const now = new Date();
    for (const kind of ['available', 'reserved', 'in_flight', 'external']) {
      await pool.query('insert into bench_ledger_accounts (id, merchant_id, livemode, currency, kind, balance, created_at, updated_at) values ($1, $2, false, $3, $4, $5, $6, $6)', [
        newId('ledgerAccount'),
        merchant.merchant.id,
        'USDC',
        kind,
        kind === 'available' ? 100_000_000 : kind === 'external' ? -100_000_000 : 0,
        now,
      ]);
    }
    const sealedLike = 'v1.bench.' + randomBytes(48).toString('base64url');
    const insertBare = async (clientReferenceId: string, customerReferenceId: string, order: string) => {
      const client = await pool.connect();
      try {
        const at = new Date();
        const customerId = newId('customer');
        const pageId = newId('payoutPage');
        const transactionId = newId('ledgerTransaction');
        await client.query('begin');
        await client.query(
          `insert into bench_customers (id, merchant_id, livemode, reference_id, signup_at, pii, kyc_status, created_at, updated_at) values ($1, $2, false, $3, $4, $5, 'NOT_STARTED', $4, $4)`,
          [customerId, merchant.merchant.id, customerReferenceId, at, JSON.stringify({ email: sealedLike })],
        );
        await client.query(
          `insert into bench_payout_pages (id, merchant_id, livemode, customer_id, customer_reference_id, customer_email_ciphertext, client_reference_id, amount, funding_currency, release_method, status, sub_status, metadata, expires_at, created_at, updated_at)
           values ($1, $2, false, $3, $4, $5, $6, 1, 'USDC', 'MANUAL', 'CREATED', 'AWAITING_CUSTOMER', $7, $8, $9, $9)`,
          [pageId, merchant.merchant.id, customerId, customerReferenceId, sealedLike, clientReferenceId, JSON.stringify({ order }), new Date(at.getTime() + 7 * 86_400_000), at],
        );
        await client.query(`insert into bench_ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at) values ($1, $2, false, 'USDC', 'reserve', $3, $4, $5)`, [
          transactionId,
          merchant.merchant.id,
          pageId,
          `${pageId}:reserve`,
          at,
        ]);
        const available = await client.query(
          `update bench_ledger_accounts set balance = balance - 1, updated_at = $2 where merchant_id = $1 and livemode = false and currency = 'USDC' and kind = 'available' and balance - 1 >= 0 returning id`,
          [merchant.merchant.id, at],
        );
        const reserved = await client.query(`update bench_ledger_accounts set balance = balance + 1, updated_at = $2 where merchant_id = $1 and livemode = false and currency = 'USDC' and kind = 'reserved' returning id`, [
          merchant.merchant.id,
          at,
        ]);
        await client.query(`insert into bench_ledger_entries (id, transaction_id, account_id, currency, amount, created_at) values ($1, $2, $3, 'USDC', -1, $5), ($4, $2, $6, 'USDC', 1, $5)`, [
          newId('ledgerEntry'),
          transactionId,
          available.rows[0]?.id,
          newId('ledgerEntry'),
          at,
          reserved.rows[0]?.id,
        ]);
        await client.query(
          `insert into bench_payout_page_status_history (payout_page_id, merchant_id, livemode, to_status, to_sub_status, action, actor, created_at) values ($1, $2, false, 'CREATED', 'AWAITING_CUSTOMER', 'create', 'merchant', $3)`,
          [pageId, merchant.merchant.id, at],
        );
        const emailId = newId('email');
        await client.query(
          `insert into bench_jobs (id, queue, payload, status, run_at, max_attempts, dedupe_key, created_at, updated_at) values ($1, 'payout_pages.expire', $2, 'pending', $3, 10, $4, $5, $5), ($6, 'email.send', $7, 'pending', $5, 8, $8, $5, $5)`,
          [newId('job'), JSON.stringify({ payoutPageId: pageId }), new Date(at.getTime() + 7 * 86_400_000), `expire:${pageId}`, at, newId('job'), JSON.stringify({ emailId }), `email:${emailId}`],
        );
        await client.query(`select pg_notify('bench_jobs', 'x')`);
        await client.query(
          `insert into bench_emails (id, merchant_id, livemode, to_ciphertext, template, subject, text, html, related_id, status, created_at) values ($1, $2, false, $3, 'payout_page_created', 'Bench is sending you 0.01 USDC', $4, $5, $6, 'queued', $7)`,
          [emailId, merchant.merchant.id, sealedLike, 'Hi,\n\nBench has started a payout of 0.01 USDC to you.', '<p>Bench has started a payout of 0.01 USDC to you.</p>', pageId, at],
        );
        await client.query('commit');
      } catch (error) {
        await client.query('rollback');
        throw error;
      } finally {
        client.release();
      }
    };

    baseline = Fastify({ logger: false });
    baseline.post('/payout_pages', async (request) => {
      const input = request.body as { clientReferenceId: string; customer: { referenceId: string }; metadata: { order: string } };
      await insertBare(input.clientReferenceId, input.customer.referenceId, input.metadata.order);
      return { data: { clientReferenceId: input.clientReferenceId, status: 'CREATED' } };
    });
    await baseline.listen({ host: '127.0.0.1', port: 0 });
    const ours = originOf(app);
    const base = originOf(baseline);

    // Sanity check: one create on each side answers 200 (a broken setup fails loudly, not as throughput).
    for (const [origin, pathName, headers] of [
      [ours, '/v1/payout_pages?livemode=false', { authorization }],
      [base, '/payout_pages', {}],
    ] as const) {
      const body = { ...createBody(), clientReferenceId: 'bench-sanity', customer: { referenceId: 'bench-sanity', email: 'bench@example.com' } };
      const response = await fetch(`${origin}${pathName}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== 200) {
        throw new Error(`sanity create on ${origin} answered ${response.status}: ${await response.text()}`);
      }
    }

    const runId = randomBytes(4).toString('hex');
    const create = await compare(
      { origin: ours, method: 'POST', paths: ['/v1/payout_pages?livemode=false'], headers: { authorization }, body: createBody(), uniqueField: 'clientReferenceId', uniqueFields: ['customer.referenceId'], uniquePrefix: `ours-${runId}` },
      { origin: base, method: 'POST', paths: ['/payout_pages'], headers: {}, body: createBody(), uniqueField: 'clientReferenceId', uniqueFields: ['customer.referenceId'], uniquePrefix: `base-${runId}` },
      options,
    );
    return {
      title: 'payout pages: create through HTTP (PostgreSQL)',
      rows: [{ scenario: 'POST /v1/payout_pages (new customer each)', backend: 'PostgreSQL', ours: create.ours, baseline: create.baseline, target }],
      notes: [
        'ours = the real app: auth, rate limit, validation, customer creation, PII sealing (AES-GCM), the ledger reservation with its balance checks and account locks, status history, expiry job, e-mail, response schema.',
        'baseline = bare Fastify + pg: the same rows into same-shaped tables (no foreign keys, no triggers) in one transaction, values prepared in JavaScript (no encryption, no answer schema).',
      ],
    };
  } finally {
    await baseline?.close().catch(() => undefined);
    await app?.close().catch(() => undefined);
    await closePlatform?.().catch(() => undefined);
    await pool.end().catch(() => undefined);
    await database.close().catch(() => undefined);
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end().catch(() => undefined);
  }
}

// Standalone (`npx tsx bench/payout-pages.ts`); bench/run.ts imports `run`.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const report = await run({ durationSeconds: Number(process.env.BENCH_DURATION ?? 6), warmupSeconds: Number(process.env.BENCH_WARMUP ?? 1), connections: Number(process.env.BENCH_CONNECTIONS ?? 10) });
  process.stdout.write(`${formatReport(report)}\n  (bench/payout-pages.ts took ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  await stopLoadGenerator();
}
