import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { generateKeySpec } from '../../src/crypto/keyring.ts';
import { adminApiKey } from '../helpers/context.ts';
import { fullKyc } from '../helpers/payout-pages.ts';
import { ProcessGroup, freePort, sleep } from './processes.ts';
import { basicAuthorization, createMerchantThrough, eventually } from './processes-support.ts';

const run = promisify(execFile);

/**
 * PostgreSQL stopped abruptly under load (`pg_ctl stop -m immediate`, i.e. a crash of the database
 * server) `stops` times, with a Paysail process (API + worker) running against it. During each
 * outage every answer must be a 503 SERVICE_UNAVAILABLE envelope within `hangMs` (no hang, no 500);
 * after the restart the process recovers by itself (pool reconnection, worker polling); at the end
 * every acknowledged write is in the database and the work they queued (KYC) ran.
 *
 * It never touches the machine's shared cluster: it creates a private one in a temporary directory
 * (initdb + pg_ctl on a free port, socket in that directory) and removes it afterwards. PostgreSQL
 * refuses to run as root, so as root the commands run as the `postgres` user (runuser).
 */

export interface PgStopHarnessOptions {
  stops: number;
  /** How long each outage lasts while the load continues (default 1,500 ms). */
  outageMs?: number;
  /** Load between outages (default 1,500 ms). */
  upMs?: number;
  /** Requests in flight (default 4). */
  concurrency?: number;
  /** An answer slower than this is a hang (default 15 s). */
  hangMs?: number;
  log?: (line: string) => void;
}

export interface PgStopHarnessResult {
  stops: number;
  acknowledged: number;
  /**
   * Writes that committed while their answer was lost (the database died between the commit and
   * the completion of the Idempotency-Key record): the retry found the customer (409
   * DUPLICATE_REFERENCE_ID) instead of the stored answer. Checked present; see the report.
   */
  committedUnanswered: number;
  /** Answers to requests sent while the database was down. */
  duringOutage: { answers: number; serviceUnavailable: number; slowestMs: number };
  /** Every answer of the run by status (a 500 would be a failure). */
  statuses: Record<string, number>;
  hangs: number;
  /** Acknowledged writes missing after the restarts (must be 0). */
  lost: number;
  durationMs: number;
}

export interface PrivateCluster {
  readonly port: number;
  readonly url: (database: string) => string;
  stopImmediately(): Promise<void>;
  start(): Promise<void>;
  destroy(): Promise<void>;
}

function postgresBinaries(): string {
  if (process.env.PG_BIN) {
    return process.env.PG_BIN;
  }
  const root = '/usr/lib/postgresql';
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((name) => fs.existsSync(path.join(root, name, 'bin', 'initdb'))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) {
    throw new Error('no PostgreSQL server binaries (set PG_BIN to the directory holding initdb and pg_ctl)');
  }
  return path.join(root, versions[0], 'bin');
}

