import type { Database } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { liveProcessorMissingMessage, type ProcessorsByMode } from '../card-processor/index.ts';
import { processorTimeoutMs, withTimeout, type createAttemptRecovery } from './attempts.ts';
import { payinDetailsOf } from './card.ts';
import { findCardToken, findPayment } from './repository.ts';
import type { createSettlement } from './settle.ts';
import type { PayinDetailsResponse } from './schemas.ts';

/** Renewals: a saved card charged without the customer (subscriptions), recorded as a RENEWAL payment. */
export function createRenewalCharges(deps: {
  database: Database;
  clock: Clock;
  cardProcessor: ProcessorsByMode;
  settle: ReturnType<typeof createSettlement>;
  scheduleResolve: ReturnType<typeof createAttemptRecovery>['scheduleResolve'];
}) {
  const { database, clock, cardProcessor, settle, scheduleResolve } = deps;
  return {
    /**
     * Charges a saved card (subscription renewals) and records the payment (kind RENEWAL). Pass a
     * `paymentId` you generated and kept to make a retry safe: the processor and this record are
     * both idempotent by it. Runs its own transactions (the processor call sits between them).
     */
    async chargeSavedCard(input: { merchantId: string; livemode: boolean; cardTokenId: string; amount: number; currency: string; pageId?: string | null; paymentId?: string }): Promise<{ paymentId: string; status: 'SUCCEEDED' | 'DECLINED'; declineReason: string | null; payinDetails: PayinDetailsResponse | null }> {
      const now = clock.now();
      const token = await findCardToken(database.db, input.cardTokenId);
      if (!token || token.merchantId !== input.merchantId || token.livemode !== input.livemode) {
        throw notFound('card token', input.cardTokenId);
      }
      if (!cardProcessor.isAvailable(input.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      const paymentId = input.paymentId ?? newId('payment', now.getTime());
      await database.transaction(async (tx) => {
        const inserted = await tx
          .insert(payments)
          .values({
            id: paymentId,
            merchantId: token.merchantId,
            livemode: token.livemode,
            kind: 'RENEWAL',
            pageId: input.pageId ?? null,
            customerId: token.customerId,
            amount: input.amount,
            currency: input.currency,
            status: 'PROCESSING',
            processor: token.processor,
            bin: token.bin,
            last4: token.last4,
            scheme: token.scheme,
            cardType: token.cardType,
            issuer: token.issuer,
            expMonth: token.expMonth,
            expYear: token.expYear,
            cardTokenId: token.id,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning({ id: payments.id });
        if (inserted.length === 1) {
          await scheduleResolve(tx, paymentId, now);
        }
      });
      const existing = await findPayment(database.db, paymentId);
      if (existing && existing.status === 'PROCESSING') {
        const result = await withTimeout(cardProcessor.chargeSaved({ paymentId, livemode: token.livemode, amount: input.amount, currency: input.currency, token: token.processorToken }), processorTimeoutMs);
        await settle(paymentId, result);
      }
      const payment = await findPayment(database.db, paymentId);
      if (!payment || payment.status === 'PROCESSING') {
        throw new AppError('SERVICE_UNAVAILABLE', 'The renewal charge could not be confirmed; retry with the same paymentId', {}, { 'Retry-After': '5' });
      }
      return {
        paymentId,
        status: payment.status,
        declineReason: payment.declineReason,
        payinDetails: payment.status === 'SUCCEEDED' ? payinDetailsOf(payment) : null,
      };
    },
  };
}
