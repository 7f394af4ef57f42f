import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, sealFields } from '../../crypto/pii.ts';
import type { ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { CustomersService } from '../customers/index.ts';
import type { LedgerService } from '../ledger/index.ts';
import { cardNumbersRefusedMessage, type CardDetails, type ChargeResult, type PaymentSession, type ProcessorsByMode, type RefundState } from '../card-processor/index.ts';
import { createAttemptRecovery, finalOf, processorTimeoutMs, recheckAt, withTimeout } from './attempts.ts';
import type { ValidatedCard } from './card.ts';
import { createResolveAttemptJob } from './jobs.ts';
import { createRenewalCharges } from './renewals.ts';
import { findCardToken, findPayment, findPaymentsForFraud, preparedPaymentFinder, paymentLocation, reencryptPayments, type FraudCriteria, type PageReference, type PaymentRow } from './repository.ts';
import { createSettlement, type PaymentSettledHook } from './settle.ts';

export type { PaymentSettledHook } from './settle.ts';

/** The customer e-mail a checkout payment was made under (its page's), for fraud reports. */
export type CheckoutContact = (executor: Executor, pageId: string) => Promise<string>;

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
export function createPaymentsService(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  customers: CustomersService;
  cardProcessor: ProcessorsByMode;
  ledger: Pick<LedgerService, 'post'>;
  logger: Logger;
  /** Payment pages' `clientReferenceIdOfPage` (platform.ts): a fraud candidate's page reference, read in the same query. */
  clientReferenceIdOfPage: PageReference;
}) {
  const { database, clock, keyRing, customers, cardProcessor, ledger, logger, clientReferenceIdOfPage } = deps;
  const findPaymentPrepared = preparedPaymentFinder(database);
  const settledHooks: PaymentSettledHook[] = [];
  let checkoutContact: CheckoutContact | null = null;

  const settle = createSettlement({ database, clock, settledHooks, ledger });
  const { isSession, recoverResult, sessionReference, storeReference, scheduleResolve, settledPayment, reconcileSession } = createAttemptRecovery({ database, cardProcessor, settle });

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

    /** A payment by id; outside a transaction through one prepared statement (every paid page's read asks for its payment). */
    find: (executor: Executor, paymentId: string) => (executor === database.db ? findPaymentPrepared(paymentId) : findPayment(executor, paymentId)),

    /**
     * Records a PROCESSING checkout attempt (card description only: the number and CVC are never
     * stored) and schedules its resolve job, inside the caller's transaction (the page claim).
     */
    async recordCheckoutAttempt(tx: Executor, attempt: { paymentId: string; merchantId: string; livemode: boolean; pageId: string; customerId: string; amount: number; currency: string; saveCard: boolean; card: ValidatedCard | null }, now: Date): Promise<void> {
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
        saveCard: attempt.saveCard,
        createdAt: now,
        updatedAt: now,
      });
      await scheduleResolve(tx, paymentId, now);
    },

    /**
     * The processor's session for a recorded attempt, as the browser confirms it: created once
     * (idempotent on our payment id), then read back by the id the processor gave us.
     */
    async openSession(paymentId: string): Promise<PaymentSession> {
      const payment = await findPayment(database.db, paymentId);
      if (!payment) {
        throw new Error(`payment ${paymentId} vanished`);
      }
      const session = await withTimeout(
        cardProcessor.createPayment({ paymentId, livemode: payment.livemode, amount: payment.amount, currency: payment.currency, saveCard: payment.saveCard, processorReference: payment.processorReference }),
        processorTimeoutMs,
      );
      if (!payment.processorReference) {
        await storeReference(paymentId, session.processorReference);
      }
      return session;
    },

    /**
     * Ends a session whose page is closing (expired or expired by the merchant): canceled at the
     * processor, which answers the final state (a payment that completed meanwhile wins). Returns
     * the payment as it then stands: still PROCESSING when the processor could not cancel it yet,
     * or when it is not a session (a card-form attempt settles by itself).
     */
    async closeSession(paymentId: string): Promise<PaymentRow | null> {
      const payment = await findPayment(database.db, paymentId);
      if (!payment || payment.status !== 'PROCESSING' || !isSession(payment)) {
        return payment;
      }
      const processorReference = await sessionReference(payment);
      const result = finalOf(await cardProcessor.cancelPayment({ paymentId, livemode: payment.livemode, processorReference }));
      return result ? ((await settle(paymentId, result)) ?? settledPayment(paymentId)) : settledPayment(paymentId);
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
        throw new AppError('FORBIDDEN', cardNumbersRefusedMessage(input.livemode));
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
          if (result === null) {
            throw new Error('the processor has no final answer yet');
          }
        } catch {
          throw new AppError('SERVICE_UNAVAILABLE', 'The card payment could not be confirmed; it will be settled automatically within a few minutes. Do not retry the payment.', {}, { 'Retry-After': '120' });
        }
      }
      return (await settle(paymentId, result)) ?? settledPayment(paymentId);
    },

    reconcileSession,

    /** `reconcileSession`, answering only the payment. */
    async reconcile(paymentId: string): Promise<PaymentRow | null> {
      return (await reconcileSession(paymentId)).payment;
    },

    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.resolveAttemptJob()];
    },

    /**
     * The resolve-attempt job: settles a PROCESSING attempt from the processor's own record. A
     * session stays open while its page lives (the customer may still be paying; the page's expiry
     * closes it): the job only settles what is final, and looks again later. Other attempts are
     * canceled at the processor, which answers the final state. Nothing unknown is guessed.
     */
    resolveAttemptJob() {
      return createResolveAttemptJob({
        find: (paymentId) => findPayment(database.db, paymentId),
        resolve: async (payment) => {
          const now = clock.now();
          if (isSession(payment)) {
            const processorReference = await sessionReference(payment);
            const state = await cardProcessor.retrievePayment({ paymentId: payment.id, livemode: payment.livemode, processorReference });
            const result = state === null ? null : finalOf(state);
            if (!result) {
              return { rescheduleAt: recheckAt(payment, now) };
            }
            await settle(payment.id, result);
            return;
          }
          const result = await recoverResult(payment.id, payment.livemode, payment.processorReference);
          if (!result) {
            return { rescheduleAt: recheckAt(payment, now) };
          }
          await settle(payment.id, result);
        },
      });
    },

    findCardToken,
    ...createRenewalCharges({ database, clock, cardProcessor, settle, scheduleResolve }),

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
    findPaymentsForFraud: (executor: Executor, criteria: FraudCriteria) => findPaymentsForFraud(executor, criteria, clientReferenceIdOfPage),

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
