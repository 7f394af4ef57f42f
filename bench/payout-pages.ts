// Standalone: `npx tsx bench/payout-pages.ts` (PostgreSQL at DATABASE_URL, default
// postgres://postgres@127.0.0.1:5432/test; a scratch database is created and dropped).
//
// Payout page creation through the real app (HTTP inject: auth, validation, customer creation,
// PII sealing, reservation in the ledger, status history, expiry job, e-mail) beside a bare `pg`
// baseline that writes the same rows into same-shaped tables (same columns, indexes and checks) in
// one transaction per page: customer, payout page, ledger transaction, two entries, two conditional
// balance updates, history row, two jobs (+ NOTIFY), e-mail. Target: ours ≥ 25 % of the baseline.
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import pg from 'pg';
import { loadConfig } from '../src/config/index.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../src/crypto/keyring.ts';
import { newId } from '../src/crypto/ids.ts';
import { createLogger } from '../src/logger.ts';
import { createPlatform } from '../src/platform.ts';
import { buildApp } from '../src/app.ts';
import { migrateDatabase, openPostgres } from '../src/db/client.ts';

const target = 0.25;
const connections = 8;
const warmupMs = 1_500;
/** Measured time per side, in alternating rounds. */
const rounds = 4;
const roundMs = 2_500;
const baseUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

interface Result {
  label: string;
  perSecond: number;
  p50: number;
  p99: number;
  count: number;
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * fraction))] ?? 0;
}

/**
 * Runs `work` from `connections` concurrent loops for `ms`; returns the latencies. The machine is
 * shared, so the two sides are measured in alternating rounds (see main) to see the same load.
 */
async function load(work: (sequence: number) => Promise<void>, ms: number, counter: { next: number }): Promise<number[]> {
  const latencies: number[] = [];
  const until = Date.now() + ms;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (Date.now() < until) {
        counter.next += 1;
        const started = performance.now();
        await work(counter.next);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

function summarize(label: string, latencies: number[], seconds: number): Result {
  const sorted = [...latencies].sort((a, b) => a - b);
  return { label, perSecond: sorted.length / seconds, p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), count: sorted.length };
}

const baselineTables = ['customers', 'payout_pages', 'ledger_accounts', 'ledger_transactions', 'ledger_entries', 'payout_page_status_history', 'jobs', 'emails'];

async function main(): Promise<void> {
  const name = `paysail_bench_payouts_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const url = new URL(baseUrl);
  url.pathname = `/${name}`;
  const database = await openPostgres(url.toString(), { max: connections + 2 });
  try {
    await migrateDatabase(database);
    const config = loadConfig({ NODE_ENV: 'test', DATABASE_URL: url.toString(), ADMIN_API_KEY: 'adm_bench_key_0123456789abcdefghij', LOG_LEVEL: 'silent', RATE_LIMIT_PER_SECOND: '1000000', RATE_LIMIT_BURST: '1000000' }, []);
    const platform = await createPlatform({ config, database, keyRing: createKeyRing(parseKeySpec(generateKeySpec('bench'))), logger: createLogger({ level: 'silent' }) });
    const app = await buildApp(platform);
    await app.ready();
    const merchant = await platform.services.merchants.createMerchant({ name: 'Bench merchant', email: `bench-${name}@example.com` });
    const authorization = `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`;

    const createThroughApp = async (sequence: number) => {
      const response = await app.inject({
        method: 'POST',
        url: '/v1/payout_pages?livemode=false',
        headers: { authorization, 'content-type': 'application/json' },
        payload: JSON.stringify({
          amount: 1,
          fundingCurrency: 'USDC',
          clientReferenceId: `bench-${sequence}`,
          releaseMethod: 'MANUAL',
          customer: { referenceId: `bench-customer-${sequence}`, email: 'bench@example.com' },
          metadata: { order: String(sequence) },
        }),
      });
      if (response.statusCode !== 200) {
        throw new Error(`create answered ${response.statusCode}: ${response.body}`);
      }
    };

    // The baseline: same-shaped tables (LIKE … INCLUDING ALL: columns, defaults, indexes, checks;
    // no foreign keys, no triggers), rows prepared in JavaScript, one transaction per page.
    const pool = new pg.Pool({ connectionString: url.toString(), max: connections });
    pool.on('error', () => undefined);
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
    const insertBare = async (sequence: number) => {
      const client = await pool.connect();
      try {
        const at = new Date();
        const customerId = newId('customer');
        const pageId = newId('payoutPage');
        const transactionId = newId('ledgerTransaction');
        await client.query('begin');
        await client.query(
          `insert into bench_customers (id, merchant_id, livemode, reference_id, signup_at, pii, kyc_status, created_at, updated_at) values ($1, $2, false, $3, $4, $5, 'NOT_STARTED', $4, $4)`,
          [customerId, merchant.merchant.id, `bench-customer-${sequence}`, at, JSON.stringify({ email: sealedLike })],
        );
        await client.query(
          `insert into bench_payout_pages (id, merchant_id, livemode, customer_id, customer_reference_id, customer_email_ciphertext, client_reference_id, amount, funding_currency, release_method, status, sub_status, metadata, expires_at, created_at, updated_at)
           values ($1, $2, false, $3, $4, $5, $6, 1, 'USDC', 'MANUAL', 'CREATED', 'AWAITING_CUSTOMER', $7, $8, $9, $9)`,
          [pageId, merchant.merchant.id, customerId, `bench-customer-${sequence}`, sealedLike, `bench-${sequence}`, JSON.stringify({ order: String(sequence) }), new Date(at.getTime() + 7 * 86_400_000), at],
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

    const oursCounter = { next: 0 };
    const bareCounter = { next: 0 };
    await load(createThroughApp, warmupMs, oursCounter);
    await load(insertBare, warmupMs, bareCounter);
    const oursLatencies: number[] = [];
    const bareLatencies: number[] = [];
    for (let round = 0; round < rounds; round += 1) {
      oursLatencies.push(...(await load(createThroughApp, roundMs, oursCounter)));
      bareLatencies.push(...(await load(insertBare, roundMs, bareCounter)));
    }
    const seconds = (rounds * roundMs) / 1000;
    const ours = summarize('ours: POST /v1/payout_pages (app, new customer each)', oursLatencies, seconds);
    const baseline = summarize('baseline: bare pg inserts of the same rows', bareLatencies, seconds);
    await pool.end();
    await app.close();
    await platform.close();

    const ratio = ours.perSecond / baseline.perSecond;
    const rows = [ours, baseline].map((result) => `| ${result.label} | ${result.perSecond.toFixed(0)} | ${result.p50.toFixed(1)} | ${result.p99.toFixed(1)} | ${result.count} |`);
    console.log(
      [
        `Payout page create on PostgreSQL, ${connections} concurrent, ${rounds} alternating rounds of ${roundMs / 1000} s per side after ${warmupMs / 1000} s warm-up each (node ${process.version}, load average ${os.loadavg()[0]?.toFixed(1)} on ${os.cpus().length} CPUs)`,
        '',
        '| side | creates/s | p50 ms | p99 ms | creates |',
        '|---|---|---|---|---|',
        ...rows,
        '',
        `ours / baseline = ${(ratio * 100).toFixed(1)} % (target ≥ ${target * 100} %): ${ratio >= target ? 'MET' : 'NOT MET'}`,
      ].join('\n'),
    );
    process.exitCode = ratio >= target ? 0 : 1;
  } finally {
    await database.close();
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
    await admin.end();
  }
}

await main();
