import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { cardTokens, payments } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { Clock } from '../../clock.ts';
import type { ChargeResult } from '../card-processor/index.ts';
import { isLedgerCurrency, type LedgerService } from '../ledger/index.ts';
import { lockPayment, type PaymentRow } from './repository.ts';

/**
 * Runs inside the transaction that settles a payment (PROCESSING → SUCCEEDED or DECLINED, with the
 * saved card when one was asked for): whatever it writes commits with the settlement or not at all,
 * and a throw rolls the settlement back (the resolve job settles it again later). Payment pages use
 * it to mark the page PAID or release their claim.
 */
export type PaymentSettledHook = (tx: Executor, payment: PaymentRow, now: Date) => Promise<void>;

/** The ledger idempotency key of a payment's credit: one credit per payment, ever. */
export function paymentCreditKey(paymentId: string): string {
  return `${paymentId}:payment`;
}

/**
 * A successful payment credits the merchant's balance in its currency (external → available), once
 * per payment (the ledger's idempotency key), in the caller's transaction (the settlement's, or the
 * backfill's for payments settled before card payments were posted). False when it was credited
 * already.
 */
export async function creditMerchant(ledger: Pick<LedgerService, 'post'>, tx: Executor, payment: PaymentRow, now: Date): Promise<boolean> {
  if (!isLedgerCurrency(payment.currency)) {
    throw new Error(`payment ${payment.id} is in ${payment.currency}, which the ledger does not keep`);
  }
  const posted = await ledger.post(
    tx,
    {
      merchantId: payment.merchantId,
      livemode: payment.livemode,
      currency: payment.currency,
      kind: 'payment',
      reference: payment.id,
      idempotencyKey: paymentCreditKey(payment.id),
      postings: [{ source: 'external', destination: 'available', amount: payment.amount }],
    },
    now,
  );
  return posted !== null;
}

/**
 * Settlement: records the processor's final answer for a PROCESSING payment under a row lock —
 * SUCCEEDED (with the saved card when the processor returned a token) or DECLINED — credits the
 * merchant's balance for a success, and runs the settled hooks in the same transaction.
 */
export function createSettlement(deps: { database: Database; clock: Clock; settledHooks: readonly PaymentSettledHook[]; ledger: Pick<LedgerService, 'post'> }) {
  const { database, clock, settledHooks, ledger } = deps;

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
        const { bin, last4, scheme, cardType, issuer, expMonth, expYear } = result.card;
        // What the processor reports of the card: stored on the payment and on its saved card alike.
        const cardDescription = { bin, last4, scheme, cardType, issuer, expMonth, expYear };
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
            ...cardDescription,
            createdAt: now,
          });
        }
        [settled] = await tx
          .update(payments)
          .set({
            status: 'SUCCEEDED',
            processorReference: result.processorReference,
            networkTransactionId: result.networkTransactionId,
            ...cardDescription,
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
      if (settled.status === 'SUCCEEDED') {
        await creditMerchant(ledger, tx, settled, now);
      }
      for (const hook of settledHooks) {
        await hook(tx, settled, now);
      }
      return settled;
    });
  }

  return settle;
}
