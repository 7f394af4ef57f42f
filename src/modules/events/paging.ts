import { createHmac, timingSafeEqual } from 'node:crypto';
import { sql, type SQL } from 'drizzle-orm';
import type { PgColumn } from 'drizzle-orm/pg-core';
import type { KeyRing } from '../../crypto/keyring.ts';

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
  const key = keyRing.deriveKey(`cursor:${list}`);
  const mac = (payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);
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
