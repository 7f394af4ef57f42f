import { AsyncResource } from 'node:async_hooks';
import { sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { withoutCommitGuard, type CommitGuard } from '../../db/commit-guard.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { jobRowsInsertStatement } from '../../jobs/queue.ts';
import { BalanceLimitError, InsufficientFundsError, isLedgerCurrency, type AtomicBatchRow, type LedgerCurrency, type LedgerService } from '../ledger/index.ts';
import { refundPagesSelect } from '../payment-pages/index.ts';
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

/** Each member's page and payment (its group's), beside the ledger's verdict. */
const batchReport = sql`exists (select 1 from page where page.grp = m.grp) as page_found, (select status from page where page.grp = m.grp) as page_status,
  (select id from payment where payment.grp = m.grp) as payment_id, (select livemode from payment where payment.grp = m.grp) as payment_livemode,
  (select amount from payment where payment.grp = m.grp) as payment_amount, (select currency from payment where payment.grp = m.grp) as payment_currency`;

/** At most this many refunds per statement (the rest wait for the next one). */
const largestBatch = 64;

/**
 * Refund statements this process runs at once (decision 0069). A refund arriving while as many run
 * waits, and the next statement to start writes it with the others waiting: refunds of one page in
 * one group, pages of different merchants in different groups of the same statement.
 */
const concurrentStatements = 2;

/** The queue a refund waits in: its page's, as the merchant and mode ask for it. */
function pageKey(request: RefundRequest): string {
  return `${request.merchantId}|${String(request.livemode)}|${request.pageId}`;
}

/** The 400 of a refund whose amount does not fit in what is left, worded as it always was. */
export function amountRefused(pageId: string, asked: number | undefined, take: number, payment: { amount: number; refunded: number; currency: string }): AppError {
  const left = `what is left to refund on payment page ${pageId}`;
  if (asked === undefined && take < 1) {
    return wrongParameter('amount', `must be at most ${left}, and nothing is left (${payment.refunded} of ${payment.amount} refunded or being refunded)`);
  }
  return wrongParameter('amount', `must be at most ${left}: ${payment.amount - payment.refunded} ${payment.currency} minor units`);
}

/**
 * Group commit of refunds in this process (decisions 0055 and 0069). Refunds of one payment queue on
 * its row lock, which each holds through its statement and its commit's WAL flush; and each statement
 * costs the database a plan's execution and a commit whatever it writes. Here a refund is written at
 * once, alone (decision 0039's statement), when its page has no statement running and fewer than
 * `concurrentStatements` run; else it waits in memory, and the next statement writes it with the
 * others waiting (`ledger.postAtomicallyInOrder`): one group per page, no two pages of one merchant,
 * ≤ `largestBatch` refunds. The statement judges each group's refunds in arrival order against what
 * the ones before it left, exactly as separate statements would have, so correctness comes from the
 * database (other processes' refunds queue on the same row locks); the batching is only fewer
 * statements and commits.
 */
export function createRefundGroupCommit(deps: {
  database: Database;
  ledger: Pick<LedgerService, 'postAtomicallyInOrder'>;
  payments: Pick<PaymentsService, 'isAvailable'>;
}) {
  const { database, ledger, payments } = deps;

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

  /** One statement for the batch, a group per page (in a transaction with the commit guards of those written, when one of them has a guard); decisions in the order of `groups` flattened. */
  async function write(groups: RefundRequest[][]): Promise<RefundDecision[]> {
    const requests = groups.flat();
    if (requests.length === 0) {
      return [];
    }
    const leaders = groups.map((group) => group[0] as RefundRequest);
    const statement = (executor: Executor) =>
      ledger.postAtomicallyInOrder<BatchReport>(executor, {
        name: 'refunds',
        before: refundBatchGateCtes({
          pages: refundPagesSelect(leaders.map((leader) => ({ merchantId: leader.merchantId, livemode: leader.livemode, pageId: leader.pageId }))),
          liveAvailable: payments.isAvailable(true),
          sandboxAvailable: payments.isAvailable(false),
        }),
        after: sql`${takeRefundBatchCte()}, ${refundBatchInsertCtes(
          {
            queue: refundProcessQueue,
            groups: groups.map((group, index) => ({
              merchantId: (leaders[index] as RefundRequest).merchantId,
              paymentPageId: (leaders[index] as RefundRequest).pageId,
              refunds: group.map((request) => ({ id: request.id, reason: request.reason, createdAt: request.createdAt, jobId: newId('job', request.createdAt.getTime()) })),
            })),
          },
          (source) => jobRowsInsertStatement(refundProcessQueue, source),
        )}`,
        report: batchReport,
        kind: 'refund',
        source: 'available',
        destination: 'external',
        groups: groups.map((group, index) => ({
          merchantId: (leaders[index] as RefundRequest).merchantId,
          members: group.map((request) => ({ amount: request.amount ?? null, reference: request.id, idempotencyKey: `${request.id}:refund`, at: request.createdAt })),
        })),
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

  let running = 0;
  /** Pages with a statement running: their refunds wait for it (they would only queue on its row lock). */
  const busy = new Set<string>();
  /** Refunds waiting, in arrival order. While fewer than `concurrentStatements` run, every page here is busy. */
  let waiting: Waiting[] = [];

  /** The next statement's groups: the waiting refunds of pages not busy, one page per merchant, ≤ `largestBatch`, the others left in order. */
  function nextBatch(): Waiting[][] {
    const groups = new Map<string, Waiting[]>();
    const merchants = new Set<string>();
    const left: Waiting[] = [];
    let size = 0;
    for (const entry of waiting) {
      const key = pageKey(entry.request);
      const group = groups.get(key);
      if (size >= largestBatch || busy.has(key) || (!group && merchants.has(entry.request.merchantId))) {
        left.push(entry);
      } else if (group) {
        group.push(entry);
        size += 1;
      } else {
        groups.set(key, [entry]);
        merchants.add(entry.request.merchantId);
        size += 1;
      }
    }
    waiting = left;
    return [...groups.values()];
  }

  /** Counts a statement in from its start to its end, its pages busy meanwhile; then starts what waits. */
  function track<T>(keys: string[], work: Promise<T>): Promise<T> {
    running += 1;
    for (const key of keys) {
      busy.add(key);
    }
    void work
      .catch(() => undefined)
      .then(() => {
        running -= 1;
        for (const key of keys) {
          busy.delete(key);
        }
        startWaiting();
      });
    return work;
  }

  function startWaiting(): void {
    void withoutCommitGuard(async () => pump());
  }

  /** Starts statements for the refunds waiting while fewer than `concurrentStatements` run (outside every request's commit guard: a batch belongs to no single request). */
  function pump(): void {
    while (running < concurrentStatements && waiting.length > 0) {
      const groups = nextBatch();
      const batch = groups.flat();
      const [only] = batch;
      if (!only) {
        return;
      }
      const decided: Promise<RefundDecision[]> =
        batch.length === 1
          ? // Nobody to share the commit with: decision 0039's statement, in the request's own context.
            only.request.alone().then(
              (refund): RefundDecision[] => [{ refund }],
              (error: unknown): RefundDecision[] => [{ error }],
            )
          : write(groups.map((group) => group.map((entry) => entry.request))).catch((error: unknown) => batch.map((): RefundDecision => ({ error })));
      void track(
        groups.map((group) => pageKey((group[0] as Waiting).request)),
        decided.then((decisions) => {
          for (const [index, entry] of batch.entries()) {
            entry.settle(decisions[index] ?? { error: new Error('refund batch: no decision') });
          }
        }),
      );
    }
  }

  return {
    /**
     * Writes a refund at once, alone, when its page has no statement running and fewer than
     * `concurrentStatements` run (in the caller's own async context: no context to capture, the
     * common case of a quiet process); else queues it, to be written with the others that wait.
     * Answers what became of it.
     */
    submit(request: RefundRequest): Promise<RefundDecision> {
      const key = pageKey(request);
      if (running < concurrentStatements && !busy.has(key)) {
        // Nothing waits for this page (while a statement slot is free, only refunds of busy pages wait).
        return track(
          [key],
          request.alone().then(
            (refund): RefundDecision => ({ refund }),
            (error: unknown): RefundDecision => ({ error }),
          ),
        );
      }
      // Made later from a batch's context: it keeps this request's context (its commit guard) for
      // whenever it is made alone (`runInAsyncScope`; `AsyncResource.bind` would do the same at the
      // price of two deprecation wrappers per call).
      const context = new AsyncResource('paysail.refund');
      const alone = request.alone;
      return new Promise((settle) => {
        waiting.push({ request: { ...request, alone: () => context.runInAsyncScope(alone) }, settle });
        startWaiting();
      });
    },
  };
}

export type RefundGroupCommit = ReturnType<typeof createRefundGroupCommit>;
