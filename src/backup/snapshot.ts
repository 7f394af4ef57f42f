import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { sql } from 'drizzle-orm';
import { migrationsFolder, openPglite, queryRows, type Database } from '../db/client.ts';
import { createKeyRing } from '../crypto/keyring.ts';
import { plaintextKeyId, sealedValueStatus } from '../crypto/rotation.ts';
import { checkLedger, type LedgerCheck } from '../modules/ledger/index.ts';

/**
 * A consistent copy of a PGlite data directory (an uncompressed tar), taken inside the process that
 * holds it. PGlite runs one statement at a time and one transaction at a time: `transaction()` holds
 * its transaction lock until COMMIT, and every statement outside a transaction waits for that lock
 * too. So while this transaction is open no other transaction is half-done, and the files are those
 * of the last commit. The CHECKPOINT flushes the buffers first, so a restore replays no WAL.
 * Writers wait meanwhile (under a second for a small installation; the dump is a copy of the files).
 */
export async function dumpConsistently(client: PGlite): Promise<Buffer> {
  const dump = await client.transaction(async (tx) => {
    await tx.exec('checkpoint');
    return client.dumpDataDir('none');
  });
  return Buffer.from(await dump.arrayBuffer());
}

/** Whether `dataDir` holds an embedded database (the server keeps PGlite's files in `<dataDir>/pglite`). */
export function hasEmbeddedDatabase(dataDir: string): boolean {
  return fs.existsSync(path.join(dataDir, 'pglite', 'PG_VERSION'));
}

export interface MigrationLevel {
  applied: number;
  /** The newest applied migration's name (its journal tag), or null on an empty database. */
  newest: string | null;
  /** `current`: this version's newest; `older`: `pending` migrations run at the next start; `newer`: made by a newer Paysail. */
  status: 'current' | 'older' | 'newer';
  pending: number;
}

interface JournalEntry {
  tag: string;
  when: number;
}

function journal(): JournalEntry[] {
  const text = fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8');
  return (JSON.parse(text) as { entries: JournalEntry[] }).entries;
}

/**
 * drizzle's migrator records each applied migration with its journal time (`created_at`) and
 * applies every journal entry newer than the newest it recorded: that time names the level.
 */
async function migrationLevel(database: Database): Promise<MigrationLevel> {
  const entries = journal();
  const rows = await queryRows<{ applied: number; newest: string | null }>(
    database.db,
    sql`select count(*)::int as applied, max(created_at)::text as newest from drizzle.__drizzle_migrations`,
  );
  const applied = rows[0]?.applied ?? 0;
  const newestMillis = rows[0]?.newest === null || rows[0]?.newest === undefined ? null : Number(rows[0].newest);
  if (newestMillis === null) {
    return { applied, newest: null, status: entries.length === 0 ? 'current' : 'older', pending: entries.length };
  }
  const known = entries.find((entry) => entry.when === newestMillis);
  const last = entries.at(-1);
  if (!known || (last && newestMillis > last.when)) {
    return { applied, newest: `unknown to this version (recorded ${new Date(newestMillis).toISOString()})`, status: 'newer', pending: 0 };
  }
  const pending = entries.filter((entry) => entry.when > newestMillis).length;
  return { applied, newest: known.tag, status: pending === 0 ? 'current' : 'older', pending };
}

async function tableCounts(database: Database): Promise<Record<string, number>> {
  const tables = await queryRows<{ name: string }>(
    database.db,
    sql`select table_name as name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const counts: Record<string, number> = {};
  for (const { name } of tables) {
    // The names come from the catalog, quoted as identifiers.
    const [row] = await queryRows<{ count: number }>(database.db, sql`select count(*)::int as count from ${sql.identifier(name)}`);
    counts[name] = row?.count ?? 0;
  }
  return counts;
}

export interface Inspection {
  migrations: MigrationLevel;
  tables: Record<string, number>;
  ledger: LedgerCheck;
  /** Key ids that sealed values in the database are under (plaintext values left out). */
  sealedKeyIds: string[];
}

/**
 * Opens a dump in a temporary in-memory PGlite (nothing on disk, no lock) and reads what a backup
 * promises: the migration level, every table's row count, the ledger's invariants, and which keys
 * the sealed values need. Throws when the dump does not open as a database.
 */
export async function inspectDump(dump: Buffer): Promise<Inspection> {
  const database = await openPglite({ snapshot: new Blob([new Uint8Array(dump)]) });
  try {
    return await inspectDatabase(database);
  } finally {
    await database.close();
  }
}

export async function inspectDatabase(database: Database): Promise<Inspection> {
  const migrations = await migrationLevel(database);
  const tables = await tableCounts(database);
  const ledger = await checkLedger(database.db);
  // Only the counts per key id are read; the ring's active key (a throwaway) decides nothing here.
  const sealed = await sealedValueStatus(database, createKeyRing([{ id: 'inspection', key: randomBytes(32) }]));
  const sealedKeyIds = [...new Set(sealed.counts.map((entry) => entry.keyId).filter((id) => id !== plaintextKeyId))].sort();
  return { migrations, tables, ledger, sealedKeyIds };
}