/** A throwaway PostgreSQL cluster in a temporary directory (trust authentication, loopback only). */
export async function startPrivateCluster(): Promise<PrivateCluster> {
  const bin = postgresBinaries();
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-pg-'));
  const dataDir = path.join(directory, 'data');
  const asRoot = process.getuid?.() === 0;
  if (asRoot) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: group } = await run('id', ['-g', 'postgres']);
    fs.chownSync(directory, Number(stdout.trim()), Number(group.trim()));
  }
  const as = (command: string, args: string[]) => (asRoot ? run('runuser', ['-u', 'postgres', '--', path.join(bin, command), ...args]) : run(path.join(bin, command), args));
  await as('initdb', ['-D', dataDir, '-A', 'trust', '-U', 'postgres', '--no-sync', '-E', 'UTF8', '--locale=C']);
  const port = await freePort();
  const options = `-p ${port} -k ${directory} -c listen_addresses=127.0.0.1 -c max_connections=50`;
  const start = async () => {
    await as('pg_ctl', ['-D', dataDir, '-o', options, '-l', path.join(directory, 'server.log'), '-w', '-t', '60', 'start']);
  };
  await start();
  return {
    port,
    url: (database) => `postgres://postgres@127.0.0.1:${port}/${database}`,
    async stopImmediately() {
      await as('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
    },
    start,
    async destroy() {
      await as('pg_ctl', ['-D', dataDir, '-m', 'immediate', '-w', 'stop']).catch(() => undefined);
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}

interface Attempt {
  status: number;
  errorCode: string | undefined;
  envelope: boolean;
  latencyMs: number;
  /** Sent while the database was down (after the stop returned, before the start began). */
  duringOutage: boolean;
}

export async function runPgStopHarness(options: PgStopHarnessOptions): Promise<PgStopHarnessResult> {
  const started = Date.now();
  const log = options.log ?? (() => undefined);
  const hangMs = options.hangMs ?? 15_000;
  const cluster = await startPrivateCluster();
  const group = new ProcessGroup({});
  let admin: pg.Client | undefined;
  try {
    admin = new pg.Client({ connectionString: cluster.url('postgres') });
    await admin.connect();
    await admin.query('create database paysail');
    await admin.end();
    admin = undefined;
    group.extendEnv({
      DATABASE_URL: cluster.url('paysail'),
      ENCRYPTION_KEYS: generateKeySpec('pgstop1'),
      ADMIN_API_KEY: adminApiKey,
      LOG_LEVEL: 'error',
      SANDBOX_KYC_DELAY_MS: '100',
      // A job whose worker lost the database mid-run cannot record its failure: it stays claimed
      // until its lease ends. Short leases keep the final check short.
      WEBHOOK_TIMEOUT_MS: '2000',
      JOB_LEASE_MS: '3000',
      JOB_POLL_INTERVAL_MS: '200',
      RATE_LIMIT_PER_SECOND: '100000',
      RATE_LIMIT_BURST: '100000',
    });
    const [service] = await group.add('all', 1);
    assert.ok(service);
    await group.startAll();
    const merchant = await createMerchantThrough(service.url, adminApiKey, 'Database Outage');
    const authorization = basicAuthorization(merchant.apiKey);

    let databaseDown = false;
    let stopping = false;
    let hangs = 0;
    const attempts: Attempt[] = [];
    const acknowledged = new Map<string, string>();
    const committedUnanswered = new Set<string>();
    let counter = 0;

    /** One attempt; never throws. A timeout is a hang. */
    const send = async (reference: string, key: string, signupAt: number): Promise<Attempt & { id?: string }> => {
      const duringOutage = databaseDown;
      const began = Date.now();
      try {
        const response = await fetch(`${service.url}/v1/customers?livemode=false`, {
          method: 'POST',
          headers: { authorization, 'content-type': 'application/json', 'idempotency-key': key },
          body: JSON.stringify({ referenceId: reference, signupAt, email: `${reference}@example.com`, ...fullKyc }),
          signal: AbortSignal.timeout(hangMs),
        });
        const text = await response.text();
        let body: { status?: string; errorCode?: string; data?: { id?: string } } = {};
        try {
          body = JSON.parse(text) as typeof body;
        } catch {
          // not JSON: recorded as a non-envelope
        }
        const attempt: Attempt & { id?: string } = {
          status: response.status,
          errorCode: body.errorCode,
          envelope: response.status === 200 ? body.status === 'SUCCEEDED' : body.status === 'FAILED' && typeof body.errorCode === 'string',
          latencyMs: Date.now() - began,
          duringOutage: duringOutage && databaseDown,
          ...(body.data?.id ? { id: body.data.id } : {}),
        };
        attempts.push(attempt);
        return attempt;
      } catch (error) {
        const timedOut = (error as Error).name === 'TimeoutError';
        if (timedOut) {
          hangs += 1;
        }
        const attempt = { status: 0, errorCode: timedOut ? 'HANG' : (error as Error).name, envelope: false, latencyMs: Date.now() - began, duringOutage: duringOutage && databaseDown };
        attempts.push(attempt);
        return attempt;
      }
    };

    const statusCounts = (): Record<string, number> => {
      const counts: Record<string, number> = {};
      for (const attempt of attempts) {
        const label = `${attempt.status}${attempt.errorCode ? ` ${attempt.errorCode}` : ''}`;
        counts[label] = (counts[label] ?? 0) + 1;
      }
      return counts;
    };

    /** One write: retried with its Idempotency-Key until acknowledged (or the run ends). */
    const write = async (): Promise<void> => {
      counter += 1;
      const reference = `outage-${counter}`;
      const key = randomUUID();
      // The same request on every retry (a different body under one key is IDEMPOTENCY_KEY_REUSED).
      const signupAt = Date.now();
      let reported = false;
      for (let delay = 50; ; delay = Math.min(delay * 2, 500)) {
        const attempt = await send(reference, key, signupAt);
        if (attempt.status === 200 && attempt.id) {
          acknowledged.set(reference, attempt.id);
          return;
        }
        if (attempt.status === 409 && attempt.errorCode === 'DUPLICATE_REFERENCE_ID' && delay > 50) {
          // An earlier attempt committed, but its answer was lost with the database (see
          // CrashHarnessResult.committedBeforeTheCrash): checked in the database below.
          committedUnanswered.add(reference);
          return;
        }
        if (attempt.status !== 503 && attempt.status !== 0 && !(attempt.status === 409 && attempt.errorCode === 'IDEMPOTENCY_KEY_IN_USE')) {
          return; // recorded; the checks below fail on it
        }
        if (stopping && !reported) {
          reported = true;
          log(`write ${reference} still unanswered after the last outage: ${attempt.status} ${attempt.errorCode ?? ''}`);
        }
        if (!service.running || (stopping && Date.now() - started > 10 * 60_000)) {
          return; // the checks below report it
        }
        await sleep(delay);
      }
    };

    const load = async () => {
      while (!stopping) {
        await write();
      }
    };
    const workers = Array.from({ length: options.concurrency ?? 4 }, () => load());

    let readyzDuringOutage = 0;
    for (let stop = 1; stop <= options.stops; stop += 1) {
      await sleep(options.upMs ?? 1_500);
      await cluster.stopImmediately();
      databaseDown = true;
      const readyz = await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(hangMs) }).catch(() => undefined);
      if (readyz?.status === 503) {
        readyzDuringOutage += 1;
      }
      await sleep(options.outageMs ?? 1_500);
      databaseDown = false;
      assert.ok(service.running, `the service process survived outage ${stop}:\n${service.logs().slice(-4000)}`);
      await cluster.start();
      await eventually(
        'the service is ready again',
        async () => (await fetch(`${service.url}/readyz`, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.status === 200,
        60_000,
        async () => service.logs().slice(-3000),
      );
      log(`stop ${stop}/${options.stops}: ${acknowledged.size} writes acknowledged so far`);
    }
    await sleep(options.upMs ?? 1_500);
    stopping = true;
    await Promise.all(workers);
    log(`load stopped: ${acknowledged.size} writes acknowledged, ${attempts.length} answers`);
    assert.ok(service.running, `the service process survived the outages:\n${service.logs().slice(-4000)}`);
    assert.equal(acknowledged.size + committedUnanswered.size, counter, `every write was acknowledged in the end: ${JSON.stringify(statusCounts())}`);

    const statuses = statusCounts();
    const outage = attempts.filter((attempt) => attempt.duringOutage);
    assert.equal(hangs, 0, `no request hung (over ${hangMs} ms): ${JSON.stringify(statuses)}`);
    assert.ok(outage.length > 0, 'requests were sent while the database was down');
    assert.deepEqual(
      outage.filter((attempt) => !(attempt.status === 503 && attempt.envelope && attempt.errorCode === 'SERVICE_UNAVAILABLE')),
      [],
      'every answer during an outage is a 503 SERVICE_UNAVAILABLE envelope',
    );
    assert.deepEqual(
      attempts.filter((attempt) => attempt.status >= 500 && attempt.status !== 503),
      [],
      'no 500s at any time',
    );
    assert.equal(readyzDuringOutage, options.stops, '/readyz answers 503 while the database is down');

    // Every acknowledged write survived the crashes of the database server, and its queued work ran.
    const check = new pg.Client({ connectionString: cluster.url('paysail') });
    await check.connect();
    try {
      const ids = [...acknowledged.values()];
      const { rows } = await check.query<{ id: string }>('select id from customers where id = any($1::text[])', [ids]);
      const present = new Set(rows.map((row) => row.id));
      const lost = ids.filter((id) => !present.has(id));
      assert.deepEqual(lost, [], 'every acknowledged write is in the database');
      const { rows: late } = await check.query<{ reference_id: string }>('select reference_id from customers where reference_id = any($1::text[])', [[...committedUnanswered]]);
      assert.equal(late.length, committedUnanswered.size, 'writes whose answer was lost are in the database');
      const { rows: duplicates } = await check.query('select reference_id, count(*) from customers group by reference_id having count(*) > 1');
      assert.deepEqual(duplicates, [], 'no write happened twice');
      await eventually(
        'the worker decided every KYC check after the outages',
        async () => (await check.query<{ pending: number }>(`select count(*)::int as pending from customers where kyc_status <> 'APPROVED'`)).rows[0]?.pending === 0,
        60_000,
        async () => service.logs().slice(-3000),
      );
      const exits = await group.stopAll('SIGTERM');
      assert.deepEqual(exits, [{ code: 0, signal: null }], 'the process shuts down cleanly after the outages');
      return {
        stops: options.stops,
        acknowledged: acknowledged.size,
        committedUnanswered: committedUnanswered.size,
        duringOutage: { answers: outage.length, serviceUnavailable: outage.filter((attempt) => attempt.status === 503).length, slowestMs: Math.max(0, ...outage.map((attempt) => attempt.latencyMs)) },
        statuses,
        hangs,
        lost: lost.length,
        durationMs: Date.now() - started,
      };
    } finally {
      await check.end();
    }
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw Object.assign(error instanceof Error ? error : new Error(message), { message: `${message}\n${group.logs().slice(-4000)}` });
  } finally {
    group.killAllNow();
    await admin?.end().catch(() => undefined);
    await cluster.destroy();
  }
}
