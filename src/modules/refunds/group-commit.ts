import { AsyncResource } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { withoutCommitGuard, type CommitGuard } from '../../db/commit-guard.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { jobRowsInsertStatement } from '../../jobs/queue.ts';
import { BalanceLimitError, InsufficientFundsError, isLedgerCurrency, type AtomicBatchRow, type LedgerCurrency, type LedgerService } from '../ledger/index.ts';
import { refundPageSelect } from '../payment-pages/index.ts';
import { refundBatchGateCtes, takeRefundBatchCte, type PaymentsService } from '../payments/index.ts';
import { refundProcessQueue } from './jobs.ts';
import { refundBatchInsertCtes, type RefundRow } from './repository.ts';

/** One `POST /v1/refunds` waiting for its batch. `guard`: its Idempotency-Key's commit guard, run in the batch's transaction when it is written. */
export interface RefundRequest {
  id: string;
  merchantId: string;
  livemode: boolean | undefined;
  pageId: string;
  amount: number | undefined;
  reason: string | null;
  createdAt: Date;
  guard: CommitGuard | undefined;
  /**
   * Makes it alone (decision 0039's statement). Must run in the request's own async context (its
   * commit guard): `submit` calls it directly for an idle page, and captures that context for a
   * request that waits.
   */
  alone: () => Promise<RefundRow>;
}

interface Waiting {
  request: RefundRequest;
  settle: (decision: RefundDecision) => void;
}

/** What became of a request: written, refused (the error it answers), or to be made on its own (`alone`: nothing of it was written). */
export type RefundDecision = { refund: RefundRow } | { error: unknown } | { alone: true };

interface BatchReport {
  page_found: boolean;
  page_status: string | null;
  payment_id: string | null;
  payment_livemode: boolean | null;
  payment_amount: number | null;
  payment_currency: string | null;
}

const batchReport = sql`exists (select 1 from page) as page_found, (select status from page) as page_status,
  (select id from payment) as payment_id, (select livemode from payment) as payment_livemode,
  (select amount from payment) as payment_amount, (select currency from payment) as payment_currency`;

/** At most this many refunds per statement (the rest wait for the next one). */
const largestBatch = 64;

/** The 400 of a refund whose amount does not fit in what is left, worded as it always was. */
export function amountRefused(pageId: string, asked: number | undefined, take: number, payment: { amount: number; refunded: number; currency: string }): AppError {
  const left = `what is left to refund on payment page ${pageId}`;
  if (asked === undefined && take < 1) {
    return wrongParameter('amount', `must be at most ${left}, and nothing is left (${payment.refunded} of ${payment.amount} refunded or being refunded)`);
  }
  return wrongParameter('amount', `must be at most ${left}: ${payment.amount - payment.refunded} ${payment.currency} minor units`);
}

/**
 * Group commit of the refunds of one page in this process (decision 0055). Refunds of one payment
 * queue on its row lock, which each holds through its statement and its commit's WAL flush; here the
 * requests that arrive while one statement runs wait in memory and the next statement writes them
 * all: one lock, one commit. The statement (`ledger.postAtomicallyInOrder`) judges each refund in
 * arrival order against what the ones before it left, exactly as separate statements would have, so
 * correctness comes from the database (other processes' refunds queue on the same row lock); the
 * batching is only fewer commits. The first request of an idle page is written at once, alone
 * (decision 0039's statement, as is any batch of one).
 */
