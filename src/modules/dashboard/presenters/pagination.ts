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
