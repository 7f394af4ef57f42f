import fs from 'node:fs';
import path from 'node:path';
import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { SQL } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import type pg from 'pg';
import * as schema from './schema/index.ts';
import { defaultPgliteSharedBuffersMb } from '../config/index.ts';
import { currentCommitGuard } from './commit-guard.ts';
import { compileNamed } from './named-statements.ts';
import { migrationsFolder, newestMigrationMillis, seedFromBuild } from './snapshot.ts';

export type Schema = typeof schema;
/** A database handle or an open transaction: services take this and never commit themselves. */
export type Executor = PgDatabase<PgQueryResultHKT, Schema>;

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly db: Executor;
  /** Runs `work` in one transaction; after-commit callbacks run only once it committed. */
  transaction<T>(work: (tx: Executor, afterCommit: (callback: () => void) => void) => Promise<T>): Promise<T>;
  /** Calls `onNotify` for every NOTIFY on `channel`; returns an unsubscribe function. */
  listen(channel: string, onNotify: () => void): Promise<() => Promise<void>>;
  ping(): Promise<void>;
  close(): Promise<void>;
}

export { migrationsFolder };

export class DatabaseLockedError extends Error {}

function acquireDirectoryLock(dataDir: string): () => void {
  fs.mkdirSync(dataDir, { recursive: true });
  const lockFile = path.join(dataDir, 'paysail.lock');
  const take = () => fs.writeFileSync(lockFile, String(process.pid), { flag: 'wx' });
  try {
    take();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
      throw error;
    }
    const holder = Number(fs.readFileSync(lockFile, 'utf8').trim());
    let alive = false;
    if (Number.isInteger(holder) && holder > 0 && holder !== process.pid) {
      try {
        process.kill(holder, 0);
        alive = true;
      } catch (probe) {
        alive = (probe as NodeJS.ErrnoException).code === 'EPERM';
      }
    }
    if (alive) {
      throw new DatabaseLockedError(
        `The embedded database in ${dataDir} is in use by process ${holder}. ` +
          'PGlite allows one process per data directory: stop that process, choose another DATA_DIR, ' +
          'or set DATABASE_URL to use PostgreSQL with several processes.',
      );
    }
    // The previous owner died without cleaning up: take the lock over.
    fs.rmSync(lockFile, { force: true });
    take();
  }
  return () => {
    try {
      if (fs.readFileSync(lockFile, 'utf8').trim() === String(process.pid)) {
        fs.rmSync(lockFile, { force: true });
      }
    } catch {
      // already gone
    }
  };
}

function runAfterCommit(callbacks: Array<() => void>): void {
  for (const callback of callbacks) {
    try {
      callback();
    } catch {
      // after-commit hooks are best effort (wake-ups); the committed data is what counts
    }
  }
}

export interface OpenPgliteOptions {
  /** A directory, or undefined for in-memory. */
  dataDir?: string;
  /**
   * A snapshot made by `dumpDataDir` (tests start from a migrated snapshot). Without one, an empty
   * `dataDir` starts from a copy of the build's migrated data directory when there is one (snapshot.ts).
   */
  snapshot?: Blob;
  /** shared_buffers in MB; `PGLITE_SHARED_BUFFERS_MB` of the configuration (decision 0067). */
  sharedBuffersMb?: number;
}

/**
 * The type parsers drizzle's PGlite driver passes with every query (date and time types, numeric[]
 * and the time arrays as PGlite's text, for drizzle's own mapping). PGlite merges per-query parsers
 * into a copy of its whole parser table on every query, which cost about 70 µs a query (a read by
 * id took 220 µs instead of 150 µs, measured on this machine). The instance is created with these
 * parsers instead, and `drizzleClient` drops them from each query's options: the same parsers apply.
 */
const identity = (value: string) => value;
// timestamp, timestamptz, interval, date (PGlite's `types`), then numeric[] and the time arrays.
const drizzleParsers = Object.fromEntries([1114, 1184, 1186, 1082, 1231, 1115, 1185, 1187, 1182].map((type) => [type, identity]));

type PgliteQueryable = Pick<PGlite | Transaction, 'query'>;

function withoutParsers(options: unknown): unknown {
  if (options === null || typeof options !== 'object' || !('parsers' in options)) {
    return options;
  }
  const { parsers: _parsers, ...rest } = options as Record<string, unknown>;
  return rest;
}

/** What drizzle calls on its PGlite client (`query`, `transaction`), minus the per-query parsers. */
function drizzleClient(client: PGlite): PGlite {
  const queryOf =
    (target: PgliteQueryable) =>
    (text: string, params?: unknown[], options?: unknown) =>
      target.query(text, params, withoutParsers(options) as Parameters<PGlite['query']>[2]);
  return {
    query: queryOf(client),
    transaction: <T>(work: (tx: Transaction) => Promise<T>) => client.transaction((tx) => work(Object.assign(Object.create(tx) as Transaction, { query: queryOf(tx) }))),
  } as unknown as PGlite;
}

