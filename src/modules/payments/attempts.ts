import { and, eq, isNull } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { ChargeResult, PaymentLookup, ProcessorsByMode } from '../card-processor/index.ts';
import { paymentAttemptResolveQueue } from './jobs.ts';
import { findPayment, type PaymentRow } from './repository.ts';
import type { createSettlement } from './settle.ts';

/** The processor call is abandoned after this long… */
export const processorTimeoutMs = 30_000;
/** …so an attempt still unsettled after this long has either reached the processor or never will. */
const attemptRecoveryDelayMs = 2 * 60_000;
/** An open session (the customer may still be paying) or an unknown outcome is looked at again after its age, within these bounds. */
const recheckMinMs = 2 * 60_000;
const recheckMaxMs = 60 * 60_000;

export function recheckAt(payment: PaymentRow, now: Date): Date {
  const age = now.getTime() - payment.createdAt.getTime();
  return new Date(now.getTime() + Math.min(Math.max(age, recheckMinMs), recheckMaxMs));
}

/** A lookup or cancel answer that settles the payment now (SUCCEEDED or DECLINED), else null. */
export function finalOf(state: Exclude<PaymentLookup, null>): ChargeResult | null {
  return state.status === 'SUCCEEDED' || state.status === 'DECLINED' ? state : null;
}

export async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
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
 * What an attempt's lifecycle needs between the processor call and settlement: telling a session
 * from a card-form attempt, learning an outcome that was lost, storing the processor's reference,
 * and scheduling the resolve job.
 */
export function createAttemptRecovery(deps: { database: Database; cardProcessor: ProcessorsByMode; settle: ReturnType<typeof createSettlement> }) {
  const { database, cardProcessor, settle } = deps;

  /**
   * A checkout payment the customer confirms in the browser with the processor's own fields (any
   * mode whose processor has no Paysail card form): its session stays open while the page lives.
   */
  function isSession(payment: PaymentRow): boolean {
    return payment.kind === 'CHECKOUT' && cardProcessor.cardForm(payment.livemode) === null;
  }

  /**
   * Asks the processor where an attempt that is not a session stands and makes it final: never
   * received (the processor says so for certain) → DECLINED (processing_error); still waiting →
   * canceled at the processor, which answers the final state (a confirmation that got there first
   * wins). Null while nothing authoritative is known (a lagging search, a cancel refused while the
   * payment is processing): look again later, never guess.
   */
  async function recoverResult(paymentId: string, livemode: boolean, processorReference: string | null = null): Promise<ChargeResult | null> {
    const state = await cardProcessor.retrievePayment({ paymentId, livemode, processorReference });
    if (state === null) {
      return { status: 'DECLINED', declineReason: 'processing_error', card: null };
    }
    if (state.status !== 'PENDING') {
      return state.status === 'UNKNOWN' ? null : state;
    }
    return finalOf(await cardProcessor.cancelPayment({ paymentId, livemode, processorReference: processorReference ?? state.processorReference }));
  }

  /**
   * The processor's id of a session, learned again (the create is idempotent on our payment id)
   * when its first answer was lost, and stored: lookups by it are direct and authoritative.
   */
  async function sessionReference(payment: PaymentRow): Promise<string> {
    if (payment.processorReference) {
      return payment.processorReference;
    }
    const session = await withTimeout(cardProcessor.createPayment({ paymentId: payment.id, livemode: payment.livemode, amount: payment.amount, currency: payment.currency, saveCard: payment.saveCard }), processorTimeoutMs);
    await storeReference(payment.id, session.processorReference);
    return session.processorReference;
  }

  async function storeReference(paymentId: string, processorReference: string): Promise<void> {
    await database.db
      .update(payments)
      .set({ processorReference })
      .where(and(eq(payments.id, paymentId), eq(payments.status, 'PROCESSING'), isNull(payments.processorReference)));
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

  /**
   * Settles an attempt from the processor's record when it is final (the browser came back, a
   * provider webhook said something changed); a payment still open (or not found for certain)
   * is left PROCESSING, with the decline of the customer's last try when there was one.
   */
  async function reconcileSession(paymentId: string): Promise<{ payment: PaymentRow | null; declineReason: string | null }> {
    const payment = await findPayment(database.db, paymentId);
    if (!payment || payment.status !== 'PROCESSING') {
      return { payment, declineReason: null };
    }
    const state = await cardProcessor.retrievePayment({ paymentId, livemode: payment.livemode, processorReference: payment.processorReference });
    if (state === null || state.status === 'UNKNOWN') {
      return { payment, declineReason: null };
    }
    if (state.status === 'PENDING') {
      if (!payment.processorReference) {
        await storeReference(paymentId, state.processorReference);
      }
      return { payment, declineReason: state.declineReason ?? null };
    }
    return { payment: (await settle(paymentId, state)) ?? (await settledPayment(paymentId)), declineReason: null };
  }

  return { isSession, recoverResult, sessionReference, storeReference, scheduleResolve, settledPayment, reconcileSession };
}
