import { and, eq, isNull } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/client.ts';
import { cardTokens, payments } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, sealFields } from '../../crypto/pii.ts';
import type { ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock } from '../../jobs/worker.ts';
import type { CustomersService } from '../customers/service.ts';
import type { LedgerService } from '../ledger/service.ts';
import { isLedgerCurrency } from '../ledger/postings.ts';
import { liveProcessorMissingMessage, type CardProcessorRouter } from '../card-processor/router.ts';
import type { CardDetails, ChargeResult, PaymentSession, RefundState } from '../card-processor/types.ts';
import { payinDetailsOf, type ValidatedCard } from './card.ts';
import { createResolveAttemptJob, paymentAttemptResolveQueue } from './jobs.ts';
import { findCardToken, findPayment, findPaymentsForFraud, lockPayment, paymentLocation, reencryptPayments, type PaymentRow } from './repository.ts';
import type { PayinDetailsResponse } from './schemas.ts';

/**
 * Runs inside the transaction that settles a payment (PROCESSING → SUCCEEDED or DECLINED, with the
 * saved card when one was asked for): whatever it writes commits with the settlement or not at all,
 * and a throw rolls the settlement back (the resolve job settles it again later). Payment pages use
 * it to mark the page PAID or release their claim.
 */
export type PaymentSettledHook = (tx: Executor, payment: PaymentRow, now: Date) => Promise<void>;

/** The customer e-mail a checkout payment was made under (its page's), for fraud reports. */
export type CheckoutContact = (executor: Executor, pageId: string) => Promise<string>;