export function createRefundGroupCommit(deps: {
  database: Database;
  ledger: Pick<LedgerService, 'postAtomicallyInOrder'>;
  payments: Pick<PaymentsService, 'isAvailable'>;
}) {
  const { database, ledger, payments } = deps;
  const queues = new Map<string, Waiting[]>();

  function currencyOf(pageId: string, currency: string): LedgerCurrency {
    if (!isLedgerCurrency(currency)) {
      throw new Error(`${pageId} is in ${currency}, which the ledger does not keep`);
    }
    return currency;
  }

  /** The checks in the order a refund made alone applies them: 404, 409, 403, accounts to open (alone), 400 amount, 409 funds. */
  function decide(row: AtomicBatchRow & BatchReport, request: RefundRequest): RefundDecision {
    const pageId = request.pageId;
    if (!row.page_found) {
      return { error: notFound('payment page', pageId) };
    }
    if (row.page_status !== 'PAID' || row.payment_id === null || row.payment_livemode === null || row.payment_amount === null || row.payment_currency === null) {
      return { error: new AppError('INVALID_STATE', `Payment page ${pageId} is ${row.page_status ?? 'unknown'}: only a PAID page can be refunded`) };
    }
    if (!payments.isAvailable(row.payment_livemode)) {
      return { error: new AppError('FORBIDDEN', 'Live refunds are not available: no live card processor is configured on this Paysail installation') };
    }
    if (!row.condition_met || !row.accounts_ready) {
      // Nothing was written: made alone, it opens the accounts (after its own amount check).
      return { alone: true };
    }
    const currency = currencyOf(pageId, row.payment_currency);
    const left = row.left_before ?? 0;
    switch (row.verdict) {
      case 'ok':
        return {
          refund: {
            id: request.id,
            merchantId: request.merchantId,
            livemode: row.payment_livemode,
            paymentPageId: pageId,
            paymentId: row.payment_id,
            amount: row.take ?? 0,
            currency,
            reason: request.reason as RefundRow['reason'],
            status: 'PENDING',
            failureReason: null,
            processorReference: null,
            requestKey: null,
            createdAt: request.createdAt,
            updatedAt: request.createdAt,
            settledAt: null,
          },
        };
      case 'amount':
        return { error: amountRefused(pageId, request.amount, row.take ?? 0, { amount: row.payment_amount, refunded: row.payment_amount - left, currency: row.payment_currency }) };
      case 'overdrawn':
        return { error: new InsufficientFundsError(currency, row.refused_account ?? 'available') };
      case 'beyond_limit':
        return { error: new BalanceLimitError(currency, row.refused_account ?? 'available') };
      default:
        return { error: new Error(`refund ${request.id}: the batch gave no verdict`) };
    }
  }

  /** One statement for the batch (in a transaction with the commit guards of those written, when any has one). */
  async function write(requests: RefundRequest[]): Promise<RefundDecision[]> {
    const [first] = requests;
    if (!first) {
      return [];
    }
    const statement = (executor: Executor) =>
      ledger.postAtomicallyInOrder<BatchReport>(executor, {
        name: 'refunds',
        before: refundBatchGateCtes({
          page: refundPageSelect({ merchantId: first.merchantId, livemode: first.livemode, pageId: first.pageId }),
          liveAvailable: payments.isAvailable(true),
          sandboxAvailable: payments.isAvailable(false),
        }),
        after: sql`${takeRefundBatchCte()}, ${refundBatchInsertCtes(
          {
            queue: refundProcessQueue,
            merchantId: first.merchantId,
            paymentPageId: first.pageId,
            refunds: requests.map((request) => ({ id: request.id, reason: request.reason, createdAt: request.createdAt, jobId: newId('job', request.createdAt.getTime()) })),
          },
          (source) => jobRowsInsertStatement(refundProcessQueue, source),
        )}`,
        report: batchReport,
        merchantId: first.merchantId,
        kind: 'refund',
        source: 'available',
        destination: 'external',
        members: requests.map((request) => ({ amount: request.amount ?? null, reference: request.id, idempotencyKey: `${request.id}:refund`, at: request.createdAt })),
      });
    const decideAll = (rows: Array<AtomicBatchRow & BatchReport>) => rows.map((row, index) => decide(row, requests[index] as RefundRequest));
    if (!requests.some((request) => request.guard !== undefined)) {
      // One statement, committing on its own (decision 0039).
      return decideAll(await statement(database.db));
    }
    let refusedBy: number | undefined;
    try {
      return await database.transaction(async (tx) => {
        const decisions = decideAll(await statement(tx));
        for (const [index, decision] of decisions.entries()) {
          const guard = requests[index]?.guard;
          if (guard && 'refund' in decision) {
            refusedBy = index;
            await guard.beforeCommit(tx);
            refusedBy = undefined;
          }
        }
        return decisions;
      });
    } catch (error) {
      if (refusedBy === undefined) {
        throw error;
      }
      // One key's lease was taken over: the batch rolled back. That request answers its guard's
      // error; the others, of whom nothing was written, are made alone.
      return requests.map((_, index) => (index === refusedBy ? { error } : { alone: true }));
    }
  }

  async function drain(key: string, queue: Waiting[]): Promise<void> {
    while (queue.length > 0) {
      const batch = queue.splice(0, largestBatch);
      let decisions: RefundDecision[];
      const [only] = batch;
      if (batch.length === 1 && only) {
        // Nobody to share the commit with: decision 0039's statement, as before batching.
        decisions = [await only.request.alone().then((refund): RefundDecision => ({ refund }), (error: unknown): RefundDecision => ({ error }))];
      } else {
        try {
          decisions = await write(batch.map((waiting) => waiting.request));
        } catch (error) {
          decisions = batch.map(() => ({ error }));
        }
      }
      for (const [index, waiting] of batch.entries()) {
        waiting.settle(decisions[index] ?? { error: new Error('refund batch: no decision') });
      }
    }
    queues.delete(key);
  }

  return {
    /**
     * Writes a refund at once, alone, when its page has no statement running (in the caller's own
     * async context: no context to capture, the common case of refunds of different pages); else
     * queues it behind that statement, to be written with the others that wait. Answers what became of it.
     */
    submit(request: RefundRequest): Promise<RefundDecision> {
      const key = `${request.merchantId}|${String(request.livemode)}|${request.pageId}`;
      const waiting = queues.get(key);
      if (waiting) {
        // Made later from the batch's context: it keeps this request's context (its commit guard)
        // for whenever it is made alone (`runInAsyncScope`; `AsyncResource.bind` would do the same
        // at the price of two deprecation wrappers per call).
        const context = new AsyncResource('paysail.refund');
        const alone = request.alone;
        return new Promise((settle) => {
          waiting.push({ request: { ...request, alone: () => context.runInAsyncScope(alone) }, settle });
        });
      }
      const queue: Waiting[] = [];
      queues.set(key, queue);
      // Nobody to share the commit with: decision 0039's statement, in this request's context.
      const decision = request.alone().then(
        (refund): RefundDecision => ({ refund }),
        (error: unknown): RefundDecision => ({ error }),
      );
      // Those that queued meanwhile: batches belong to no single request, so their transactions run
      // the commit guards they are given, not this request's.
      void decision.then(() => withoutCommitGuard(() => drain(key, queue)));
      return decision;
    },
  };
}

export type RefundGroupCommit = ReturnType<typeof createRefundGroupCommit>;
