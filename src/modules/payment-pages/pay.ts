import { and, eq, gt, isNull, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import { withoutCommitGuard } from '../../db/commit-guard.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { cardNumbersRefusedMessage, liveProcessorMissingMessage } from '../card-processor/index.ts';
import { validateCard, type PaymentsService, type ValidatedCard } from '../payments/index.ts';
import type { PageTarget } from './read.ts';
import type { PageView, PaymentPageRow } from './view.ts';
import type { CardPaymentInput, PaymentPageResponse } from './schemas.ts';

export type PayOutcome = { outcome: 'PAID'; page: PaymentPageResponse } | { outcome: 'DECLINED'; declineReason: string; page: PaymentPageResponse };

/** Paying a page by card: the claim on the page, the charge through payments, the outcome. */
export function createPagePayment(deps: {
  database: Database;
  clock: Clock;
  payments: PaymentsService;
  requireView: (target: PageTarget) => Promise<PageView>;
  expireInTransaction: (tx: Executor, where: SQL, now: Date, onlyIfDue: boolean) => Promise<PaymentPageRow | null>;
  toResponse: (view: PageView) => PaymentPageResponse;
}) {
  const { database, clock, payments, requireView, expireInTransaction, toResponse } = deps;

  function notPayable(page: PaymentPageRow, now: Date): AppError | null {
    if (page.status === 'PAID') {
      return new AppError('INVALID_STATE', `Payment page ${page.id} is already PAID`);
    }
    if (page.status === 'EXPIRED' || page.expiresAt.getTime() <= now.getTime()) {
      return new AppError('INVALID_STATE', `Payment page ${page.id} has EXPIRED and can no longer be paid`);
    }
    if (page.attemptPaymentId !== null) {
      return new AppError('INVALID_STATE', `A card payment for payment page ${page.id} is in progress; retry in a few seconds`, {}, { 'Retry-After': '2' });
    }
    return null;
  }

  /**
   * The claim: one transaction sets `attempt_payment_id` with a conditional UPDATE and records the
   * PROCESSING payment (with the sandbox form's card description, or none for processor fields).
   * A reservation, settled by the payments module: the Idempotency-Key is marked by the
   * settlement, not here (decision 0004). Throws the reason when the page cannot be claimed.
   */
  async function claim(pageId: string, paymentId: string, now: Date, card: ValidatedCard | null): Promise<PaymentPageRow> {
    const claimed = await withoutCommitGuard(() => database.transaction(async (tx) => {
      const [held] = await tx
        .update(paymentPages)
        .set({ attemptPaymentId: paymentId, updatedAt: now })
        .where(and(eq(paymentPages.id, pageId), eq(paymentPages.status, 'CREATED'), isNull(paymentPages.attemptPaymentId), gt(paymentPages.expiresAt, now)))
        .returning();
      if (held) {
        await payments.recordCheckoutAttempt(tx, { paymentId, merchantId: held.merchantId, livemode: held.livemode, pageId: held.id, customerId: held.customerId, amount: held.amount, currency: held.currency, saveCard: held.subscription !== null, card }, now);
      }
      return held ?? null;
    }));
    if (!claimed) {
      const current = await requireView({ pageId });
      // The page changed between the claim and this read (an attempt ended, say): payable again.
      throw notPayable(current.page, clock.now()) ?? new AppError('INVALID_STATE', `Payment page ${pageId} cannot be paid right now; retry in a second`, {}, { 'Retry-After': '1' });
    }
    return claimed;
  }

  return {
    notPayable,
    claim,

    /**
     * Pays a page by card: the hosted checkout and the sandbox test helper both call this. `target`
     * scopes the lookup (the API passes the merchant and mode; the hosted page only the id).
     */
    async payPage(target: { pageId: string; merchantId?: string; livemode?: boolean }, input: CardPaymentInput): Promise<PayOutcome> {
      const card = validateCard(input, clock.now());
      const view = await requireView(target);
      const { page } = view;
      const now = clock.now();
      if (page.status === 'CREATED' && page.attemptPaymentId === null && page.expiresAt.getTime() <= now.getTime()) {
        await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, page.id), now, true));
      }
      const refusal = notPayable(page, now);
      if (refusal) {
        throw refusal;
      }
      if (!payments.isAvailable(page.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      if (!payments.acceptsCardNumbers(page.livemode)) {
        throw new AppError('FORBIDDEN', cardNumbersRefusedMessage(page.livemode));
      }
      const paymentId = newId('payment', now.getTime());
      const claimed = await claim(page.id, paymentId, now, card);
      const payment = await payments.payWithCard({ paymentId, livemode: claimed.livemode, amount: claimed.amount, currency: claimed.currency, card, saveCard: claimed.subscription !== null });
      const current = toResponse(await requireView({ pageId: page.id }));
      return payment.status === 'SUCCEEDED' ? { outcome: 'PAID', page: current } : { outcome: 'DECLINED', declineReason: payment.declineReason ?? 'processing_error', page: current };
    },
  };
}
