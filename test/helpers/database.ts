import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { after } from 'node:test';
import pg from 'pg';
import { migrateDatabase, openPglite, openPostgres, type Database } from '../../src/db/client.ts';
import { migrationsHash } from '../../src/db/snapshot.ts';

/** Which database the suite runs on: PostgreSQL when DATABASE_URL is set, else embedded PGlite. */
export const testDatabaseKind: 'postgres' | 'pglite' = process.env.DATABASE_URL ? 'postgres' : 'pglite';

/**
 * For `describe(name, { skip: onEmbeddedRunOnly }, …)` in a file whose subject does not depend on
 * the run's database (a real browser on the hosted pages and the dashboard, the executed doc
 * examples, and `src/main.ts` started with its own embedded data directory). CI runs the suite twice, on PGlite and on PostgreSQL, within a 20-minute budget;
 * these files run in the default (PGlite) run — what `npm test` runs on a fresh clone — and are
 * reported as skipped, with this reason, in the PostgreSQL run, where they would repeat the same
 * browser/HTTP work against the same code.
 */
export const onEmbeddedRunOnly: string | false =
  testDatabaseKind === 'postgres' ? 'database-independent (browser, doc examples, the default PGlite start): runs in the PGlite run of the suite only' : false;

/**
 * PGlite: initdb + migrations take seconds, so the migrated data directory is dumped once (per
 * migration set) and every test file starts from that snapshot.
 */
async function pgliteFromSnapshot(): Promise<Database> {
  const snapshot = path.join(os.tmpdir(), `paysail-pglite-${migrationsHash()}.tar`);
  if (!fs.existsSync(snapshot)) {
    const fresh = await openPglite({});
    await migrateDatabase(fresh);
    const dump = await fresh.client.dumpDataDir('none');
    await fresh.close();
    const temporary = `${snapshot}.${process.pid}.${randomBytes(4).toString('hex')}`;
    fs.writeFileSync(temporary, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(temporary, snapshot);
  }
  const pooled = idle.pop();
  const database = pooled ?? (await openPglite({ snapshot: new Blob([fs.readFileSync(snapshot)]) }));
  // A snapshot made by an older run of the same migrations is already current; this is a no-op check.
  await migrateDatabase(database);
  snapshotCatalog ??= await fingerprint(database);
  return lentOut(database);
}

type PgliteDatabase = Awaited<ReturnType<typeof openPglite>>;

/**
 * The embedded databases of this process that a test file closed and that are back in the state of
 * the snapshot (decision 0066): the next file of the process (decision 0007) takes one instead of
 * loading the snapshot again, about 0.9 CPU-s less per file.
 */
const idle: PgliteDatabase[] = [];
let snapshotCatalog: string | undefined;
let ending = false;
if (process.env.NODE_TEST_CONTEXT) {
  // A test process of `node --test`: the kept database closes after its last file (left open, it
  // could keep that process from ending).
  // From then on a database a file closes (a later root hook of a file's own) is really closed.
  after(async () => {
    ending = true;
    await Promise.all(idle.splice(0).map((database) => database.close()));
  });
}

/**
 * What a test could change in a database besides its rows: tables, columns, defaults, constraints,
 * indexes, triggers (and whether they are enabled), functions, roles, extensions, settings other than
 * the defaults, the migrations applied and the channels listened to. Equal to the snapshot's, and
 * the tables emptied, a database is the snapshot again.
 */
const catalogFingerprint = `select md5(concat_ws('|',
  (select string_agg(format('%s.%s:%s:%s', n.nspname, c.relname, c.relkind, c.relpersistence), ',' order by n.nspname, c.relname)
     from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname not in ('pg_catalog', 'information_schema', 'pg_toast')),
  (select string_agg(format('%s.%s:%s:%s:%s:%s:%s', a.attrelid::regclass, a.attname, a.atttypid, a.attnotnull, a.attisdropped, pg_get_expr(d.adbin, d.adrelid), a.attidentity), ',' order by a.attrelid::regclass::text, a.attnum)
     from pg_attribute a join pg_class c on c.oid = a.attrelid join pg_namespace n on n.oid = c.relnamespace left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where n.nspname in ('public', 'drizzle') and a.attnum > 0),
  (select string_agg(format('%s:%s', conrelid::regclass, pg_get_constraintdef(oid)), ',' order by conrelid::regclass::text, conname) from pg_constraint where connamespace in (select oid from pg_namespace where nspname in ('public', 'drizzle'))),
  (select string_agg(pg_get_indexdef(indexrelid), ',' order by indexrelid::regclass::text) from pg_index where indrelid in (select c.oid from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname in ('public', 'drizzle'))),
  (select string_agg(format('%s:%s:%s', tgrelid::regclass, tgname, tgenabled), ',' order by tgrelid::regclass::text, tgname) from pg_trigger),
  (select string_agg(format('%s:%s', p.oid::regprocedure, md5(p.prosrc)), ',' order by p.oid::regprocedure::text) from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname not in ('pg_catalog', 'information_schema')),
  (select string_agg(format('%s:%s:%s', rolname, rolsuper, rolcanlogin), ',' order by rolname) from pg_roles),
  (select string_agg(extname || extversion, ',' order by extname) from pg_extension),
  (select string_agg(format('%s=%s:%s', name, setting, source), ',' order by name) from pg_settings where source not in ('default', 'override', 'client', 'session')),
  (select count(*) || ':' || coalesce(max(id), 0) from drizzle.__drizzle_migrations),
  (select string_agg(channel, ',') from pg_listening_channels() channel),
  (select count(*) from pg_prepared_xacts)
)) as fingerprint`;

/**
 * The database the caller gets: closing it empties every table (triggers off, so the ledger's and
 * the audit log's refusal to be truncated does not apply) and, when nothing else of the snapshot
 * changed, keeps it for the next file of this process; otherwise it is really closed.
 */
function lentOut(database: PgliteDatabase): PgliteDatabase {
  let closed = false;
  // Closed, it behaves as a closed database to whoever still holds it (a test that closes the
  // database under a running app, for /readyz): every use fails, as PGlite's own would.
  const refused = () => new Error('PGlite is closed');
  const guard = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(object, property) {
        if (closed) {
          throw refused();
        }
        const value: unknown = Reflect.get(object, property);
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(object) : value;
      },
    });
  return {
    ...database,
    db: guard(database.db),
    client: guard(database.client),
    transaction: (work) => (closed ? Promise.reject(refused()) : database.transaction(work)),
    listen: (channel, onNotify) => (closed ? Promise.reject(refused()) : database.listen(channel, onNotify)),
    ping: () => (closed ? Promise.reject(refused()) : database.ping()),
    async close() {
      if (closed) {
        return;
      }
      closed = true;
      if (!(await resetToSnapshot(database))) {
        await database.close();
      }
    },
  };
}

