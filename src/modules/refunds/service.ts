import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { currentCommitGuard } from '../../db/commit-guard.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { newId, isId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { amountRefused, createRefundGroupCommit } from './group-commit.ts';
import { createCoalescedWakeup, jobInsertStatement } from '../../jobs/queue.ts';
import type { Clock } from '../../clock.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import { createCursorCodec, pageOf, type CursorCodec, type PagePosition } from '../../http/paging.ts';
import { recordEvent } from '../events/index.ts';
import { fundingCurrencies, InsufficientFundsError, isLedgerCurrency, type AtomicPostResult, type LedgerCurrency, type LedgerService } from '../ledger/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { pageClientReferenceId, refundPageSelect } from '../payment-pages/index.ts';
import type { RefundState } from '../card-processor/index.ts';
import { findPayment, refundGateCtes, returnRefundAmount, takeRefundAmountCte, type PaymentRow, type PaymentsService } from '../payments/index.ts';
import { createProcessRefundJob, refundProcessQueue } from './jobs.ts';
import { findRefund, findRefundByRequestKey, findScopedRefund, finishRefund, listRefunds, recordProcessorReference, refundInsertCtes, refundView, type RefundRow, type RefundScope } from './repository.ts';
import type { RefundCreateInput, RefundListInput, RefundListView, RefundView } from './schemas.ts';

/** The refund statement's own answer columns (beside the ledger's): what it found and what it wrote. */
interface RefundReport {
  page_found: boolean;
  page_status: string | null;
  payment_livemode: boolean | null;
  payment_amount: number | null;
  refunded_amount: number | null;
  payment_currency: string | null;
  take: number | null;
  refund_livemode: boolean | null;
  refund_payment_id: string | null;
  refund_amount: number | null;
}

const refundReport = sql`exists (select 1 from page) as page_found, (select status from page) as page_status,
  (select livemode from payment) as payment_livemode, (select amount from payment) as payment_amount,
  (select refunded_amount from payment) as refunded_amount, (select currency from payment) as payment_currency,
  (select take from payment)::int as take, (select livemode from refund) as refund_livemode,
  (select payment_id from refund) as refund_payment_id, (select amount from refund) as refund_amount`;

type NewRefund = Pick<RefundRow, 'id' | 'merchantId' | 'paymentPageId' | 'reason' | 'createdAt'> & { requestKey: string | null };

/** How long a refund still PENDING at a live processor waits before it is looked up again (its webhook usually comes first). */
const livePollIntervalMs = 15 * 60_000;

/** Runs inside the transaction that settles a refund as SUCCEEDED: what it writes commits with it. */
export type RefundSucceededHook = (tx: Executor, refund: RefundRow, now: Date) => Promise<void>;

export interface RefundsDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  ledger: Pick<LedgerService, 'post' | 'postAtomically' | 'postAtomicallyInOrder' | 'openAccounts'>;
  payments: Pick<PaymentsService, 'refundAtProcessor' | 'retrieveRefundAtProcessor' | 'isAvailable'>;
  /** When a sandbox refund is looked up after it was made (the sandbox processor settles it after SANDBOX_PAYOUT_DELAY_MS). */
  sandboxDelayMs: number;
}

/**
 * Refunds of card payments (issue 13, item 6). A refund is created PENDING in one transaction that
 * also takes its amount from the payment's `refundedAmount` (a conditional UPDATE that refuses to
 * pass the payment's amount: concurrent refunds queue on the payment row and never exceed it),
 * debits the merchant's balance in the page currency (available → external), and enqueues the job
 * that asks the processor (idempotent on the refund id). The processor's final answer settles it,
 * again in one transaction: SUCCEEDED with PAYMENT_REFUNDED, or FAILED with REFUND_FAILED, the
 * amount given back to the payment and the money back to the balance (external → available).
 */
