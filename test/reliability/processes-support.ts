import assert from 'node:assert/strict';
import net from 'node:net';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import { sleep } from './processes.ts';

/**
 * What the process harnesses share: an HTTP client that behaves like a careful integration (retries
 * an unanswered request with the same Idempotency-Key), a real SMTP sink, Redis discovery, and the
 * end-of-run checks read straight from the database.
 */

export interface Answer {
  status: number;
  body: Record<string, unknown>;
  /** How many times the request was sent (1 = answered the first time). */
  attempts: number;
  upstream: string | undefined;
  /** The answer's `Retry-After` in seconds, when it had one ("try again shortly", not a final answer). */
  retryAfterSeconds?: number | undefined;
}

export function basicAuthorization(apiKey: string): string {
  return `Basic ${Buffer.from(`${apiKey}:`).toString('base64')}`;
}

/** Answers that mean "no answer from the application": the request may or may not have happened. */
function isUnanswered(status: number, body: Record<string, unknown>): boolean {
  return status === 502 || status === 503 || status === 504 || (status === 409 && body.errorCode === 'IDEMPOTENCY_KEY_IN_USE');
}

export interface CallOptions {
  body?: unknown;
  idempotencyKey?: string;
  /** Retry unanswered requests (network error, 502/503, key in use) until this many ms passed. */
  retryForMs?: number;
  /** One attempt's limit: a hang is a failure, not a wait. */
  attemptTimeoutMs?: number;
  /** Also wait and retry on 429 (flows that are not about rate limits). */
  retryRateLimited?: boolean;
  headers?: Record<string, string>;
}

export class ApiClient {
  /** Every unanswered attempt, by cause, for the report. */
  readonly unanswered = new Map<string, number>();

  constructor(
    readonly baseUrl: string,
    private readonly authorization: string,
  ) {}

  private count(cause: string): void {
    this.unanswered.set(cause, (this.unanswered.get(cause) ?? 0) + 1);
  }

  async call(method: string, path: string, options: CallOptions = {}): Promise<Answer> {
    const deadline = Date.now() + (options.retryForMs ?? 0);
    let attempts = 0;
    let delay = 50;
    for (;;) {
      attempts += 1;
      let status = 0;
      let body: Record<string, unknown> = {};
      let upstream: string | undefined;
      let retryAfterSeconds: number | undefined;
      try {
        const response = await fetch(`${this.baseUrl}${path}`, {
          method,
          headers: {
            authorization: this.authorization,
            ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
            ...(options.idempotencyKey ? { 'idempotency-key': options.idempotencyKey } : {}),
            ...options.headers,
          },
          ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
          signal: AbortSignal.timeout(options.attemptTimeoutMs ?? 20_000),
        });
        status = response.status;
        upstream = response.headers.get('x-upstream') ?? undefined;
        const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
        retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
        const text = await response.text();
        try {
          body = JSON.parse(text) as Record<string, unknown>;
        } catch {
          body = { raw: text.slice(0, 500) };
        }
      } catch (error) {
        this.count(`network:${(error as Error).name}`);
      }
      const retryable = status === 0 || isUnanswered(status, body) || (options.retryRateLimited === true && status === 429);
      if (status !== 0 && retryable) {
        this.count(`${status}${typeof body.errorCode === 'string' ? `:${body.errorCode}` : ''}`);
      }
      if (!retryable || Date.now() >= deadline) {
        return { status, body, attempts, upstream, retryAfterSeconds };
      }
      await sleep(delay + Math.floor(Math.random() * delay));
      delay = Math.min(delay * 2, 1_000);
    }
  }
}

