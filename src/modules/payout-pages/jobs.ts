import type { Executor } from '../../db/client.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import { payoutAttemptsRepository as attempts, type PayoutAttemptRow } from './attempts.ts';
import { payoutPagesRepository as repository } from './repository.ts';
import { awaitingFundingReason, type PayoutRailStatus } from './rails/types.ts';
import { payoutExpireQueue, payoutReconcileQueue, payoutSettleQueue, payoutSubmitQueue, type PayoutPagesDeps, type PayoutTransitions } from './transitions.ts';

const defaultReconcileAfterMs = 15 * 60 * 1000;
const reconcileBatch = 100;

/** Older jobs carry only the page id; newer ones name the attempt too. */
interface AttemptJob {
  payoutPageId: string;
  payoutId?: string;
}

/** The payout pages' background work: expiry, hand-over to the rail, and the rail's answers. */
export function createPayoutJobs(deps: PayoutPagesDeps, transitions: PayoutTransitions) {
  const { database, clock } = deps;
  const { act, railFor, railNamed, destinationOf } = transitions;

  async function attemptOf(executor: Executor, job: AttemptJob): Promise<PayoutAttemptRow | null> {
    return job.payoutId ? attempts.findById(executor, job.payoutId) : attempts.live(executor, job.payoutPageId);
  }

  /** `dedupe`: the first poll after submission and the recheck a PAID answer asks for are scheduled once each. */
  async function enqueueSettle(tx: Executor, now: Date, attempt: PayoutAttemptRow, runAt: Date, dedupe: 'poll' | 'recheck' | null): Promise<void> {
    const dedupeKey = dedupe === null ? {} : { dedupeKey: `${payoutSettleQueue}:${attempt.id}${dedupe === 'recheck' ? ':recheck' : ''}` };
    await enqueueJob(tx, now, payoutSettleQueue, { payoutPageId: attempt.payoutPageId, payoutId: attempt.id }, { runAt, maxAttempts: 50, ...dedupeKey });
  }

  /** Applies the answer; a PAID answer that names a later recheck (a return may come) schedules it. */
  async function settleIn(tx: Executor, attempt: PayoutAttemptRow, outcome: PayoutRailStatus, now: Date): Promise<void> {
    await applyRailStatus(tx, attempt, outcome, now);
    if (outcome.status === 'PAID' && outcome.recheckAt) {
      await enqueueSettle(tx, now, attempt, outcome.recheckAt, 'recheck');
    }
  }

  /**
   * Applies what the rail says about an attempt, in the caller's transaction: the attempt moves by
   * a conditional UPDATE first (so a webhook and a poll racing apply a change once), then the page
   * through the state table (ledger, history, event, e-mail). A RETURNED answer to a payout we
   * never saw PAID applies both steps, in order.
   */
  async function applyRailStatus(tx: Executor, attempt: PayoutAttemptRow, outcome: PayoutRailStatus, now: Date): Promise<void> {
    const page = () => repository.findById(tx, attempt.payoutPageId);
    if (outcome.status === 'PENDING') {
      return;
    }
    if (outcome.status === 'REJECTED') {
      if (await attempts.move(tx, attempt.id, 'SUBMITTED', { status: 'REJECTED', reason: outcome.reason, finishedAt: now, updatedAt: now })) {
        await act(tx, page, 'railRejected', { actor: 'rail', now, reason: outcome.reason });
      }
      return;
    }
    if (attempt.status === 'SUBMITTED') {
      const paid = await attempts.move(tx, attempt.id, 'SUBMITTED', {
        status: 'PAID',
        paidAt: now,
        updatedAt: now,
        ...(outcome.status === 'PAID' && outcome.transactionHash ? { transactionHash: outcome.transactionHash } : {}),
      });
      // When another job moved it first (a settlement and a return racing), its PAID is the
      // state the return below starts from: this job must still apply a RETURNED answer.
      if (paid) {
        if (outcome.status === 'PAID' && outcome.transactionHash) {
          await repository.recordTransactionHash(tx, attempt.payoutPageId, outcome.transactionHash);
        }
        await act(tx, page, 'railPaid', { actor: 'rail', now });
      }
    }
    if (outcome.status === 'RETURNED' && (await attempts.move(tx, attempt.id, 'PAID', { status: 'RETURNED', reason: outcome.reason, finishedAt: now, updatedAt: now }))) {
      await act(tx, page, 'railReturned', { actor: 'rail', now, reason: outcome.reason });
    }
  }

  const reconcileAfterMs = deps.reconcileAfterMs ?? defaultReconcileAfterMs;

  /** The next reconciliation run, once per slot of `reconcileAfterMs` (a unique key makes repeats no-ops). */
  async function scheduleReconcile(tx: Executor, now: Date): Promise<void> {
    const next = new Date(Math.floor(now.getTime() / reconcileAfterMs + 1) * reconcileAfterMs);
    await enqueueJob(tx, now, payoutReconcileQueue, {}, { runAt: next, dedupeKey: `${payoutReconcileQueue}:${next.toISOString()}`, maxAttempts: 5 });
  }

  return {
    applyRailStatus,
    scheduleReconcile,

    /**
     * Reconciliation: attempts handed over longer than `reconcileAfterMs` ago without a final answer
     * are looked up again through the same jobs — a SUBMITTING one (its answer was lost and its job
     * gave up) by the submit job, which retrieves it by our id before anything else; a SUBMITTED one
     * by the settle job. Then the next run is scheduled.
     */
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.expireJob(), this.submitJob(), this.settleJob(), this.reconcileJob()];
    },

    reconcileJob(): JobDefinition<Record<string, never>> {
      return {
        queue: payoutReconcileQueue,
        maxAttempts: 5,
        handle: async (_payload, context) => {
          const now = clock.now();
          const stale = await attempts.unsettled(database.db, new Date(now.getTime() - reconcileAfterMs), reconcileBatch);
          await context.transaction(async (tx) => {
            for (const attempt of stale) {
              const queue = attempt.status === 'SUBMITTING' ? payoutSubmitQueue : payoutSettleQueue;
              await enqueueJob(tx, now, queue, { payoutPageId: attempt.payoutPageId, payoutId: attempt.id }, { dedupeKey: `${queue}:${attempt.id}:reconcile:${now.getTime()}`, maxAttempts: 20 });
            }
            await scheduleReconcile(tx, now);
          });
        },
      };
    },

    /**
     * A rail learned of a change on its own (a verified provider webhook): ask the rail and apply,
     * in a job. Not deduplicated: the caller deduplicates the provider's events, and applying is
     * idempotent.
     */
    async railChanged(tx: Executor, now: Date, payoutId: string): Promise<void> {
      const attempt = await attempts.findById(tx, payoutId);
      if (attempt) {
        await enqueueSettle(tx, now, attempt, now, null);
      }
    },

    /** Unconfirmed at expiresAt → EXPIRED (the reservation is released). */
    expireJob(): JobDefinition<{ payoutPageId: string }> {
      return {
        queue: payoutExpireQueue,
        maxAttempts: 20,
        handle: async ({ payoutPageId }, context) => {
          await context.transaction(async (tx) => {
            const now = clock.now();
            await act(
              tx,
              async () => {
                const page = await repository.findById(tx, payoutPageId);
                return page && page.expiresAt.getTime() <= now.getTime() ? page : null;
              },
              'expire',
              { actor: 'system', now },
            );
          });
        },
      };
    },

    /**
     * Hands a SUBMITTING attempt to its rail, outside any transaction. An earlier run may have
     * reached the rail and lost the answer (a crash, a timeout): the attempt is looked up by its id
     * first and submitted only when the rail has never seen it; the submission itself is idempotent
     * on the same id too.
     */
    submitJob(): JobDefinition<AttemptJob> {
      return {
        queue: payoutSubmitQueue,
        maxAttempts: 20,
        handle: async (job, context) => {
          const page = await repository.findById(database.db, job.payoutPageId);
          const attempt = await attemptOf(database.db, job);
          if (!page || !attempt || page.status !== 'PROCESSING' || attempt.status !== 'SUBMITTING') {
            return;
          }
          const rail = railFor(page.livemode, page.payoutMethod?.type);
          const destination = destinationOf(page);
          if (!rail || !destination) {
            throw new Error(`payout page ${page.id} cannot be submitted: ${rail ? 'no destination' : 'no rail'}`);
          }
          const merchantName = await repository.merchantName(database.db, page.merchantId);
          const found = await rail.retrieve(attempt.id, attempt.createdAt);
          if (!found && rail.availableBalance) {
            // Operator funding: a payout the rail account cannot cover waits, visibly, and goes on its own once funded.
            const available = await rail.availableBalance({ currency: page.fundingCurrency, destination });
            if (available !== null && available < page.amount) {
              await repository.setProcessingReason(database.db, page.id, awaitingFundingReason, clock.now());
              return { rescheduleAt: new Date(clock.now().getTime() + rail.pollIntervalMs) };
            }
          }
          const record =
            found ??
            (await rail.submit({ payoutId: attempt.id, livemode: page.livemode, amount: page.amount, currency: page.fundingCurrency, destination, merchantName }));
          await context.transaction(async (tx) => {
            const now = clock.now();
            const submitted = await attempts.move(tx, attempt.id, 'SUBMITTING', { status: 'SUBMITTED', railReference: record.reference, submittedAt: now, updatedAt: now });
            if (!submitted) {
              return;
            }
            await repository.recordRailSubmission(tx, page.id, rail.name, record.reference, now);
            await repository.setProcessingReason(tx, page.id, null, now);
            if (record.status.status === 'PENDING') {
              await enqueueSettle(tx, now, submitted, new Date(now.getTime() + rail.pollIntervalMs), 'poll');
            } else {
              await settleIn(tx, submitted, record.status, now);
            }
          });
        },
      };
    },

    /**
     * Asks the rail where a submitted (or paid, when the rail said a return may still come) attempt
     * is, and applies the answer: PAID settles (in flight → external), REJECTED returns the funds
     * (in flight → available), RETURNED gives them back after payment (external → available).
     */
    settleJob(): JobDefinition<AttemptJob> {
      return {
        queue: payoutSettleQueue,
        maxAttempts: 50,
        handle: async (job, context) => {
          const attempt = await attemptOf(database.db, job);
          if (!attempt || attempt.railReference === null || (attempt.status !== 'SUBMITTED' && attempt.status !== 'PAID')) {
            return;
          }
          const rail = railNamed(attempt.livemode, attempt.rail);
          if (!rail) {
            throw new Error(`payout attempt ${attempt.id} has no rail`);
          }
          const outcome = await rail.fetchStatus(attempt.railReference);
          if (outcome.status === 'PENDING') {
            return attempt.status === 'SUBMITTED' ? { rescheduleAt: new Date(clock.now().getTime() + rail.pollIntervalMs) } : undefined;
          }
          // The job completes in this transaction (a later recheck is a job of its own).
          await context.transaction((tx) => settleIn(tx, attempt, outcome, clock.now()));
          return undefined;
        },
      };
    },
  };
}
