import { and, asc, desc, eq, gt, lte, or, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { entitlements } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { Clock } from '../../clock.ts';
import { recordEvent } from '../events/index.ts';
import { decodeCursor, encodeCursor, type CursorScope } from './cursor.ts';
import { maxPageSize, type EntitlementResponse, type EntitlementsPageResponse, type EntitlementsQueryInput } from './schemas.ts';

export type EntitlementRow = typeof entitlements.$inferSelect;

/** `<subscriptionId>-<startPeriod>-<endPeriod>` in epoch milliseconds (docs/guides/entitlements.md, Entitlements). */
export function entitlementKey(subscriptionId: string, startPeriod: Date, endPeriod: Date): string {
  return `${subscriptionId}-${startPeriod.getTime()}-${endPeriod.getTime()}`;
}

export function toEntitlementResponse(row: EntitlementRow): EntitlementResponse {
  return {
    id: row.id,
    createdAt: row.createdAt.getTime(),
    ...(row.updatedAt ? { updatedAt: row.updatedAt.getTime() } : {}),
    subscriptionId: row.subscriptionId,
    productId: row.productId,
    ...(row.invoiceId ? { invoiceId: row.invoiceId } : {}),
    livemode: row.livemode,
    customerId: row.customerId,
    merchantId: row.merchantId,
    startPeriod: row.startPeriod.getTime(),
    endPeriod: row.endPeriod.getTime(),
    idempotencyKey: row.idempotencyKey,
  };
}

export interface NewEntitlement {
  merchantId: string;
  livemode: boolean;
  customerId: string;
  subscriptionId: string;
  productId: string;
  invoiceId: string;
  startPeriod: Date;
  endPeriod: Date;
}

export const entitlementsCursorPurpose = 'entitlements-cursor';

export function createEntitlementsService(deps: { database: Database; clock: Clock; keyRing: KeyRing }) {
  const { database, clock } = deps;
  const cursorKey = deps.keyRing.deriveKey(entitlementsCursorPurpose);

  return {
    /**
     * Grants one period's entitlement and records ENTITLEMENT_CREATED, in the caller's transaction.
     * The unique idempotency key makes a second entitlement for the same period impossible: a
     * duplicate insert fails the whole transaction rather than being skipped silently.
     */
    async createEntitlement(tx: Executor, input: NewEntitlement, now: Date): Promise<EntitlementResponse> {
      const [row] = await tx
        .insert(entitlements)
        .values({ id: newId('entitlement', now.getTime()), ...input, idempotencyKey: entitlementKey(input.subscriptionId, input.startPeriod, input.endPeriod), createdAt: now, updatedAt: null })
        .returning();
      if (!row) {
        throw new Error('entitlement insert returned nothing');
      }
      const entitlement = toEntitlementResponse(row);
      await recordEvent(tx, now, { merchantId: row.merchantId, livemode: row.livemode, type: 'ENTITLEMENT_CREATED', data: entitlement });
      return entitlement;
    },

    /**
     * Ends a period's entitlement early (the sandbox renewal helper ends the current period now). The
     * key follows the period, so it keeps naming the period the entitlement covers.
     */
    async shortenEntitlement(tx: Executor, subscriptionId: string, period: { start: Date; end: Date }, newEnd: Date, now: Date): Promise<void> {
      await tx
        .update(entitlements)
        .set({ endPeriod: newEnd, idempotencyKey: entitlementKey(subscriptionId, period.start, newEnd), updatedAt: now })
        .where(eq(entitlements.idempotencyKey, entitlementKey(subscriptionId, period.start, period.end)));
    },

    /**
     * One page of a merchant's entitlements, by keyset over (created_at, id): stable while rows are
     * inserted, and every page costs the same however deep it is.
     */
    async listEntitlements(merchantId: string, livemode: boolean | undefined, query: EntitlementsQueryInput): Promise<EntitlementsPageResponse> {
      const sort = query.sort ?? 'asc';
      const limit = query.limit ?? maxPageSize;
      const scope: CursorScope = { merchantId, subscriptionId: query.subscriptionId, customerId: query.customerId, isActive: query.isActive, livemode, sort };
      const after = query.cursorToken === undefined ? null : decodeCursor(cursorKey, scope, query.cursorToken);
      const now = clock.now();

      const conditions: SQL[] = [eq(entitlements.merchantId, merchantId)];
      if (livemode !== undefined) {
        conditions.push(eq(entitlements.livemode, livemode));
      }
      if (query.subscriptionId !== undefined) {
        conditions.push(eq(entitlements.subscriptionId, query.subscriptionId));
      }
      if (query.customerId !== undefined) {
        conditions.push(eq(entitlements.customerId, query.customerId));
      }
      if (query.isActive === true) {
        conditions.push(and(lte(entitlements.startPeriod, now), gt(entitlements.endPeriod, now)) as SQL);
      } else if (query.isActive === false) {
        conditions.push(or(gt(entitlements.startPeriod, now), lte(entitlements.endPeriod, now)) as SQL);
      }
      if (after) {
        // A row comparison, so PostgreSQL uses it as an index condition on (…, created_at, id).
        const position = sql`(${after.createdAt.toISOString()}::timestamptz, ${after.id}::text)`;
        conditions.push(sort === 'asc' ? sql`(${entitlements.createdAt}, ${entitlements.id}) > ${position}` : sql`(${entitlements.createdAt}, ${entitlements.id}) < ${position}`);
      }
      const direction = sort === 'asc' ? asc : desc;
      const rows = await database.db
        .select()
        .from(entitlements)
        .where(and(...conditions))
        .orderBy(direction(entitlements.createdAt), direction(entitlements.id))
        .limit(limit + 1);

      const hasMore = rows.length > limit;
      const page = hasMore ? rows.slice(0, limit) : rows;
      const last = page.at(-1);
      return {
        entitlements: page.map(toEntitlementResponse),
        hasMore,
        ...(hasMore && last ? { nextPageToken: encodeCursor(cursorKey, scope, { createdAt: last.createdAt, id: last.id }) } : {}),
      };
    },
  };
}

export type EntitlementsService = ReturnType<typeof createEntitlementsService>;
