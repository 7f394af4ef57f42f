import type { Database, Executor } from '../../db/client.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock } from '../../clock.ts';
import { recordEvent } from '../events/index.ts';
import { enqueueEmail } from '../email/index.ts';
import type { CustomersService } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import type { LedgerService } from '../ledger/index.ts';
import { payoutAttemptsRepository as attempts } from './attempts.ts';
import { transitionEmail, type PayoutEmailContext } from './emails.ts';
import { createPayoutPresenter, stateOf } from './present.ts';
import { payoutPagesRepository as repository, type PayoutPageInsert, type PayoutPageRow } from './repository.ts';
import { noLiveRailReason, railsOfMode, type PayoutRail, type PayoutRails } from './rails/types.ts';
import type { PayoutMethodType } from './destinations.ts';
import { findTransition, ledgerMovements, type KycStatus, type LedgerMovement, type PayoutPageAction, type Transition } from './states.ts';

export const payoutExpireQueue = 'payout_pages.expire';
export const payoutSubmitQueue = 'payout_pages.submit';
export const payoutSettleQueue = 'payout_pages.settle';
export const payoutReconcileQueue = 'payout_pages.reconcile';


export type Actor = 'merchant' | 'customer' | 'system' | 'kyc' | 'rail';

const kycRejectedReason = 'The customer’s identity verification was not approved.';

const verbs: Record<PayoutPageAction, string> = {
  confirm: 'confirm',
  kycSubmitted: 'submit identity data for',
  kycApproved: 'approve',
  kycRejected: 'reject',
  kycRestarted: 'verify again',
  release: 'release',
  autoRelease: 'release',
  cancel: 'cancel',
  decline: 'decline',
  expire: 'expire',
  railPaid: 'settle',
  railRejected: 'reject',
  railReturned: 'return',
  retry: 'retry',
};

const actionHints: Partial<Record<PayoutPageAction, string>> = {
  release: 'release needs status PENDING with sub-status AWAITING_RELEASE',
  cancel: 'cancel is possible before the payout is PROCESSING',
  decline: 'a payout can be declined before it is PROCESSING',
  confirm: 'the payout method can be confirmed while the page is CREATED',
  kycSubmitted: 'identity data is asked for while the page is PENDING with sub-status KYC_REQUIRED',
  retry: 'other details can be entered after the payout was rejected or returned',
};

export function invalidState(page: PayoutPageRow, action: PayoutPageAction): AppError {
  const hint = actionHints[action];
  return new AppError('INVALID_STATE', `Cannot ${verbs[action]} payout page ${page.id}: it is ${page.status}/${page.subStatus}${hint ? `; ${hint}` : ''}`);
}

export interface PayoutPagesDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  publicUrl: string;
  ledger: LedgerService;
  customers: CustomersService;
  rails: PayoutRails;
  /** Attempts without a final answer this long after their hand-over are looked up again (reconciliation). */
  reconcileAfterMs?: number;
}

export interface ApplyOptions {
  actor: Actor;
  now: Date;
  kycStatus?: KycStatus;
  /** Columns written together with the state (the confirmation's method and destination). */
  set?: Partial<PayoutPageInsert>;
  /** The rail's rejection reason. */
  reason?: string;
}

type ApplyResult = { outcome: 'applied'; page: PayoutPageRow } | { outcome: 'refused' } | { outcome: 'conflict' };

/**
 * The state table applied: the conditional UPDATE and everything a change brings in the same
 * transaction (ledger movement, status history, PAYOUT_PAGE_UPDATED event, jobs and e-mails).
 */
