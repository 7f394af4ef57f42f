import { and, desc, eq, type SQL } from 'drizzle-orm';
import { payoutPages } from '../../db/schema/index.ts';
import { isId } from '../../crypto/ids.ts';
import { createBoundCursorCodecs, createdBetween, keysetPage, olderThan } from '../../http/paging.ts';
import type { Merchant } from '../merchants/index.ts';
import type { PayoutPageListInput, PayoutPageListView } from './schemas.ts';
import type { PayoutPagesDeps, PayoutTransitions } from './transitions.ts';

/** `GET /v1/payout_pages`: newest first, keyset-paged like `GET /v1/events`, each page as its GET answers it. */
export function createPayoutPageList(deps: PayoutPagesDeps, transitions: PayoutTransitions) {
  const cursors = createBoundCursorCodecs(deps.keyRing, 'payout_pages');
  return {
    async listPayoutPages(merchant: Merchant, livemode: boolean | undefined, input: PayoutPageListInput): Promise<PayoutPageListView> {
      const conditions: SQL[] = [
        eq(payoutPages.merchantId, merchant.id),
        ...(livemode === undefined ? [] : [eq(payoutPages.livemode, livemode)]),
        ...(input.clientReferenceId === undefined ? [] : [eq(payoutPages.clientReferenceId, input.clientReferenceId)]),
        ...(input.customerId === undefined ? [] : [eq(payoutPages.customerId, input.customerId)]),
        ...(input.status === undefined ? [] : [eq(payoutPages.status, input.status)]),
        ...createdBetween(payoutPages.createdAt, input),
      ];
      const { clientReferenceId, customerId, status, createdFrom, createdTo } = input;
      const page = await keysetPage({
        input,
        codec: cursors({ merchantId: merchant.id, livemode, clientReferenceId, customerId, status, createdFrom, createdTo }),
        isOwnId: (value) => isId('payoutPage', value),
        find: async (id) => {
          const [row] = await deps.database.db
            .select({ createdAt: payoutPages.createdAt, id: payoutPages.id })
            .from(payoutPages)
            .where(and(...conditions, eq(payoutPages.id, id)));
          return row ?? null;
        },
        fetch: (after, count) =>
          deps.database.db
            .select()
            .from(payoutPages)
            .where(and(...conditions, ...(after ? [olderThan(payoutPages.createdAt, payoutPages.id, after)] : [])))
            .orderBy(desc(payoutPages.createdAt), desc(payoutPages.id))
            .limit(count),
      });
      return { payoutPages: page.items.map(transitions.toResponse), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  };
}