export async function openPglite(options: OpenPgliteOptions): Promise<Database & { client: PGlite }> {
  // Loaded here, not at the top: a server on PostgreSQL never loads the embedded database (its
  // WebAssembly build takes as long to load as the rest of the server).
  const [{ PGlite }, { drizzle: drizzlePglite }] = await Promise.all([import('@electric-sql/pglite'), import('drizzle-orm/pglite')]);
  const release = options.dataDir ? acquireDirectoryLock(options.dataDir) : () => undefined;
  // PGlite compiles its WebAssembly through a promise V8 settles, not libuv: with nothing else alive
  // in Node's event loop (a start, before the server listens), Node leaves the loop and runs V8's
  // tasks from its drain, which blocks the main thread until every background job of V8 (JIT
  // compilation, GC) has finished, again after each task, for as long as tasks keep coming: 30–100
  // ms of a restart spent waiting. A timer keeps the loop alive for the open (decision 0072).
  const loopAlive = setInterval(() => undefined, 60_000);
  let client: PGlite;
  try {
    const pgliteDataDir = options.dataDir ? path.join(options.dataDir, 'pglite') : undefined;
    if (pgliteDataDir && !options.snapshot) {
      await seedFromBuild(pgliteDataDir);
    }
    client = await PGlite.create({
      ...(pgliteDataDir ? { dataDir: pgliteDataDir } : {}),
      ...(options.snapshot ? { loadDataDir: options.snapshot } : {}),
      parsers: drizzleParsers,
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${options.sharedBuffersMb ?? defaultPgliteSharedBuffersMb}MB`],
    });
  } catch (error) {
    release();
    throw error;
  } finally {
    clearInterval(loopAlive);
  }
  const db = drizzlePglite(drizzleClient(client), { schema }) as unknown as Executor;
  return {
    kind: 'pglite',
    client,
    db,
    transaction: (work) => runTransaction(db, work),
    async listen(channel, onNotify) {
      const unsubscribe = await client.listen(channel, () => onNotify());
      return async () => {
        await unsubscribe();
      };
    },
    async ping() {
      await client.query('select 1');
    },
    async close() {
      try {
        await client.close();
      } finally {
        release();
      }
    },
  };
}

/**
 * One transaction: `work`, then the commit guard of the current async context (see commit-guard.ts),
 * then COMMIT; after-commit callbacks run only once it committed.
 */
async function runTransaction<T>(db: Executor, work: (tx: Executor, afterCommit: (callback: () => void) => void) => Promise<T>): Promise<T> {
  const callbacks: Array<() => void> = [];
  const guard = currentCommitGuard();
  const result = await db.transaction(async (tx) => {
    const value = await work(tx as unknown as Executor, (callback) => callbacks.push(callback));
    await guard?.beforeCommit(tx as unknown as Executor);
    return value;
  });
  runAfterCommit(callbacks);
  return result;
}

export async function openPostgres(url: string, options: { max?: number } = {}): Promise<Database & { pool: pg.Pool }> {
  // Loaded here, not at the top: a server on PGlite never needs node-postgres (whose first load
  // also loads Node's fetch implementation, 0.1–0.2 s).
  const [{ default: pg }, { drizzle: drizzlePostgres }] = await Promise.all([import('pg'), import('drizzle-orm/node-postgres')]);
  const pool = new pg.Pool({
    connectionString: url,
    max: options.max ?? 10,
    connectionTimeoutMillis: 5000,
    // int8 (count(*), sums) as numbers, like PGlite; every amount we store fits in 2^53.
    types: {
      getTypeParser: (oid: number, format?: 'text' | 'binary') =>
        oid === 20 ? (value: string) => Number(value) : pg.types.getTypeParser(oid, format ?? 'text'),
    } as pg.CustomTypesConfig,
  });
  // An idle client losing its connection must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  // Nor may a checked-out one (the pool listens only while a client is idle): a connection that
  // dies between two statements of a transaction (database restart, failover) would otherwise emit
  // an unhandled 'error' and kill the process. The transaction's next statement fails instead
  // (answered 503), and the pool drops the broken client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const db = drizzlePostgres(pool, { schema }) as unknown as Executor;
  const listeners = new Set<pg.Client>();
  let closed = false;
  return {
    kind: 'postgres',
    pool,
    db,
    transaction: (work) => runTransaction(db, work),
    /**
     * LISTEN on a dedicated connection that is re-opened when it breaks (database restart,
     * failover), with backoff from 250 ms to 30 s. After every reconnect `onNotify` is called once:
     * whatever was notified while the connection was down is found by the next claim.
     */
    async listen(channel, onNotify) {
      let stopped = false;
      let current: pg.Client | undefined;
      let retryTimer: NodeJS.Timeout | undefined;
      let failures = 0;
      const connect = async (): Promise<void> => {
        const client = new pg.Client({ connectionString: url });
        let broken = false;
        const onBroken = () => {
          if (broken) {
            return;
          }
          broken = true;
          listeners.delete(client);
          client.end().catch(() => undefined);
          if (!stopped && !closed) {
            scheduleReconnect();
          }
        };
        client.on('error', onBroken);
        client.on('end', onBroken);
        client.on('notification', (message) => {
          if (message.channel === channel) {
            onNotify();
          }
        });
        await client.connect();
        await client.query(`LISTEN "${channel.replace(/"/g, '')}"`);
        if (stopped || closed) {
          broken = true;
          await client.end().catch(() => undefined);
          return;
        }
        current = client;
        listeners.add(client);
      };
      const scheduleReconnect = () => {
        failures += 1;
        const delay = Math.min(30_000, 250 * 2 ** Math.min(failures - 1, 7));
        retryTimer = setTimeout(() => {
          connect().then(
            () => {
              failures = 0;
              onNotify();
            },
            () => {
              if (!stopped && !closed) {
                scheduleReconnect();
              }
            },
          );
        }, delay);
        retryTimer.unref();
      };
      await connect();
      return async () => {
        stopped = true;
        clearTimeout(retryTimer);
        if (current) {
          listeners.delete(current);
          await current.end().catch(() => undefined);
        }
      };
    },
    async ping() {
      await pool.query('select 1');
    },
    async close() {
      closed = true;
      await Promise.all([...listeners].map((client) => client.end().catch(() => undefined)));
      await pool.end();
    },
  };
}