export async function createMerchantThrough(baseUrl: string, adminKey: string, name: string): Promise<{ id: string; apiKey: string }> {
  for (let attempt = 0; ; attempt += 1) {
    try {
      const response = await fetch(`${baseUrl}/admin/v1/merchants`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name, email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '-')}-${Date.now()}@example.com` }),
        signal: AbortSignal.timeout(20_000),
      });
      const body = (await response.json()) as { data?: { merchant: { id: string }; apiKey: string } };
      assert.equal(response.status, 200, JSON.stringify(body));
      assert.ok(body.data);
      return { id: body.data.merchant.id, apiKey: body.data.apiKey };
    } catch (error) {
      if (attempt >= 20) {
        throw error;
      }
      await sleep(250);
    }
  }
}

/** REDIS_URL_FOR_TESTS when set; else the local default when something answers PING there. */
export async function findRedisUrl(): Promise<string | undefined> {
  const fromEnv = process.env.REDIS_URL_FOR_TESTS;
  if (fromEnv) {
    return fromEnv;
  }
  const answered = await new Promise<boolean>((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port: 6379 });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on('error', () => done(false));
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk: Buffer) => done(chunk.toString().startsWith('+PONG')));
  });
  return answered ? 'redis://127.0.0.1:6379' : undefined;
}

/** Polls `check` (real time) until it holds. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs: number, diagnose?: () => Promise<string>): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting until ${what}${diagnose ? `\n${await diagnose()}` : ''}`);
    }
    await sleep(100);
  }
}

/** Jobs due now that are not finished, and dead ones (a healthy, drained system has neither). */
export async function unfinishedJobs(database: Database): Promise<Array<{ queue: string; status: string; attempts: number; lastError: string | null }>> {
  return queryRows(
    database.db,
    sql`select queue, status, attempts, last_error as "lastError" from jobs
        where status = 'dead' or (status in ('pending', 'running') and run_at <= now())`,
  );
}

export async function jobStatistics(database: Database): Promise<Array<{ queue: string; status: string; jobs: number; maxAttempts: number; workers: number }>> {
  return queryRows(
    database.db,
    sql`select queue, status, count(*)::int as jobs, max(attempts)::int as "maxAttempts", count(distinct locked_by)::int as workers
        from jobs group by queue, status order by queue, status`,
  );
}

/**
 * Rows that would be duplicates of one business fact (each list must be empty): two postings with
 * one idempotency key cannot exist (unique index), so "duplicate postings" means two ledger
 * transactions for one payout page / payment and kind; two payments per page and kind; two
 * entitlements per subscription period; two deliveries per event and endpoint; two customers per
 * reference.
 */
export async function findDuplicates(database: Database): Promise<Record<string, unknown[]>> {
  return {
    ledgerPostingsPerReference: await queryRows(
      database.db,
      sql`select reference, kind, count(*)::int as copies from ledger_transactions where reference is not null group by reference, kind having count(*) > 1`,
    ),
    paymentsPerPage: await queryRows(
      database.db,
      sql`select page_id, kind, count(*)::int as copies from payments where kind <> 'RENEWAL' and status = 'SUCCEEDED' group by page_id, kind having count(*) > 1`,
    ),
    entitlementsPerPeriod: await queryRows(
      database.db,
      sql`select subscription_id, start_period, count(*)::int as copies from entitlements group by subscription_id, start_period having count(*) > 1`,
    ),
    deliveriesPerEvent: await queryRows(database.db, sql`select event_id, endpoint_id, count(*)::int as copies from webhook_deliveries group by event_id, endpoint_id having count(*) > 1`),
    customersPerReference: await queryRows(
      database.db,
      sql`select merchant_id, livemode, reference_id, count(*)::int as copies from customers group by merchant_id, livemode, reference_id having count(*) > 1`,
    ),
    payoutPagesPerClientReference: await queryRows(
      database.db,
      sql`select merchant_id, livemode, client_reference_id, count(*)::int as copies from payout_pages group by merchant_id, livemode, client_reference_id having count(*) > 1`,
    ),
  };
}

export function assertNoDuplicates(duplicates: Record<string, unknown[]>): void {
  for (const [what, rows] of Object.entries(duplicates)) {
    assert.deepEqual(rows, [], `no duplicate ${what}`);
  }
}

/* The end-of-run check of events, e-mails, renewals and fundings is acknowledged-effects.ts. */

/** The SMTP sink the process harnesses send to (shared with the other tests). */
export { startSmtpSink } from '../helpers/smtp.ts';