async function fingerprint(database: PgliteDatabase): Promise<string | undefined> {
  return (await database.client.query<{ fingerprint: string }>(catalogFingerprint)).rows[0]?.fingerprint;
}

async function resetToSnapshot(database: PgliteDatabase): Promise<boolean> {
  const client = database.client;
  try {
    if (ending || client.closed || idle.length > 0) {
      return false;
    }
    // Not inside a transaction block a file left open (a savepoint is refused outside one).
    const inside = await client.exec('savepoint paysail_test_reuse').then(
      () => true,
      () => false,
    );
    if (inside) {
      return false;
    }
    // Session state a file may have left: settings, advisory locks, cursors, prepared statements.
    await client.exec('reset all; select pg_advisory_unlock_all(); close all; deallocate all;');
    if ((await fingerprint(database)) !== snapshotCatalog) {
      return false;
    }
    const tables = await client.query<{ name: string }>(`select format('%I.%I', schemaname, tablename) as name from pg_tables where schemaname = 'public'`);
    await client.exec(`set session_replication_role = replica; truncate ${tables.rows.map((row) => row.name).join(', ')} restart identity; reset session_replication_role;`);
    idle.push(database);
    return true;
  } catch {
    return false;
  }
}

/**
 * A fresh migrated PostgreSQL database (cloned from the template) for tests that run their own
 * processes against it: its URL, and `drop()` to remove it (forcing other connections off).
 */
export async function createPostgresTestDatabase(baseUrl: string = process.env.DATABASE_URL ?? ''): Promise<{ url: string; drop(): Promise<void> }> {
  const template = `paysail_template_${migrationsHash()}`;
  const admin = new pg.Client({ connectionString: baseUrl });
  await admin.connect();
  try {
    await admin.query('select pg_advisory_lock(72707371)');
    const exists = await admin.query('select 1 from pg_database where datname = $1', [template]);
    if (exists.rowCount === 0) {
      await admin.query(`create database "${template}"`);
      const url = new URL(baseUrl);
      url.pathname = `/${template}`;
      const database = await openPostgres(url.toString(), { max: 1 });
      await migrateDatabase(database);
      await database.close();
    }
    await admin.query('select pg_advisory_unlock(72707371)');
    const name = `paysail_test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
    await admin.query(`create database "${name}" template "${template}"`);
    const url = new URL(baseUrl);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      async drop() {
        const dropper = new pg.Client({ connectionString: baseUrl });
        await dropper.connect();
        await dropper.query(`drop database if exists "${name}" with (force)`).catch(() => undefined);
        await dropper.end();
      },
    };
  } finally {
    await admin.end();
  }
}

/**
 * PostgreSQL: each test file gets its own database, cloned from a migrated template (fast), and
 * dropped afterwards. The template is built once per migration set, under an advisory lock.
 */
async function postgresDatabase(): Promise<Database> {
  const created = await createPostgresTestDatabase();
  const database = await openPostgres(created.url, { max: 12 });
  const close = database.close.bind(database);
  return Object.assign(database, {
    async close() {
      await close();
      await created.drop();
    },
  });
}

export async function openTestDatabase(): Promise<Database> {
  return testDatabaseKind === 'postgres' ? postgresDatabase() : pgliteFromSnapshot();
}
