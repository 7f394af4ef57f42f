import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { KeyRing } from '../crypto/keyring.ts';
import { wrongParameter } from './errors.ts';

/**
 * Keyset paging over (createdAt, id), newest first: a page ends where the next one starts, so rows
 * inserted meanwhile never shift or repeat a page (offsets would). `nextCursor` is opaque and
 * tamper-evident (HMAC with a key derived from the key ring); `startingAfter` also accepts the id of
 * the last row seen, Stripe-style.
 */
export interface PagePosition {
  createdAt: Date;
  id: string;
}

export interface CursorCodec {
  encode(position: PagePosition): string;
  /** The position, or null when the token is not one of ours (or was made for another list). */
  decode(token: string): PagePosition | null;
}

export function createCursorCodec(keyRing: KeyRing, list: string): CursorCodec {
  return codecWith(keyRing.deriveKey(`cursor:${list}`), '');
}

/**
 * A list's cursors bound to who asked and how: `bind({ merchantId, livemode, ...filters })` gives the
 * codec of that one list, so a cursor made for another merchant, mode or filter set does not decode
 * (its MAC covers the binding). One key per list, derived once.
 */
export function createBoundCursorCodecs(keyRing: KeyRing, list: string): (binding: Record<string, string | number | boolean | undefined>) => CursorCodec {
  const key = keyRing.deriveKey(`cursor:${list}`);
  return (binding) => {
    const canonical = JSON.stringify(
      Object.keys(binding)
        .sort()
        .map((name) => [name, binding[name] ?? null]),
    );
    return codecWith(key, `${canonical}\n`);
  };
}

function codecWith(key: Buffer, context: string): CursorCodec {
  const mac = (payload: string) =>
    createHmac('sha256', key)
      .update(context + payload)
      .digest()
      .subarray(0, 16);
  return {
    encode(position) {
      const payload = Buffer.from(JSON.stringify([position.createdAt.getTime(), position.id])).toString('base64url');
      return `${payload}.${mac(payload).toString('base64url')}`;
    },
    decode(token) {
      const [payload, signature, extra] = token.split('.');
      if (!payload || !signature || extra !== undefined) {
        return null;
      }
      const given = Buffer.from(signature, 'base64url');
      const expected = mac(payload);
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
        return null;
      }
      try {
        const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
        if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
          return { createdAt: new Date(value[0] as number), id: value[1] };
        }
      } catch {
        return null;
      }
      return null;
    },
  };
}

/** Rows strictly after `position` in newest-first order. */
export function olderThan(createdAt: PgColumn, id: PgColumn, position: PagePosition): SQL {
  return sql`(${createdAt}, ${id}) < (${position.createdAt}, ${position.id})`;
}

/** Splits one extra fetched row off into `hasMore` and the next cursor. */
export function pageOf<T extends { createdAt: Date; id: string }>(rows: T[], limit: number, codec: CursorCodec): { items: T[]; hasMore: boolean; nextCursor?: string } {
  const hasMore = rows.length > limit;
  const items = hasMore ? rows.slice(0, limit) : rows;
  const last = items[items.length - 1];
  return hasMore && last ? { items, hasMore, nextCursor: codec.encode({ createdAt: last.createdAt, id: last.id }) } : { items, hasMore };
}

/** The first and last instants a stored timestamp can hold here (years 1 to 9999; the API accepts any JavaScript date). */
const earliestStored = -62_135_596_800_000; // 0001-01-01T00:00:00.000Z
const latestStored = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z

/**
 * `createdFrom` ≤ createdAt ≤ `createdTo` (epoch ms, both optional, both inclusive); a reversed range
 * names `createdTo`. A bound beyond the dates a row can have is no bound at all (or, past the other
 * end, matches nothing), so the database never sees a date it cannot represent (PostgreSQL's
 * timestamps end in 294276 AD and start in 4713 BC; JavaScript's dates reach ±271821).
 */
export function createdBetween(createdAt: PgColumn, range: { createdFrom?: number | undefined; createdTo?: number | undefined }): SQL[] {
  const { createdFrom, createdTo } = range;
  if (createdFrom !== undefined && createdTo !== undefined && createdTo < createdFrom) {
    throw wrongParameter('createdTo', 'must not be before createdFrom');
  }
  if ((createdFrom !== undefined && createdFrom > latestStored) || (createdTo !== undefined && createdTo < earliestStored)) {
    return [sql`false`];
  }
  return [
    ...(createdFrom === undefined || createdFrom <= earliestStored ? [] : [sql`${createdAt} >= ${new Date(createdFrom)}`]),
    ...(createdTo === undefined || createdTo >= latestStored ? [] : [sql`${createdAt} <= ${new Date(createdTo)}`]),
  ];
}

/**
 * One keyset page of a list: `startingAfter` is a cursor of this very list (`codec`, bound to its
 * merchant, mode and filters) or the id of one of its rows (`find`, same scope and filters); anything
 * else is 400 WRONG_PARAMETER naming `startingAfter`. `fetch` reads up to `limit` rows after the
 * position, newest first.
 */
export async function keysetPage<T extends PagePosition>(options: {
  input: { limit?: number | undefined; startingAfter?: string | undefined };
  codec: CursorCodec;
  isOwnId: (value: string) => boolean;
  find: (id: string) => Promise<PagePosition | null>;
  fetch: (after: PagePosition | undefined, limit: number) => Promise<T[]>;
}): Promise<{ items: T[]; hasMore: boolean; nextCursor?: string }> {
  const limit = options.input.limit ?? 20;
  const token = options.input.startingAfter;
  const after =
    token === undefined ? undefined : await startingAfterPosition(token, { ...options, expected: 'the nextCursor of a previous page of this same list (same filters and mode) or the id of one of its items' });
  return pageOf(await options.fetch(after, limit + 1), limit, options.codec);
}

/**
 * Where `startingAfter` says a page starts: after the list's own row of that id (`find`, in the list's
 * scope) when it has the list's id prefix (`isOwnId`), else after the position of one of the list's
 * cursors (`codec`). Anything else is 400 WRONG_PARAMETER naming `startingAfter`: it must be `expected`.
 */
export async function startingAfterPosition(
  token: string,
  options: { codec: CursorCodec; isOwnId: (value: string) => boolean; find: (id: string) => Promise<PagePosition | null | undefined>; expected: string },
): Promise<PagePosition> {
  const position = options.isOwnId(token) ? await options.find(token) : options.codec.decode(token);
  if (!position) {
    throw wrongParameter('startingAfter', `must be ${options.expected}`);
  }
  return position;
}