/** The processor call is abandoned after this long… */
const processorTimeoutMs = 30_000;
/** …so an attempt still unsettled after this long has either reached the processor or never will. */
const attemptRecoveryDelayMs = 2 * 60_000;

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`card processor did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Card payments: one row per attempt (`CHECKOUT` for a payment page, `RENEWAL` on a saved card),
 * charged through the card-processor port and settled exactly once.
 *
 * An attempt is recorded PROCESSING (with a resolve-attempt job scheduled in the same transaction),
 * the processor is called outside any transaction (idempotent by payment id), and the answer is
 * settled under a row lock: SUCCEEDED (with the saved card when the processor returned a token) or
 * DECLINED, with the settled hooks in the same transaction. A lost answer (crash, timeout) is
 * settled by the resolve job from the processor's own record, never guessed.
 */
export function createPaymentsService(deps: { database: Database; clock: Clock; keyRing: KeyRing; customers: CustomersService; cardProcessor: CardProcessorRouter; ledger: Pick<LedgerService, 'post'>; logger: Logger }) {
  const { database, clock, keyRing, customers, cardProcessor, ledger, logger } = deps;
  const settledHooks: PaymentSettledHook[] = [];
  let checkoutContact: CheckoutContact | null = null;

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
      if (settled.status === 'SUCCEEDED') {
        await creditMerchant(tx, settled, now);
      }
      for (const hook of settledHooks) {
        await hook(tx, settled, now);
      }
      return settled;
    });
  }

  /**
   * A successful payment credits the merchant's balance in its currency (external → available), once
   * per payment (the ledger's idempotency key), in the settlement's transaction.
   */
  async function creditMerchant(tx: Executor, payment: PaymentRow, now: Date): Promise<void> {
    if (!isLedgerCurrency(payment.currency)) {
      throw new Error(`payment ${payment.id} is in ${payment.currency}, which the ledger does not keep`);
    }
    await ledger.post(
      tx,
      {
        merchantId: payment.merchantId,
        livemode: payment.livemode,
        currency: payment.currency,
        kind: 'payment',
        reference: payment.id,
        idempotencyKey: `${payment.id}:payment`,
        postings: [{ source: 'external', destination: 'available', amount: payment.amount }],
      },
      now,
    );
  }

  /**
   * Asks the processor where an attempt stands and makes it final: never received → DECLINED
   * (processing_error); still waiting for the customer → canceled at the processor, which answers
   * the final state (a confirmation that got there first wins).
   */
  async function recoverResult(paymentId: string, livemode: boolean, processorReference: string | null = null): Promise<ChargeResult> {
    const state = await cardProcessor.retrievePayment({ paymentId, livemode, processorReference });
    if (state === null) {
      return { status: 'DECLINED', declineReason: 'processing_error', card: null };
    }
    return state.status === 'PENDING' ? cardProcessor.cancelPayment({ paymentId, livemode }) : state;
  }

  function scheduleResolve(tx: Executor, paymentId: string, now: Date): Promise<string | null> {
    return enqueueJob(tx, now, paymentAttemptResolveQueue, { paymentId }, { runAt: new Date(now.getTime() + attemptRecoveryDelayMs), dedupeKey: `${paymentAttemptResolveQueue}:${paymentId}` });
  }

  async function settledPayment(paymentId: string): Promise<PaymentRow> {
    const payment = await findPayment(database.db, paymentId);
    if (!payment) {
      throw new Error(`payment ${paymentId} vanished`);
    }
    return payment;
  }

  return {
    /** Registers a hook called inside each settlement transaction (see PaymentSettledHook). */
    onSettled(hook: PaymentSettledHook): void {
      settledHooks.push(hook);
    },

    /** Payment pages tell fraud reports which e-mail a checkout payment was made under. */
    useCheckoutContact(contact: CheckoutContact): void {
      checkoutContact = contact;
    },

    /** False for live mode when no live processor is configured. */
    isAvailable: (livemode: boolean) => cardProcessor.isAvailable(livemode),

    find: (executor: Executor, paymentId: string) => findPayment(executor, paymentId),

    /**
     * Records a PROCESSING checkout attempt (card description only: the number and CVC are never
     * stored) and schedules its resolve job, inside the caller's transaction (the page claim).
     */
    async recordCheckoutAttempt(tx: Executor, attempt: { paymentId: string; merchantId: string; livemode: boolean; pageId: string; customerId: string; amount: number; currency: string; card: ValidatedCard | null }, now: Date): Promise<void> {
      const { paymentId, card } = attempt;
      await tx.insert(payments).values({
        id: paymentId,
        merchantId: attempt.merchantId,
        livemode: attempt.livemode,
        kind: 'CHECKOUT',
        pageId: attempt.pageId,
        customerId: attempt.customerId,
        amount: attempt.amount,
        currency: attempt.currency,
        status: 'PROCESSING',
        processor: cardProcessor.processorName(attempt.livemode),
        // Known up front only from the sandbox form; a processor's fields report the card at settlement.
        bin: card ? card.number.slice(0, 6) : '',
        last4: card ? card.number.slice(-4) : '',
        expMonth: card ? card.expMonth : 0,
        expYear: card ? card.expYear : 0,
        cardholderNameCiphertext: card ? (sealFields(keyRing, paymentLocation({ merchantId: attempt.merchantId, id: paymentId }), { cardholderName: card.cardholderName }).cardholderName ?? null) : null,
        createdAt: now,
        updatedAt: now,
      });
      await scheduleResolve(tx, paymentId, now);
    },

    /** Creates the processor's payment for a recorded attempt (idempotent by payment id): what the browser confirms. */
    async openSession(input: { paymentId: string; livemode: boolean; amount: number; currency: string; saveCard: boolean }): Promise<PaymentSession> {
      const session = await withTimeout(cardProcessor.createPayment(input), processorTimeoutMs);
      // The processor's id makes later lookups direct (a search by our id stays the fallback).
      await database.db
        .update(payments)
        .set({ processorReference: session.processorReference })
        .where(and(eq(payments.id, input.paymentId), eq(payments.status, 'PROCESSING'), isNull(payments.processorReference)));
      return session;
    },

    /** The sandbox card form is available for `livemode` (never in live mode: no card number reaches Paysail there). */
    acceptsCardNumbers: (livemode: boolean) => cardProcessor.cardForm(livemode) !== null,

    /**
     * Sandbox card form: creates the processor's payment for a recorded attempt, confirms it with
     * the card typed in and settles it; returns the payment as settled (by this call or concurrently
     * by the resolve job). A lost answer is looked up; if even that fails the attempt stays
     * PROCESSING for the resolve job and this throws 503.
     */
    async payWithCard(input: { paymentId: string; livemode: boolean; amount: number; currency: string; card: ValidatedCard; saveCard: boolean }): Promise<PaymentRow> {
      const { paymentId, card } = input;
      const form = cardProcessor.cardForm(input.livemode);
      if (!form) {
        throw new AppError('FORBIDDEN', 'Card numbers are not accepted in live mode: the hosted checkout confirms the payment with the processor\'s own fields.');
      }
      let result: ChargeResult | null;
      try {
        result = await withTimeout(
          (async () => {
            await cardProcessor.createPayment({ paymentId, livemode: input.livemode, amount: input.amount, currency: input.currency, saveCard: input.saveCard });
            const details: CardDetails = { number: card.number, expMonth: card.expMonth, expYear: card.expYear, cvc: card.cvc, cardholderName: card.cardholderName };
            return form.confirmWithCard({ paymentId, livemode: input.livemode, card: details });
          })(),
          processorTimeoutMs,
        );
        if (result === null) {
          throw new Error('the processor lost the payment session');
        }
      } catch (error) {
        // Never log the error object itself: a processor's error could quote the request.
        logger.warn({ paymentId, errorName: error instanceof Error ? error.name : typeof error }, 'card processor call failed; asking it for the result');
        try {
          result = await recoverResult(paymentId, input.livemode);
        } catch {
          throw new AppError('SERVICE_UNAVAILABLE', 'The card payment could not be confirmed; it will be settled automatically within a few minutes. Do not retry the payment.', {}, { 'Retry-After': '120' });
        }
      }
      return (await settle(paymentId, result)) ?? settledPayment(paymentId);
    },

    /**
     * Settles an attempt from the processor's record when it is final (the browser came back, a
     * provider webhook said something changed); a payment still waiting is left PROCESSING.
     * Returns the payment as it now stands.
     */
    async reconcile(paymentId: string): Promise<PaymentRow | null> {
      const payment = await findPayment(database.db, paymentId);
      if (!payment || payment.status !== 'PROCESSING') {
        return payment;
      }
      const state = await cardProcessor.retrievePayment({ paymentId, livemode: payment.livemode, processorReference: payment.processorReference });
      if (state === null || state.status === 'PENDING') {
        return payment;
      }
      return (await settle(paymentId, state)) ?? settledPayment(paymentId);
    },

    /** The resolve-attempt job: settles a PROCESSING attempt from the processor's own record. */
    resolveAttemptJob() {
      return createResolveAttemptJob({
        find: (paymentId) => findPayment(database.db, paymentId),
        resolve: async (payment) => {
          await settle(payment.id, await recoverResult(payment.id, payment.livemode, payment.processorReference));
        },
      });
    },

    findCardToken,

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

    /**
     * Refunds (part of) a successful payment at its processor, once per `refundId` (the processor's
     * idempotency key): its answer, or the refund already made with that id.
     */
    refundAtProcessor(input: { refundId: string; payment: PaymentRow; amount: number }): Promise<RefundState> {
      const { payment } = input;
      return withTimeout(cardProcessor.refund({ refundId: input.refundId, paymentId: payment.id, livemode: payment.livemode, amount: input.amount, processorReference: payment.processorReference }), processorTimeoutMs);
    },

    /** Where the refund made with our `refundId` stands at the processor; null when it never received it. */
    retrieveRefundAtProcessor(input: { refundId: string; payment: PaymentRow }): Promise<RefundState | null> {
      const { payment } = input;
      return withTimeout(cardProcessor.retrieveRefund({ refundId: input.refundId, paymentId: payment.id, livemode: payment.livemode, processorReference: payment.processorReference }), processorTimeoutMs);
    },

    /** Payments the fraud reports module may attach a report to (read-only). */
    findPaymentsForFraud,

    /** The cardholder name and the customer e-mail (the page's, else the customer's) in plaintext, for sealing into a fraud report. */
    async revealPaymentPii(executor: Executor, paymentId: string): Promise<{ cardholderName: string; customerEmail: string }> {
      const payment = await findPayment(executor, paymentId);
      if (!payment) {
        throw notFound('payment', paymentId);
      }
      const cardholderName = payment.cardholderNameCiphertext ? (openFields(keyRing, paymentLocation(payment), { cardholderName: payment.cardholderNameCiphertext }).cardholderName ?? '') : '';
      let customerEmail = payment.pageId && checkoutContact ? await checkoutContact(executor, payment.pageId) : '';
      if (customerEmail === '') {
        customerEmail = (await customers.contactOf(executor, payment.customerId)).email ?? '';
      }
      return { cardholderName, customerEmail };
    },

    /** Key-ring rotation of the cardholder names. */
    reencryptPayments: (options: ReencryptOptions = {}) => reencryptPayments(database, keyRing, options),
  };
}

export type PaymentsService = ReturnType<typeof createPaymentsService>;
