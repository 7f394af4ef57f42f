import { and, asc, count, gt, sql, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { queryRows, type Database } from '../db/client.ts';
import type { KeyRing } from './keyring.ts';

/**
 * Key-ring rotation across every sealed column. Each module re-seals its own values
 * (`reencryptAll`-style functions, using `resealInBatches` below); `reencryptEverything` runs them
 * all, and `sealedValueStatus` counts, straight from the database, how many values are still under
 * a key other than the active one, so an operator knows when an old key can leave the ring.
 *
 * Not covered on purpose: dashboard flash cookies are sealed with the ring too, but live in the
 * browser for at most two minutes (`flashLifetimeSeconds`); one sealed under a retired key simply fails to open
 * and is dropped, which loses a one-time notice and nothing else. Derived keys (CSRF, cursors,
 * payout page access codes) come from the active key and change with it; nothing stored uses them.
 */

export interface ReencryptOptions {
  /** `done` rows examined of `total`. */
  onProgress?: (done: number, total: number) => void;
  /**
   * Awaited before row number `index` (0-based, in primary-key order) is re-sealed, after its batch
   * was read: tests write to that row here to check that a concurrent write wins.
   */
  beforeRow?: (index: number) => Promise<void>;
  /** Rows read per query (keyset pages by primary key). */
  batchSize?: number;
}

/**
 * Re-seals `value` under the active key with the same associated data; null when it already is
 * under the active key. Throws when it does not open (a key no longer in the ring, a tampered value).
 */
export function resealValue(keyRing: KeyRing, value: string, associatedData: string): string | null {
  if (keyRing.keyIdOf(value) === keyRing.activeKeyId) {
    return null;
  }
  return keyRing.encrypt(keyRing.decrypt(value, associatedData), associatedData);
}

/**
 * Walks a table in keyset pages (`readBatch(after, limit)` returns rows after the cursor, in cursor
 * order) and calls `reseal` for each row; `reseal` answers whether it changed the row (its UPDATE is
 * conditional on the ciphertext it read, so a concurrent write wins and is left for the next run).
 * A row that does not open (its key already left the ring) stops the walk with an error naming the
 * row; rows before it stay re-sealed, and a rerun skips them. Returns the number of rows changed.
 */
export async function resealInBatches<Row, Cursor>(
  options: ReencryptOptions & {
    count(): Promise<number>;
    readBatch(after: Cursor | undefined, limit: number): Promise<Row[]>;
    cursorOf(row: Row): Cursor;
    reseal(row: Row): Promise<boolean>;
  },
): Promise<number> {
  const batchSize = options.batchSize ?? 500;
  const total = await options.count();
  let examined = 0;
  let changed = 0;
  let after: Cursor | undefined;
  for (;;) {
    const rows = await options.readBatch(after, batchSize);
    for (const row of rows) {
      options.onProgress?.(examined, Math.max(total, examined));
      await options.beforeRow?.(examined);
      examined += 1;
      let resealed: boolean;
      try {
        resealed = await options.reseal(row);
      } catch (error) {
        // Names the row (ids only, never values): e.g. a value sealed under a key no longer in the ring.
        throw new Error(`re-encryption stopped at ${JSON.stringify(options.cursorOf(row))}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
      }
      if (resealed) {
        changed += 1;
      }
    }
    const last = rows.at(-1);
    if (last === undefined || rows.length < batchSize) {
      break;
    }
    after = options.cursorOf(last);
  }
  options.onProgress?.(examined, Math.max(total, examined));
  return changed;
}

/** A row of `columns` as drizzle reads it (nullable columns may hold null). */
export type RowOf<C extends Record<string, PgColumn>> = { [K in keyof C]: C[K]['_']['notNull'] extends true ? C[K]['_']['data'] : C[K]['_']['data'] | null };

/**
 * `resealInBatches` over one table walked by a text key among `columns` (its primary key), only the
 * rows matching `where` when given: this counts, reads and pages; the caller's `reseal` re-seals one
 * row with its UPDATE conditional on the ciphertext read, answering whether it changed the row.
 */
export function resealTable<C extends Record<string, PgColumn>>(
  database: Database,
  options: ReencryptOptions & { table: PgTable; columns: C; key: keyof C & string; where?: SQL; reseal(row: RowOf<C>): Promise<boolean> },
): Promise<number> {
  const { table, columns, key, where } = options;
  const keyColumn = columns[key] as PgColumn;
  return resealInBatches<RowOf<C>, string>({
    ...options,
    count: async () => (await database.db.select({ total: count() }).from(table).where(where))[0]?.total ?? 0,
    readBatch: async (after, limit) =>
      (await database.db
        .select(columns as Record<string, PgColumn>)
        .from(table)
        .where(and(where, after === undefined ? undefined : gt(keyColumn, after)))
        .orderBy(asc(keyColumn))
        .limit(limit)) as unknown as RowOf<C>[],
    cursorOf: (row) => String(row[key]),
    reseal: options.reseal,
  });
}

/** One step of a full re-encryption: a label for progress and reports, and the module's function. */
export interface ReencryptStep {
  /** Plural, for people: `payout pages`. */
  label: string;
  run(options: ReencryptOptions): Promise<number>;
}

export interface ReencryptResult {
  label: string;
  reencrypted: number;
}

/**
 * Runs every step in order. `progressFor(label)` gives each step its own progress callback (the
 * CLI's bars); its `finish` is called when the step is done, even when it throws.
 */
export async function reencryptEverything(
  steps: readonly ReencryptStep[],
  progressFor?: (label: string) => { onProgress(done: number, total: number): void; finish(): void },
): Promise<ReencryptResult[]> {
  const results: ReencryptResult[] = [];
  for (const step of steps) {
    const progress = progressFor?.(step.label);
    try {
      const reencrypted = await step.run(progress ? { onProgress: progress.onProgress } : {});
      results.push({ label: step.label, reencrypted });
    } catch (error) {
      throw new Error(`${step.label}: ${error instanceof Error ? error.message : String(error)}`, { cause: error });
    } finally {
      progress?.finish();
    }
  }
  return results;
}

/**
 * Every column that holds key-ring ciphertext. `map` columns are jsonb objects of field → ciphertext.
 * `plaintextAllowed`: rows written by older versions may hold plaintext there (re-encryption seals it).
 * A new sealed column goes here and gets a re-encrypt step (test/integration/crypto/rotation.test.ts
 * scans every text and jsonb column for ciphertext under a retired key, so a missing one fails).
 */
export const sealedColumns: ReadonlyArray<{ table: string; column: string; kind: 'text' | 'map'; plaintextAllowed?: boolean; prefix?: 'v1' | 'h1' }> = [
  { table: 'customers', column: 'pii', kind: 'map' },
  // Not a ciphertext but a keyed hash under a ring key (`h1.<kid>.…`, KeyRing.lookupHash): re-computed with the row's PII.
  { table: 'customers', column: 'email_lookup', kind: 'text', prefix: 'h1' },
  { table: 'merchant_pii_keys', column: 'key_ciphertext', kind: 'text' },
  { table: 'dashboard_two_factor', column: 'secret_ciphertext', kind: 'text' },
  { table: 'payout_pages', column: 'customer_email_ciphertext', kind: 'text' },
  { table: 'payout_pages', column: 'destination', kind: 'map' },
  { table: 'payment_pages', column: 'customer_email_ciphertext', kind: 'text' },
  { table: 'payments', column: 'cardholder_name_ciphertext', kind: 'text' },
  { table: 'fraud_reports', column: 'pii', kind: 'map' },
  { table: 'webhook_endpoints', column: 'secret_ciphertext', kind: 'text' },
  { table: 'webhook_endpoints', column: 'previous_secret_ciphertext', kind: 'text' },
  { table: 'idempotency_keys', column: 'response_body', kind: 'text', plaintextAllowed: true },
  { table: 'emails', column: 'to_ciphertext', kind: 'text' },
  { table: 'emails', column: 'subject', kind: 'text', plaintextAllowed: true },
  { table: 'emails', column: 'text', kind: 'text', plaintextAllowed: true },
  { table: 'emails', column: 'html', kind: 'text', plaintextAllowed: true },
];

/** The key id a stored value is sealed under; `plaintext` for a value that is not a ciphertext. */
export const plaintextKeyId = 'plaintext';

export interface SealedValueCount {
  table: string;
  column: string;
  /** Key id, or `plaintext` (an older row not sealed yet). */
  keyId: string;
  count: number;
}

export interface SealedValueStatus {
  activeKeyId: string;
  /** Every (table, column, key) with at least one value. */
  counts: SealedValueCount[];
  /** Values not under the active key, per key id (`plaintext` included). */
  staleByKey: Record<string, number>;
  /** Values not under the active key, in all. 0: every key but the active one can leave the ring. */
  stale: number;
}

/**
 * Counts stored values per sealed column and key id. Read-only; reads every sealed column once. An
 * empty value (erased, or emptied by retention) holds nothing and is not counted.
 * Identifiers come from `sealedColumns` above (constants), never from input.
 */
export async function sealedValueStatus(database: Database, keyRing: KeyRing): Promise<SealedValueStatus> {
  const counts: SealedValueCount[] = [];
  for (const { table, column, kind, prefix = 'v1' } of sealedColumns) {
    const pattern = `^${prefix}\\.[A-Za-z0-9_-]{1,32}\\.`;
    const value = kind === 'map' ? sql.raw('f.value') : sql.raw(`t.${column}`);
    const from = kind === 'map' ? sql.raw(`${table} t, jsonb_each_text(t.${column}) f`) : sql.raw(`${table} t`);
    const rows = await queryRows<{ key_id: string; count: string | number }>(
      database.db,
      sql`select case when ${value} ~ ${pattern} then split_part(${value}, '.', 2) else ${plaintextKeyId} end as key_id, count(*) as count
          from ${from} where ${value} is not null and ${value} <> '' group by 1 order by 1`,
    );
    for (const row of rows) {
      counts.push({ table, column, keyId: row.key_id, count: Number(row.count) });
    }
  }
  const staleByKey: Record<string, number> = {};
  let stale = 0;
  for (const entry of counts) {
    if (entry.keyId !== keyRing.activeKeyId) {
      staleByKey[entry.keyId] = (staleByKey[entry.keyId] ?? 0) + entry.count;
      stale += entry.count;
    }
  }
  return { activeKeyId: keyRing.activeKeyId, counts, staleByKey, stale };
}