export function createPayoutTransitions(deps: PayoutPagesDeps) {
  const { keyRing, ledger, customers, rails } = deps;
  const presenter = createPayoutPresenter(deps);
  const { pageUrl, emailOf, eventData } = presenter;

  /**
   * The rail that pays this mode and method: sandbox, the method's test-environment rail when the
   * operator configured one, else the built-in sandbox rail; live, the method's rail (null before
   * one is configured or a method is chosen).
   */
  function railFor(livemode: boolean, method?: PayoutMethodType | null): PayoutRail | null {
    if (!livemode) {
      return (method ? rails.test?.[method] : null) ?? rails.sandbox;
    }
    return method ? rails.live[method] : null;
  }

  /** The rail an attempt was handed to, by the name recorded on it. */
  function railNamed(livemode: boolean, name: string): PayoutRail | null {
    return railsOfMode(rails, livemode).find((rail) => rail.name === name) ?? null;
  }

  async function emailContext(tx: Executor, page: PayoutPageRow, merchantName?: string): Promise<PayoutEmailContext> {
    const contact = await customers.contactOf(tx, page.customerId);
    return {
      merchantName: merchantName ?? (await repository.merchantName(tx, page.merchantId)),
      firstName: contact.firstName,
      amount: page.amount,
      currency: page.fundingCurrency,
      url: pageUrl(page.id),
      expiresAt: page.expiresAt,
      subStatus: page.subStatus,
    };
  }

  async function sendEmail(tx: Executor, page: PayoutPageRow, content: { template: string; subject: string; text: string; html: string }, now: Date): Promise<void> {
    await enqueueEmail(tx, now, keyRing, { merchantId: page.merchantId, livemode: page.livemode, to: emailOf(page), relatedId: page.id, ...content });
  }

  async function moveMoney(tx: Executor, page: PayoutPageRow, movement: LedgerMovement, now: Date): Promise<void> {
    const { source, destination } = ledgerMovements[movement];
    await ledger.post(
      tx,
      {
        merchantId: page.merchantId,
        livemode: page.livemode,
        currency: page.fundingCurrency,
        kind: movement,
        reference: page.id,
        // One movement of each kind per page and attempt, ever: a unique constraint, not a hope.
        idempotencyKey: page.attempt === 1 ? `${page.id}:${movement}` : `${page.id}:${page.attempt}:${movement}`,
        postings: [{ source, destination, amount: page.amount }],
      },
      now,
    );
  }

  /**
   * Entering PROCESSING: a new attempt with its own id (the rail's idempotency key) and the job
   * that hands it over, deduplicated on that id.
   */
  async function startAttempt(tx: Executor, page: PayoutPageRow, now: Date): Promise<void> {
    const rail = railFor(page.livemode, page.payoutMethod?.type);
    if (!rail) {
      throw new AppError('INVALID_STATE', noLiveRailReason);
    }
    const attempt = await attempts.insert(tx, {
      id: newId('payoutAttempt', now.getTime()),
      payoutPageId: page.id,
      merchantId: page.merchantId,
      livemode: page.livemode,
      number: page.attempt,
      rail: rail.name,
      status: 'SUBMITTING',
      createdAt: now,
      updatedAt: now,
    });
    await enqueueJob(tx, now, payoutSubmitQueue, { payoutPageId: page.id, payoutId: attempt.id }, { dedupeKey: `${payoutSubmitQueue}:${attempt.id}`, maxAttempts: 20 });
  }

  function reasonFor(edge: Transition, page: PayoutPageRow, options: ApplyOptions): string | null {
    if (edge.to.subStatus === 'AWAITING_RELEASE' && !railFor(page.livemode, page.payoutMethod?.type)) {
      return noLiveRailReason;
    }
    if (edge.to.subStatus === 'KYC_REJECTED') {
      return kycRejectedReason;
    }
    if (edge.to.subStatus === 'PAYOUT_REJECTED') {
      return options.reason ?? 'The payout rail rejected the payout.';
    }
    if (edge.to.subStatus === 'PAYOUT_RETURNED') {
      return options.reason ?? 'The payout rail returned the payout after paying it.';
    }
    return null;
  }

  /**
   * Applies one row of the transition table to `page` as read, and everything that comes with it,
   * in the caller's transaction. `conflict` means the page moved since it was read.
   */
  async function apply(tx: Executor, page: PayoutPageRow, action: PayoutPageAction, options: ApplyOptions): Promise<ApplyResult> {
    const edge = findTransition(stateOf(page), action, { releaseMethod: page.releaseMethod, ...(options.kycStatus ? { kycStatus: options.kycStatus } : {}) });
    if (!edge) {
      return { outcome: 'refused' };
    }
    const { now } = options;
    const moved = await repository.moveState(tx, page.id, edge.from, {
      ...options.set,
      status: edge.to.status,
      subStatus: edge.to.subStatus,
      statusReason: reasonFor(edge, page, options),
      updatedAt: now,
    });
    if (!moved) {
      return { outcome: 'conflict' };
    }
    const event = await recordEvent(tx, now, { merchantId: moved.merchantId, livemode: moved.livemode, type: 'PAYOUT_PAGE_UPDATED', data: eventData(moved, edge.from) });
    await repository.insertHistory(tx, {
      payoutPageId: moved.id,
      merchantId: moved.merchantId,
      livemode: moved.livemode,
      fromStatus: edge.from.status,
      fromSubStatus: edge.from.subStatus,
      toStatus: edge.to.status,
      toSubStatus: edge.to.subStatus,
      action,
      actor: options.actor,
      reason: moved.statusReason,
      eventId: event.id,
      createdAt: now,
    });
    if (edge.submitsPayout) {
      await startAttempt(tx, moved, now);
    }
    if (edge.email) {
      await sendEmail(tx, moved, transitionEmail(edge.email, await emailContext(tx, moved)), now);
    }
    // Last, to keep the lock on the merchant's balance rows short (they are the hot spot).
    if (edge.ledger) {
      await moveMoney(tx, moved, edge.ledger, now);
    }
    // AUTOMATIC payouts are released the moment they may be (when a rail can take them).
    if (moved.status === 'PENDING' && moved.subStatus === 'AWAITING_RELEASE' && moved.releaseMethod === 'AUTOMATIC' && railFor(moved.livemode, moved.payoutMethod?.type)) {
      const released = await apply(tx, moved, 'autoRelease', { actor: 'system', now });
      if (released.outcome === 'applied') {
        return released;
      }
    }
    return { outcome: 'applied', page: moved };
  }

  /**
   * Applies `action` to the page `load` reads, re-reading after a lost race. Refusal is
   * INVALID_STATE for people (merchant, customer) and a quiet null for the system (a job or a KYC
   * decision that finds the page already moved on has nothing to do).
   */
  async function act(
    tx: Executor,
    load: () => Promise<PayoutPageRow | null>,
    action: PayoutPageAction,
    options: Omit<ApplyOptions, 'kycStatus' | 'set'> & {
      kycStatus?: (page: PayoutPageRow) => Promise<KycStatus>;
      check?: (page: PayoutPageRow) => void;
      set?: (page: PayoutPageRow) => Partial<PayoutPageInsert>;
    },
  ): Promise<PayoutPageRow | null> {
    const people = options.actor === 'merchant' || options.actor === 'customer';
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const page = await load();
      if (!page) {
        return null;
      }
      options.check?.(page);
      const { kycStatus: readKyc, check: _check, set, ...rest } = options;
      const result = await apply(tx, page, action, { ...rest, ...(readKyc ? { kycStatus: await readKyc(page) } : {}), ...(set ? { set: set(page) } : {}) });
      if (result.outcome === 'applied') {
        return result.page;
      }
      if (result.outcome === 'refused') {
        if (people) {
          throw invalidState(page, action);
        }
        return null;
      }
    }
    throw new AppError('INVALID_STATE', 'The payout page is changing concurrently; retry the request');
  }


  async function requirePage(executor: Executor, payoutPageId: string): Promise<PayoutPageRow> {
    const page = await repository.findById(executor, payoutPageId);
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }

  async function requireScoped(executor: Executor, merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageRow> {
    const page = await repository.findScoped(executor, merchant.id, livemode, payoutPageId);
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }
  return { ...presenter, railFor, railNamed, emailContext, sendEmail, moveMoney, apply, act, requirePage, requireScoped };
}

export type PayoutTransitions = ReturnType<typeof createPayoutTransitions>;
