import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
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
  const database = await openPglite({ snapshot: new Blob([fs.readFileSync(snapshot)]) });
  // A snapshot made by an older run of the same migrations is already current; this is a no-op check.
  await migrateDatabase(database);
  return database;
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
