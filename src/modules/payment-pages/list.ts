import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import { isId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { createBoundCursorCodecs, createdBetween, keysetPage, olderThan } from '../../http/paging.ts';
import { customerReferenceId } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { findPayments } from '../payments/index.ts';
import type { PaymentPageListInput, PaymentPageListView } from './schemas.ts';
import { pageResponse } from './view.ts';

/** `GET /v1/payment_pages`: newest first, keyset-paged like `GET /v1/events`, each page as its GET answers it. */
export function createPaymentPageList(deps: { database: Database; keyRing: KeyRing; publicUrl: string }) {
  const { database, keyRing, publicUrl } = deps;
  const cursors = createBoundCursorCodecs(keyRing, 'payment_pages');
  return {
    async listPages(merchant: Merchant, livemode: boolean | undefined, input: PaymentPageListInput): Promise<PaymentPageListView> {
      const conditions: SQL[] = [
        eq(paymentPages.merchantId, merchant.id),
        ...(livemode === undefined ? [] : [eq(paymentPages.livemode, livemode)]),
        ...(input.clientReferenceId === undefined ? [] : [eq(paymentPages.clientReferenceId, input.clientReferenceId)]),
        ...(input.customerId === undefined ? [] : [eq(paymentPages.customerId, input.customerId)]),
        ...(input.status === undefined ? [] : [eq(paymentPages.status, input.status)]),
        ...createdBetween(paymentPages.createdAt, input),
      ];
      const { clientReferenceId, customerId, status, createdFrom, createdTo } = input;
      const page = await keysetPage({
        input,
        codec: cursors({ merchantId: merchant.id, livemode, clientReferenceId, customerId, status, createdFrom, createdTo }),
        isOwnId: (value) => isId('paymentPage', value),
        find: async (id) => {
          const [row] = await database.db
            .select({ createdAt: paymentPages.createdAt, id: paymentPages.id })
            .from(paymentPages)
            .where(and(...conditions, eq(paymentPages.id, id)));
          return row ?? null;
        },
        fetch: async (after, count) => {
          const rows = await database.db
            .select({ page: paymentPages, customerReferenceId: customerReferenceId(paymentPages.customerId) })
            .from(paymentPages)
            .where(and(...conditions, ...(after ? [olderThan(paymentPages.createdAt, paymentPages.id, after)] : [])))
            .orderBy(desc(paymentPages.createdAt), desc(paymentPages.id))
            .limit(count);
          // The paid pages' payments, from their owner (none asked for when no page of this page of the list is paid).
          const paid = new Map((await findPayments(database.db, rows.flatMap(({ page }) => (page.paymentId ? [page.paymentId] : [])))).map((payment) => [payment.id, payment]));
          return rows.map((row) => ({ ...row, payment: (row.page.paymentId && paid.get(row.page.paymentId)) || null, createdAt: row.page.createdAt, id: row.page.id }));
        },
      });
      return {
        paymentPages: page.items.map((view) => pageResponse(keyRing, publicUrl, view)),
        hasMore: page.hasMore,
        ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}),
      };
    },
  };
}