/**
 * A restart's usual case on PGlite (one process owns the data directory): the newest migration is
 * applied already. drizzle's migrator applies each migration whose journal time is later than the
 * newest `created_at` it recorded, so when that is the newest migration's time there is nothing to
 * do; this skips loading the migrator and reading and hashing every file (a tenth of a second).
 */
async function newestMigrationApplied(client: PGlite): Promise<boolean> {
  const newest = newestMigrationMillis();
  if (newest === null) {
    return false;
  }
  try {
    const result = await client.query<{ created_at: unknown }>('select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1');
    return Number(result.rows[0]?.created_at) === newest;
  } catch {
    return false; // no migrations table yet
  }
}

/** Applies the one migration set; on PostgreSQL under an advisory lock so many processes can start at once. */
export async function migrateDatabase(database: Database): Promise<void> {
  if (database.kind === 'pglite') {
    if (await newestMigrationApplied((database as Database & { client: PGlite }).client)) {
      return;
    }
    const { migrate: migratePglite } = await import('drizzle-orm/pglite/migrator');
    await migratePglite(database.db as unknown as Parameters<typeof migratePglite>[0], { migrationsFolder });
    return;
  }
  const { pool } = database as Database & { pool: pg.Pool };
  const [{ drizzle: drizzlePostgres }, { migrate: migratePostgres }] = await Promise.all([import('drizzle-orm/node-postgres'), import('drizzle-orm/node-postgres/migrator')]);
  const client = await pool.connect();
  try {
    await client.query('select pg_advisory_lock(72707370)');
    await migratePostgres(drizzlePostgres(client, { schema }), { migrationsFolder });
  } finally {
    await client.query('select pg_advisory_unlock(72707370)').catch(() => undefined);
    client.release();
  }
}

export async function openDatabase(options: { databaseUrl: string | undefined; dataDir: string; pgliteSharedBuffersMb?: number }): Promise<Database> {
  const database = options.databaseUrl
    ? await openPostgres(options.databaseUrl)
    : await openPglite({ dataDir: options.dataDir, ...(options.pgliteSharedBuffersMb === undefined ? {} : { sharedBuffersMb: options.pgliteSharedBuffersMb }) });
  try {
    await migrateDatabase(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return database;
}

/** `db.execute` returns `{ rows }` on both drivers. */
export async function queryRows<T>(executor: Executor, query: SQL): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * `queryRows` as a named prepared statement: PostgreSQL parses it once per connection (node-postgres
 * remembers the names it prepared on each), which matters for a statement that runs while rows are
 * locked. The text behind one `name` must never change (only its parameters); PGlite runs it as is.
 */
export async function queryNamedRows<T>(executor: Executor, name: string, query: SQL): Promise<T[]> {
  const prepared = executor._.session.prepareQuery(compileNamed(name, query), undefined, name, false);
  const result = (await prepared.execute()) as unknown as { rows: T[] };
  return result.rows;
}
