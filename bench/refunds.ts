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
// Two scenarios, each side by side with the baseline: one page (the worst case: every refund queues
// on its payment row and its merchant's accounts), and 100 pages of 20 merchants interleaved (the
// requests in flight refund different merchants' payments). Target: ours ≥ 25 % of the baseline's
// refunds per second, in each.
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
/** The spread scenario: this many merchants, each with this many paid pages. */
const spreadMerchants = 20;
const spreadPagesPerMerchant = 5;

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

    // PAID sandbox pages, paid through the API like any other (the payment credits the balance).
    const call = async (as: string, pathName: string, body: unknown): Promise<Record<string, unknown>> => {
      const response = await fetch(`${ours}${pathName}`, { method: 'POST', headers: { authorization: as, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      const answer = (await response.json()) as { data: Record<string, unknown> };
      if (response.status !== 200) {
        throw new Error(`${pathName} answered ${response.status}: ${JSON.stringify(answer)}`);
      }
      return answer.data;
    };
    const paidPage = async (as: string, reference: string): Promise<{ pageId: string; paymentId: string }> => {
      const page = await call(as, '/v1/payment_pages?livemode=false', { amount: pageAmount, currency: 'USD', clientReferenceId: reference, customer: { referenceId: `${reference}-customer`, email: 'bench@example.com' } });
      const pageId = String(page['id']);
      const paid = await call(as, `/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`, { cardNumber: '4242424242424242', expMonth: 12, expYear: new Date().getUTCFullYear() + 2, cvc: '123', cardholderName: 'Bench Buyer' });
      return { pageId, paymentId: String(paid['paymentId']) };
    };
    const { pageId, paymentId } = await paidPage(authorization, `bench-${name}`);
    // The spread scenario: pages of several merchants, interleaved so that the requests in flight
    // refund different merchants' payments (no two queue on one payment row or one merchant's accounts).
    const spread: Array<{ headers: Record<string, string>; body: Record<string, unknown> }> = [];
    const spreadAuthorizations: string[] = [];
    for (let m = 0; m < spreadMerchants; m += 1) {
      const other = await platform.services.merchants.createMerchant({ name: `Bench merchant ${m}`, email: `bench-${m}-${name}@example.com` });
      spreadAuthorizations.push(`Basic ${Buffer.from(`${other.apiKey}:`).toString('base64')}`);
    }
    for (let p = 0; p < spreadPagesPerMerchant; p += 1) {
      for (const [m, as] of spreadAuthorizations.entries()) {
        const paid = await paidPage(as, `bench-${name}-${m}-${p}`);
        spread.push({ headers: { authorization: as }, body: { paymentPageId: paid.pageId } });
      }
    }

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
    const firstSpread = spread[0];
    if (!firstSpread) {
      throw new Error('no spread pages');
    }
    for (const [origin, pathName, headers, sent] of [
      [ours, '/v1/refunds?livemode=false', { authorization }, body],
      [ours, '/v1/refunds?livemode=false', firstSpread.headers, { ...body, ...firstSpread.body }],
      [base, '/refunds', {}, body],
    ] as const) {
      const response = await fetch(`${origin}${pathName}`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify(sent) });
      if (response.status !== 200) {
        throw new Error(`sanity refund on ${origin} answered ${response.status}: ${await response.text()}`);
      }
    }

    const measured = await compare(
      { origin: ours, method: 'POST', paths: ['/v1/refunds?livemode=false'], headers: { authorization }, body },
      { origin: base, method: 'POST', paths: ['/refunds'], headers: {}, body },
      options,
    );
    const spreadMeasured = await compare(
      { origin: ours, method: 'POST', paths: ['/v1/refunds?livemode=false'], headers: {}, body, variants: spread },
      { origin: base, method: 'POST', paths: ['/refunds'], headers: {}, body, variants: spread },
      options,
    );
    return {
      title: 'refunds: create through HTTP (PostgreSQL)',
      rows: [
        { scenario: 'POST /v1/refunds (sandbox, 0.01 of one paid page)', backend: 'PostgreSQL', ours: measured.ours, baseline: measured.baseline, target },
        {
          scenario: `POST /v1/refunds (sandbox, 0.01 of ${spread.length} pages of ${spreadMerchants} merchants)`,
          backend: 'PostgreSQL',
          ours: spreadMeasured.ours,
          baseline: spreadMeasured.baseline,
          target,
        },
      ],
      notes: [
        "ours = the real app: auth, rate limit, validation, the page and payment read, the amount taken under the payment's row lock, the refund row, the ledger debit (merchant account locks, balance checks, transaction, two entries), the processing job, response schema. Every refund of one merchant queues on its ledger accounts.",
        'baseline = bare Fastify + pg: one INSERT of the same refund row into a same-shaped table (no foreign keys), values prepared in JavaScript, no locks.',
        `one paid page = the worst case: every refund queues on that payment row and its merchant's accounts until the one before it committed. ${spread.length} pages of ${spreadMerchants} merchants = requests in flight refund different merchants' payments, so none queue.`,
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
