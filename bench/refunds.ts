// Refund creation, `npm run bench -- refunds` (or standalone `npx tsx bench/refunds.ts`), on
// PostgreSQL at DATABASE_URL (default postgres://postgres@127.0.0.1:5432/test; a scratch database is
// created and dropped).
//
// Both sides are HTTP servers on 127.0.0.1 loaded by autocannon from the load-generator process, in
// alternating rounds with the elapsed time measured (`compare` in harness.ts):
// - ours: `POST /v1/refunds?livemode=false` of the real app on one PAID sandbox page of 1,000,000.00
//   (refunds of 0.01 each): auth, rate limit, validation, the page and its payment read, the amount
//   taken by a conditional UPDATE of the payment row, the refund row, the ledger debit (account locks,
//   balance checks, transaction and two entries), the processing job, response schema;
// - baseline: a bare Fastify + pg route that inserts the same refund row into a same-shaped table
//   (same columns, indexes and checks; no foreign keys), values prepared in JavaScript.
// Target: ours ≥ 25 % of the baseline's refunds per second.
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
const pageAmount = 100_000_000;

function originOf(app: FastifyInstance): string {
  const address = app.server.address();
  if (!address || typeof address === 'string') {
    throw new Error('server has no TCP address');
  }
  return `http://127.0.0.1:${address.port}`;
}

export async function run(options: BenchOptions): Promise<BenchReport> {
  const baseUrl = process.env.DATABASE_URL && process.env.DATABASE_URL !== '' ? process.env.DATABASE_URL : defaultDatabaseUrl;
  const name = `paysail_bench_refunds_${randomBytes(4).toString('hex')}`;
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
    const ours = originOf(app);

    // One PAID sandbox page, paid through the API like any other (the payment credits the balance).
    const call = async (pathName: string, body: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${ours}${pathName}`, { method: 'POST', headers: { authorization, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await response.json()) as { data: Record<string, unknown> };
      if (response.status !== 200) {
        throw new Error(`${pathName} answered ${response.status}: ${JSON.stringify(answer)}`);
      }
      return answer.data;
    };
    const page = await call('/v1/payment_pages?livemode=false', { amount: pageAmount, currency: 'USD', clientReferenceId: `bench-${name}`, customer: { referenceId: 'bench-customer', email: 'bench@example.com' } });
    const pageId = String(page['id']);
    const paid = await call(`/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`, { cardNumber: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123', cardholderName: 'Bench Buyer' });
    const paymentId = String(paid['paymentId']);

    await pool.query('create table bench_refunds (like refunds including all)');
    const insertBare = async (reason: string) => {
      const at = new Date();
      await pool.query(
        `insert into bench_refunds (id, merchant_id, livemode, payment_page_id, payment_id, amount, currency, reason, status, created_at, updated_at) values ($1, $2, false, $3, $4, 1, 'USD', $5, 'PENDING', $6, $6)`,
        [newId('refund', at.getTime()), merchant.merchant.id, pageId, paymentId, reason, at],
      );
    };
    baseline = Fastify({ logger: false });
    baseline.post('/refunds', async (request) => {
      const input = request.body as { paymentPageId: string; amount: number; reason: string };
      await insertBare(input.reason);
      return { data: { paymentPageId: input.paymentPageId, amount: input.amount, status: 'PENDING' } };
    });
    await baseline.listen({ host: '127.0.0.1', port: 0 });
    const base = originOf(baseline);

    const body = { paymentPageId: pageId, amount: 1, reason: 'REQUESTED_BY_CUSTOMER' };
    // Sanity check: one refund on each side answers 200 (a broken setup fails loudly, not as throughput).
    for (const [origin, pathName, headers] of [
      [ours, '/v1/refunds?livemode=false', { authorization }],
      [base, '/refunds', {}],
    ] as const) {
      const response = await fetch(`${origin}${pathName}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      if (response.status !== 200) {
        throw new Error(`sanity refund on ${origin} answered ${response.status}: ${await response.text()}`);
      }
    }

    const measured = await compare(
      { origin: ours, method: 'POST', paths: ['/v1/refunds?livemode=false'], headers: { authorization }, body },
      { origin: base, method: 'POST', paths: ['/refunds'], headers: {}, body },
      options,
    );
    return {
      title: 'refunds: create through HTTP (PostgreSQL)',
      rows: [{ scenario: 'POST /v1/refunds (sandbox, 0.01 of one paid page)', backend: 'PostgreSQL', ours: measured.ours, baseline: measured.baseline, target }],
      notes: [
        "ours = the real app: auth, rate limit, validation, the page and payment read, the amount taken under the payment's row lock, the refund row, the ledger debit (merchant account locks, balance checks, transaction, two entries), the processing job, response schema. Every refund of one merchant queues on its ledger accounts.",
        'baseline = bare Fastify + pg: one INSERT of the same refund row into a same-shaped table (no foreign keys), values prepared in JavaScript, no locks.',
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

// Standalone (`npx tsx bench/refunds.ts`); bench/run.ts imports `run`.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  const report = await run({ durationSeconds: Number(process.env.BENCH_DURATION ?? 6), warmupSeconds: Number(process.env.BENCH_WARMUP ?? 1), connections: Number(process.env.BENCH_CONNECTIONS ?? 10) });
  process.stdout.write(`${formatReport(report)}\n  (bench/refunds.ts took ${((Date.now() - started) / 1000).toFixed(1)} s)\n`);
  await stopLoadGenerator();
}
