import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { cardTokens, payments } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { Clock } from '../../jobs/worker.ts';
import type { ChargeResult } from '../card-processor/types.ts';
import { lockPayment, type PaymentRow } from './repository.ts';

/**
 * Runs inside the transaction that settles a payment (PROCESSING → SUCCEEDED or DECLINED, with the
 * saved card when one was asked for): whatever it writes commits with the settlement or not at all,
 * and a throw rolls the settlement back (the resolve job settles it again later). Payment pages use
 * it to mark the page PAID or release their claim.
 */
export type PaymentSettledHook = (tx: Executor, payment: PaymentRow, now: Date) => Promise<void>;

/**
 * Settlement: records the processor's final answer for a PROCESSING payment under a row lock —
 * SUCCEEDED (with the saved card when the processor returned a token) or DECLINED — and runs the
 * settled hooks in the same transaction.
 */
export function createSettlement(deps: { database: Database; clock: Clock; settledHooks: readonly PaymentSettledHook[] }) {
  const { database, clock, settledHooks } = deps;
  /** Records the processor's answer for a PROCESSING payment; one no longer PROCESSING is left alone (null). */
  async function settle(paymentId: string, result: ChargeResult): Promise<PaymentRow | null> {
    return database.transaction(async (tx) => {
      const now = clock.now();
      const payment = await lockPayment(tx, paymentId);
      if (!payment || payment.status !== 'PROCESSING') {
        return null;
      }
      const renewal = payment.kind === 'RENEWAL' || payment.pageId === null;
      let settled: PaymentRow | undefined;
      if (result.status === 'DECLINED') {
        const described = result.card && payment.bin === '' ? { bin: result.card.bin, last4: result.card.last4, expMonth: result.card.expMonth, expYear: result.card.expYear } : {};
        const card = renewal ? {} : { scheme: result.card?.scheme ?? null, cardType: result.card?.cardType ?? null, issuer: result.card?.issuer ?? null, ...described };
        [settled] = await tx
          .update(payments)
          .set({ status: 'DECLINED', declineReason: result.declineReason, ...card, decidedAt: now, updatedAt: now })
          .where(and(eq(payments.id, paymentId), eq(payments.status, 'PROCESSING')))
          .returning();
      } else {
        let cardTokenId = payment.cardTokenId;
        if (result.token && !renewal) {
          cardTokenId = newId('cardToken', now.getTime());
          await tx.insert(cardTokens).values({
            id: cardTokenId,
            merchantId: payment.merchantId,
            livemode: payment.livemode,
            customerId: payment.customerId,
            processor: payment.processor,
            processorToken: result.token,
            paymentId,
            bin: result.card.bin,
            last4: result.card.last4,
            scheme: result.card.scheme,
            cardType: result.card.cardType,
            issuer: result.card.issuer,
            expMonth: result.card.expMonth,
            expYear: result.card.expYear,
            createdAt: now,
          });
        }
        [settled] = await tx
          .update(payments)
          .set({
            status: 'SUCCEEDED',
            processorReference: result.processorReference,
            networkTransactionId: result.networkTransactionId,
            bin: result.card.bin,
            last4: result.card.last4,
            scheme: result.card.scheme,
            cardType: result.card.cardType,
            issuer: result.card.issuer,
            expMonth: result.card.expMonth,
            expYear: result.card.expYear,
            cardTokenId,
            decidedAt: now,
            updatedAt: now,
          })
          .where(and(eq(payments.id, paymentId), eq(payments.status, 'PROCESSING')))
          .returning();
      }
      if (!settled) {
        throw new Error(`payment ${paymentId} vanished while settling`);
      }
      for (const hook of settledHooks) {
        await hook(tx, settled, now);
      }
      return settled;
    });
  }

  return settle;
}