export function createRefundsService(deps: RefundsDeps) {
  const { database, clock, keyRing, ledger, payments } = deps;
  const cursorCodecs = new Map<string, CursorCodec>();
  const succeededHooks: RefundSucceededHook[] = [];
  // A NOTIFY inside every refund's transaction would hold PostgreSQL's database-wide notify lock
  // through each commit and its WAL flush, serialising the commits of all merchants' refunds: the
  // workers are woken after the commit instead (coalesced; a lost wake-up leaves the job to the poll).
  const processWakeup = createCoalescedWakeup(database, refundProcessQueue);
  const groupCommit = createRefundGroupCommit({ database, ledger, payments });

  /** Cursors are bound to the list's filter: one made for another page's refunds is refused. */
  function cursorsFor(paymentPageId: string | undefined): CursorCodec {
    const list = `refunds:${paymentPageId ?? '*'}`;
    let codec = cursorCodecs.get(list);
    if (!codec) {
      codec = createCursorCodec(keyRing, list);
      if (cursorCodecs.size < 1_000) {
        cursorCodecs.set(list, codec);
      }
    }
    return codec;
  }

  function currencyOf(row: { currency: string; id: string }): LedgerCurrency {
    if (!isLedgerCurrency(row.currency)) {
      throw new Error(`${row.id} is in ${row.currency}, which the ledger does not keep`);
    }
    return row.currency;
  }

  function pollAfterMs(livemode: boolean): number {
    return livemode ? livePollIntervalMs : Math.max(deps.sandboxDelayMs, 0);
  }

  /** Records the processor's final answer on a PENDING refund (once: a conditional UPDATE), with its event and, for a failure, the money back. */
  async function settleIn(tx: Executor, refund: RefundRow, state: RefundState, now: Date): Promise<RefundRow | null> {
    if (state.status === 'PENDING') {
      return null;
    }
    const failureReason = state.status === 'FAILED' ? state.failureReason : null;
    const status = state.status === 'FAILED' ? 'FAILED' : 'SUCCEEDED';
    const finished = await finishRefund(tx, refund.id, { status, failureReason, processorReference: state.processorReference, now });
    if (!finished) {
      return null;
    }
    const clientReferenceId = await pageClientReferenceId(tx, { merchantId: finished.merchantId, livemode: finished.livemode, pageId: finished.paymentPageId });
    if (finished.status === 'FAILED') {
      await returnRefundAmount(tx, finished.paymentId, finished.amount);
      await ledger.post(
        tx,
        {
          merchantId: finished.merchantId,
          livemode: finished.livemode,
          currency: currencyOf(finished),
          kind: 'refund_failed',
          reference: finished.id,
          idempotencyKey: `${finished.id}:refund_failed`,
          postings: [{ source: 'external', destination: 'available', amount: finished.amount }],
        },
        now,
      );
    }
    if (finished.status === 'SUCCEEDED') {
      for (const hook of succeededHooks) {
        await hook(tx, finished, now);
      }
    }
    await recordEvent(tx, now, {
      merchantId: finished.merchantId,
      livemode: finished.livemode,
      type: finished.status === 'FAILED' ? 'REFUND_FAILED' : 'PAYMENT_REFUNDED',
      data: { ...refundView(finished), clientReferenceId },
    });
    return finished;
  }

  async function paymentOf(refund: RefundRow): Promise<PaymentRow> {
    const payment = await findPayment(database.db, refund.paymentId);
    if (!payment) {
      throw new Error(`refund ${refund.id}: payment ${refund.paymentId} vanished`);
    }
    return payment;
  }

  /**
   * Where a PENDING refund stands at the processor. `mayHaveReached`: an earlier call may have got
   * there (a retry, a known processor id), so it is looked up first and made only when the
   * processor never received it — never submitted blindly a second time.
   */
  async function processorState(refund: RefundRow, mayHaveReached: boolean): Promise<RefundState> {
    const payment = await paymentOf(refund);
    if (mayHaveReached) {
      const existing = await payments.retrieveRefundAtProcessor({ refundId: refund.id, payment });
      if (existing) {
        return existing;
      }
    }
    return payments.refundAtProcessor({ refundId: refund.id, payment, amount: refund.amount });
  }

  async function position(merchant: Merchant, paymentPageId: string | undefined, startingAfter: string): Promise<PagePosition> {
    if (isId('refund', startingAfter)) {
      const row = await findScopedRefund(database.db, { merchantId: merchant.id, livemode: undefined }, startingAfter);
      if (row && (paymentPageId === undefined || row.paymentPageId === paymentPageId)) {
        return { createdAt: row.createdAt, id: row.id };
      }
    } else {
      const decoded = cursorsFor(paymentPageId).decode(startingAfter);
      if (decoded) {
        return decoded;
      }
    }
    throw wrongParameter('startingAfter', 'must be the nextCursor of a previous page of this same list (same paymentPageId) or the id of one of its refunds');
  }

  /**
   * What the atomic refund statement did, or why it did nothing, in the order the checks apply:
   * unknown page 404, not PAID 409, live processor missing 403, nothing left or more than is left
   * 400 (amount), an account to open first (`missing`), else the refund written.
   */
  function outcomeOf(row: AtomicPostResult & RefundReport, refund: NewRefund, askedAmount: number | undefined): RefundRow | { missing: { livemode: boolean; currency: LedgerCurrency } } {
    const pageId = refund.paymentPageId;
    if (!row.page_found) {
      throw notFound('payment page', pageId);
    }
    if (row.page_status !== 'PAID' || row.payment_livemode === null || row.payment_amount === null || row.refunded_amount === null || row.payment_currency === null) {
      throw new AppError('INVALID_STATE', `Payment page ${pageId} is ${row.page_status ?? 'unknown'}: only a PAID page can be refunded`);
    }
    if (!payments.isAvailable(row.payment_livemode)) {
      throw new AppError('FORBIDDEN', 'Live refunds are not available: no live card processor is configured on this Paysail installation');
    }
    if (!row.condition_met || (askedAmount === undefined && (row.take ?? 0) < 1)) {
      throw amountRefused(pageId, askedAmount, row.take ?? 0, { amount: row.payment_amount, refunded: row.refunded_amount, currency: row.payment_currency });
    }
    const currency = currencyOf({ id: pageId, currency: row.payment_currency });
    if (!row.accounts_ready) {
      return { missing: { livemode: row.payment_livemode, currency } };
    }
    if (row.refund_payment_id === null || row.refund_amount === null || row.refund_livemode === null) {
      throw new Error(`refund ${refund.id}: the posting was written but not the refund`);
    }
    return {
      ...refund,
      livemode: row.refund_livemode,
      paymentId: row.refund_payment_id,
      amount: row.refund_amount,
      currency,
      status: 'PENDING',
      failureReason: null,
      processorReference: null,
      updatedAt: refund.createdAt,
      settledAt: null,
    };
  }

  /** The refund a dashboard form's one-time key made already (null: none); IDEMPOTENCY_KEY_REUSED when it was for another page. */
  async function earlierRefund(executor: Executor, merchant: Merchant, livemode: boolean | undefined, pageId: string, requestKey: string): Promise<RefundRow | null> {
    for (const mode of livemode === undefined ? [false, true] : [livemode]) {
      const earlier = await findRefundByRequestKey(executor, { merchantId: merchant.id, livemode: mode }, requestKey);
      if (earlier) {
        if (earlier.paymentPageId !== pageId) {
          throw new AppError('IDEMPOTENCY_KEY_REUSED', 'This refund form was already used for another payment page; reload the page and try again');
        }
        return earlier;
      }
    }
    return null;
  }

  return {
    /** Registers a hook run inside the transaction that settles a refund as SUCCEEDED (the customer's refund notice). */
    onSucceeded(hook: RefundSucceededHook): void {
      succeededHooks.push(hook);
    },

    /**
     * `POST /v1/refunds`: the PENDING refund, its amount taken and the balance debited in one
     * transaction. `requestKey` (the dashboard form's one-time key): the refund that key made
     * already, if any, is answered instead of making another.
     */
    async createRefund(merchant: Merchant, livemode: boolean | undefined, input: RefundCreateInput, options: { requestKey?: string } = {}): Promise<RefundView> {
      const now = clock.now();
      const id = newId('refund', now.getTime());
      const requestKey = options.requestKey ?? null;
      const attempt = async (executor: Executor): Promise<RefundRow | { missing: { livemode: boolean; currency: LedgerCurrency } }> => {
        const row = await ledger.postAtomically<RefundReport>(
          executor,
          {
            name: 'refund',
            before: refundGateCtes({
              page: refundPageSelect({ merchantId: merchant.id, livemode, pageId: input.paymentPageId }),
              amount: input.amount,
              liveAvailable: payments.isAvailable(true),
              sandboxAvailable: payments.isAvailable(false),
            }),
            after: sql`${takeRefundAmountCte()}, ${refundInsertCtes({ id, merchantId: merchant.id, paymentPageId: input.paymentPageId, reason: input.reason ?? null, createdAt: now, requestKey }, (onlyIf) =>
              jobInsertStatement(now, refundProcessQueue, { refundId: id }, { dedupeKey: `${refundProcessQueue}:${id}` }, onlyIf),
            )}`,
            report: refundReport,
            merchantId: merchant.id,
            kind: 'refund',
            reference: id,
            idempotencyKey: `${id}:refund`,
            unitPostings: [{ source: 'available', destination: 'external', amount: 1 }],
          },
          now,
        );
        try {
          return outcomeOf(row, { id, merchantId: merchant.id, paymentPageId: input.paymentPageId, reason: input.reason ?? null, requestKey, createdAt: now }, input.amount);
        } catch (error) {
          // A form resubmitted after its refund took what was left: the refund that key made answers.
          if (requestKey !== null && error instanceof AppError && error.code === 'WRONG_PARAMETER') {
            const earlier = await earlierRefund(executor, merchant, livemode, input.paymentPageId, requestKey);
            if (earlier) {
              return earlier;
            }
          }
          throw error;
        }
      };
      const openThenAttempt = async (tx: Executor, missing: { livemode: boolean; currency: LedgerCurrency }): Promise<RefundRow> => {
        // Merchants created before the ledger existed and card-payment currencies are opened on first use.
        await ledger.openAccounts(tx, { merchantId: merchant.id, livemode: missing.livemode }, now, [...new Set<LedgerCurrency>([...fundingCurrencies, missing.currency])]);
        const second = await attempt(tx);
        if ('missing' in second) {
          throw new Error(`ledger accounts of ${merchant.id} missing after opening them`);
        }
        return second;
      };
      // Called in this request's async context (its commit guard): directly, or, when the refund waited
      // in the group commit's queue, through the context the queue captured for it (group-commit.ts).
      const alone = async (): Promise<RefundRow> => {
        if (currentCommitGuard()) {
          // An Idempotency-Key is marked used in the same transaction as the refund.
          return database.transaction(async (tx) => {
            const first = await attempt(tx);
            return 'missing' in first ? openThenAttempt(tx, first.missing) : first;
          });
        }
        // One statement, committing on its own (decision 0039).
        const first = await attempt(database.db);
        return 'missing' in first ? database.transaction((tx) => openThenAttempt(tx, first.missing)) : first;
      };
      let refund: RefundRow;
      try {
        // At once, or with the other refunds that arrive meanwhile: one statement, one commit (decisions 0055 and 0069).
        const decision = requestKey === null ? await groupCommit.submit({ id, merchantId: merchant.id, livemode, pageId: input.paymentPageId, amount: input.amount, reason: input.reason ?? null, createdAt: now, guard: currentCommitGuard(), alone }) : undefined;
        if (decision && 'error' in decision) {
          throw decision.error;
        }
        refund = decision && 'refund' in decision ? decision.refund : await alone();
      } catch (error) {
        if (error instanceof InsufficientFundsError) {
          throw new AppError('INSUFFICIENT_FUNDS', `The available ${error.currency} balance cannot cover this refund${input.amount === undefined ? '' : ` of ${input.amount}`}`);
        }
        if (requestKey !== null && isUniqueViolation(error, 'refunds_request_key')) {
          // The same form submitted twice at once: the first made the refund (this statement wrote nothing).
          const earlier = await earlierRefund(database.db, merchant, livemode, input.paymentPageId, requestKey);
          if (earlier) {
            return refundView(earlier);
          }
        }
        throw error;
      }
      processWakeup.request();
      return refundView(refund);
    },

    async getRefund(merchant: Merchant, livemode: boolean | undefined, refundId: string): Promise<RefundView> {
      const row = await findScopedRefund(database.db, { merchantId: merchant.id, livemode }, refundId);
      if (!row) {
        throw notFound('refund', refundId);
      }
      return refundView(row);
    },

    /** `GET /v1/refunds`: newest first, keyset-paged like `GET /v1/events`; cursors are bound to `paymentPageId`. */
    async listRefunds(merchant: Merchant, livemode: boolean | undefined, input: RefundListInput): Promise<RefundListView> {
      const limit = input.limit ?? 20;
      const scope: RefundScope = { merchantId: merchant.id, livemode };
      const after = input.startingAfter === undefined ? undefined : await position(merchant, input.paymentPageId, input.startingAfter);
      const rows = await listRefunds(database.db, scope, { paymentPageId: input.paymentPageId, after, limit });
      const page = pageOf(rows, limit, cursorsFor(input.paymentPageId));
      return { refunds: page.items.map(refundView), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    /**
     * A processor said something changed about our refund (Stripe's `charge.refunded` and
     * `refund.updated` webhooks): looks it up and settles it when final, or fails a SUCCEEDED one
     * the processor now reports FAILED (money back, REFUND_FAILED). Never creates a refund.
     */
    async reconcile(refundId: string): Promise<RefundView | null> {
      const refund = await findRefund(database.db, refundId);
      if (!refund || refund.status === 'FAILED') {
        return refund ? refundView(refund) : null;
      }
      const state = await payments.retrieveRefundAtProcessor({ refundId, payment: await paymentOf(refund) });
      // A SUCCEEDED refund can still fail later (then only a failure changes it).
      if (state === null || state.status === 'PENDING' || state.status === refund.status) {
        return refundView(refund);
      }
      const settled = await database.transaction((tx) => settleIn(tx, refund, state, clock.now()));
      return refundView(settled ?? (await findRefund(database.db, refundId)) ?? refund);
    },

    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.processJob()];
    },

    /** The `refunds.process` job: asks the processor (once per refund id), then polls until it settles. */
    processJob() {
      return createProcessRefundJob({
        find: (refundId) => findRefund(database.db, refundId),
        advance: async (refund, attempt, context) => {
          const now = clock.now();
          const state = await processorState(refund, attempt > 1 || refund.processorReference !== null);
          if (state.status === 'PENDING') {
            if (refund.processorReference === null) {
              await recordProcessorReference(database.db, refund.id, state.processorReference, now);
            }
            return { rescheduleAt: new Date(now.getTime() + pollAfterMs(refund.livemode)) };
          }
          await context.transaction((tx) => settleIn(tx, refund, state, clock.now()));
          return undefined;
        },
      });
    },
  };
}

export type RefundsService = ReturnType<typeof createRefundsService>;
