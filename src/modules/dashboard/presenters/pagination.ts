import { and, eq, gte, lt, or, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
/** Every dashboard list shows 25 rows a page. */
export const pageSize = 25;
/** Page numbers past this are refused rather than scanned (offsets grow linearly). */
export const maxPage = 400;

export interface PageOf<T> {
  items: T[];
  page: number;
  hasMore: boolean;
}

/** `?page=` as a page number (1 when absent or not a number in range). */
export function parsePage(raw: unknown): number {
  if (typeof raw !== 'string' || !/^\d{1,4}$/.test(raw)) {
    return 1;
  }
  const page = Number(raw);
  return page >= 1 && page <= maxPage ? page : 1;
}

/**
 * Offset pagination that reads one row more than it shows, to know whether a next page exists
 * without counting the whole list.
 */
export async function readPage<T>(page: number, query: (limit: number, offset: number) => Promise<T[]>): Promise<PageOf<T>> {
  const rows = await query(pageSize + 1, (page - 1) * pageSize);
  return { items: rows.slice(0, pageSize), page, hasMore: rows.length > pageSize };
}

/** A list's period filter: rows created from `createdFrom` (inclusive) to `createdBefore` (exclusive). */
export interface CreatedRange {
  createdFrom?: Date | undefined;
  createdBefore?: Date | undefined;
}

/** The conditions of a period filter on a list's creation-time column. */
export function createdWithin(column: AnyPgColumn, range: CreatedRange): SQL[] {
  return [...(range.createdFrom ? [gte(column, range.createdFrom)] : []), ...(range.createdBefore ? [lt(column, range.createdBefore)] : [])];
}

/** Rows an export reads per query (keyset, so an export of any size costs the same per row). */
export const exportBatch = 500;

/**
 * Every row of a list ordered newest first by (createdAt, id), read in keyset batches: `read` gets
 * the extra conditions of the next batch ("before the last row read") and a limit, and must order
 * by `createdAt desc, id desc`. For CSV exports; the screens page with offsets.
 */
export async function* everyRow<T extends { createdAt: Date; id: string }>(columns: { createdAt: AnyPgColumn; id: AnyPgColumn }, read: (after: SQL[], limit: number) => Promise<T[]>): AsyncGenerator<T> {
  let last: T | undefined;
  for (;;) {
    const after = last ? [or(lt(columns.createdAt, last.createdAt), and(eq(columns.createdAt, last.createdAt), lt(columns.id, last.id))) as SQL] : [];
    const rows = await read(after, exportBatch);
    yield* rows;
    if (rows.length < exportBatch) {
      return;
    }
    last = rows[rows.length - 1];
  }
}
