import { and, eq, isNull, lt, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { recordEvent } from '../events/index.ts';
import type { Merchant } from '../merchants/index.ts';
import type { PaymentsService } from '../payments/index.ts';
import { pageScope, type PageTarget } from './read.ts';
import type { PageView, PaymentPageRow } from './view.ts';
import type { PaymentPageResponse } from './schemas.ts';

export const paymentPageExpireQueue = 'payment-pages.expire';

/** How long an expire waits for an in-flight payment attempt to settle before answering 409. */
const expireWaitMs = 5_000;
const expireRetryAfterBusyMs = 5_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Expiry: by the merchant (`expirePage`), by the job at `expiresAt`, and when a payment finds the page past it. */
export function createPageExpiry(deps: {
  database: Database;
  clock: Clock;
  payments: Pick<PaymentsService, 'closeSession'>;
  requireView: (target: PageTarget) => Promise<PageView>;
  toResponse: (view: PageView) => PaymentPageResponse;
}) {
  const { database, clock, payments, requireView, toResponse } = deps;

  /** CREATED → EXPIRED if no attempt holds the page (and, with `onlyIfDue`, expiresAt has passed). */
  async function expireInTransaction(tx: Executor, where: SQL, now: Date, onlyIfDue: boolean): Promise<PaymentPageRow | null> {
    const conditions = [where, eq(paymentPages.status, 'CREATED'), isNull(paymentPages.attemptPaymentId)];
    if (onlyIfDue) {
      conditions.push(lt(paymentPages.expiresAt, new Date(now.getTime() + 1)));
    }
    const [expired] = await tx
      .update(paymentPages)
      .set({ status: 'EXPIRED', expiredAt: now, updatedAt: now })
      .where(and(...conditions))
      .returning();
    if (!expired) {
      return null;
    }
    await recordEvent(tx, now, {
      merchantId: expired.merchantId,
      livemode: expired.livemode,
      type: 'PAYMENT_EXPIRED',
      data: { pageId: expired.id, clientReferenceId: expired.clientReferenceId },
    });
    return expired;
  }

  return {
    expireInTransaction,

    /**
     * CREATED → EXPIRED (one PAYMENT_EXPIRED); EXPIRED → the same page again; PAID → 400. A page
     * held by an in-flight payment attempt is waited for (briefly): the attempt decides.
     */
    async expirePage(merchant: Merchant, livemode: boolean | undefined, pageId: string): Promise<PaymentPageResponse> {
      const where = pageScope(merchant.id, livemode, pageId);
      const deadline = Date.now() + expireWaitMs;
      let closedSession: string | null = null;
      for (;;) {
        await database.transaction((tx) => expireInTransaction(tx, where, clock.now(), false));
        const view = await requireView({ pageId, merchantId: merchant.id, livemode });
        if (view.page.status === 'EXPIRED') {
          return toResponse(view);
        }
        if (view.page.status === 'PAID') {
          throw new AppError('WRONG_PARAMETER', `Payment page ${pageId} is already PAID and cannot be expired`, { field: 'pageId' });
        }
        if (view.page.attemptPaymentId !== null) {
          // A processor-hosted session is canceled at the processor, once (a payment completed meanwhile wins).
          if (closedSession !== view.page.attemptPaymentId) {
            closedSession = view.page.attemptPaymentId;
            const attempt = await payments.closeSession(closedSession);
            if (attempt && attempt.status !== 'PROCESSING') {
              continue;
            }
          }
          if (Date.now() >= deadline) {
            throw new AppError('INVALID_STATE', `A card payment for payment page ${pageId} is in progress; retry the expire in a few seconds`, {}, { 'Retry-After': '2' });
          }
          await sleep(20);
        }
      }
    },

    /** Expires the page at `expiresAt` (scheduled with the page); waits out an in-flight attempt. */
    expireJob(): JobDefinition<{ pageId: string }> {
      return {
        queue: paymentPageExpireQueue,
        maxAttempts: 20,
        handle: async ({ pageId }) => {
          const now = clock.now();
          const expired = await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, pageId), now, true));
          if (expired) {
            return;
          }
          const [page] = await database.db.select().from(paymentPages).where(eq(paymentPages.id, pageId));
          if (!page || page.status !== 'CREATED') {
            return;
          }
          if (page.attemptPaymentId !== null) {
            // The page's time is up: an open session is closed at the processor, then the page expires.
            const attempt = await payments.closeSession(page.attemptPaymentId);
            if (attempt && attempt.status !== 'PROCESSING') {
              await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, pageId), clock.now(), true));
              return;
            }
            return { rescheduleAt: new Date(now.getTime() + expireRetryAfterBusyMs) };
          }
          return { rescheduleAt: page.expiresAt };
        },
      };
    },
  };
}
