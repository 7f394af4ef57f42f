import { and, desc, eq, inArray, isNotNull, isNull, ne, or, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { invoices, subscriptions } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock, JobDefinition } from '../../jobs/worker.ts';
import type { Merchant } from '../merchants/service.ts';
import type { EntitlementsService } from '../entitlements/service.ts';
import { nextPeriod, periodAt, type Interval } from './periods.ts';
import type { SubscriptionResponse } from './schemas.ts';
import { authenticationRequiredReason, createRenewalPageFlow, type RenewalPages } from './renewal-pages.ts';
import { toSubscriptionResponse } from './view.ts';

export { toSubscriptionResponse } from './view.ts';
export { authenticationRequiredReason, type RenewalPages } from './renewal-pages.ts';

export type SubscriptionRow = typeof subscriptions.$inferSelect;
type InvoiceRow = typeof invoices.$inferSelect;

/** What the payment pages service reports when a page is paid (its `onPaid` hook), inside the pay transaction. */
export interface PaidPayment {
  merchantId: string;
  livemode: boolean;
  pageId: string;
  paymentId: string;
  customerId: string;
  amount: number;
  currency: string;
  subscription: { productId: string; interval: Interval; intervalCount: number } | null;
  cardTokenId: string | null;
  paidAt: Date;
}

/**
 * Saved cards, as the payment pages module keeps them: renewals charge the card the first payment
 * saved. `chargeSavedCard` records the card payment (kind RENEWAL) and is idempotent by `paymentId`:
 * the processor and the payment record both return the first result for a repeated id.
 */
export interface SavedCards {
  findCardToken(executor: Executor, cardTokenId: string): Promise<{ merchantId: string; livemode: boolean; customerId: string } | null>;
  chargeSavedCard(input: {
    merchantId: string;
    livemode: boolean;
    cardTokenId: string;
    amount: number;
    currency: string;
    pageId?: string | null;
    paymentId?: string;
  }): Promise<{ paymentId: string; status: 'SUCCEEDED' | 'DECLINED'; declineReason: string | null }>;
}

export type RunInTransaction = <T>(work: (tx: Executor) => Promise<T>) => Promise<T>;

export const renewalQueue = 'subscriptions.renew';

const dayMs = 24 * 60 * 60 * 1000;

/**
 * After a declined renewal the card is tried again this long after the period ended (1, 3 and 5
 * days); when the last retry is declined too, the subscription is CANCELED.
 */
export const renewalRetryDelaysMs: readonly number[] = [1 * dayMs, 3 * dayMs, 5 * dayMs];

/** The decline reason recorded when a subscription has no saved card to charge. */
export const noSavedCardReason = 'no_saved_card';

export type RenewalOutcome =
  | { kind: 'renewed' }
  | { kind: 'declined'; status: 'PAST_DUE' | 'CANCELED' }
  | { kind: 'canceled' }
  /** Not due yet (or not yet time for the next retry). */
  | { kind: 'wait'; until: Date }
  /** Someone else already moved this period on (or the subscription ended): nothing to do. */
  | { kind: 'stale' };

export function renewalDedupeKey(subscriptionId: string, periodEnd: Date, retry = 0): string {
  const base = `renew:${subscriptionId}:${periodEnd.getTime()}`;
  return retry === 0 ? base : `${base}:retry-${retry}`;
}

export interface SubscriptionsDependencies {
  database: Database;
  clock: Clock;
  entitlements: EntitlementsService;
  /** Renewals charge the saved card through it (the payments module). */
  savedCards: SavedCards;
  /** Pages for a renewal the customer must confirm on-session (the payment pages module); without it, authentication_required is retried like any decline. */
  renewalPages?: RenewalPages;
}

/**
 * Subscriptions: started by a paid payment page (`startFromPayment`, the payment pages' onPaid
 * hook), renewed by the `subscriptions.renew` job at each period end, canceled by the merchant.
 *
 * Renewal is exactly once per period, whatever runs it (the job, a second worker after a lease
 * expired, the sandbox helper) and wherever it crashes:
 * 1. the attempt's card payment id is reserved on the subscription row before the card is charged
 *    (a conditional update on the period end and attempt count; concurrent runners get the same id
 *    back), so the payment record's and the processor's idempotency by payment id make every runner
 *    the same charge;
 * 2. the outcome is recorded under a row lock, only if the row still has that period end and that
 *    reserved id, in one transaction with the invoice, the entitlement (unique key), the event and
 *    the next renewal job;
 * 3. a crash between the charge and the record leaves the reservation in place; the job's retry
 *    charges again with the same id, gets the first answer back, and records it.
 * The card is charged outside any transaction of ours: no row lock is held over a network call, and
 * the embedded database (one session) is never blocked by it.
 */
export function createSubscriptionsService(deps: SubscriptionsDependencies) {
  const { database, clock, entitlements, savedCards, renewalPages } = deps;

  function scoped(merchantId: string, livemode: boolean | undefined, subscriptionId: string): SQL {
    const conditions = [eq(subscriptions.merchantId, merchantId), eq(subscriptions.id, subscriptionId)];
    if (livemode !== undefined) {
      conditions.push(eq(subscriptions.livemode, livemode));
    }
    return and(...conditions) as SQL;
  }

  async function latestInvoice(executor: Executor, subscriptionId: string): Promise<InvoiceRow | null> {
    const [row] = await executor.select().from(invoices).where(eq(invoices.subscriptionId, subscriptionId)).orderBy(desc(invoices.periodNumber)).limit(1);
    return row ?? null;
  }

  async function respond(executor: Executor, row: SubscriptionRow): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(row, await latestInvoice(executor, row.id), row.renewalPageId && renewalPages ? renewalPages.urlOf(row.renewalPageId) : null);
  }

  async function findScoped(executor: Executor, merchantId: string, livemode: boolean | undefined, subscriptionId: string): Promise<SubscriptionRow> {
    const [row] = await executor.select().from(subscriptions).where(scoped(merchantId, livemode, subscriptionId));
    if (!row) {
      throw notFound('subscription', subscriptionId);
    }
    return row;
  }

  /** The saved card to charge: only the customer's own card, of the same merchant and mode. */
  async function savedCardOf(subscription: SubscriptionRow): Promise<string | null> {
    if (!subscription.cardTokenId) {
      return null;
    }
    const token = await savedCards.findCardToken(database.db, subscription.cardTokenId);
    const isOwn = token !== null && token.merchantId === subscription.merchantId && token.livemode === subscription.livemode && token.customerId === subscription.customerId;
    return isOwn ? subscription.cardTokenId : null;
  }

  async function enqueueRenewal(tx: Executor, subscriptionId: string, periodEnd: Date, now: Date, runAt: Date = periodEnd, retry = 0): Promise<void> {
    await enqueueJob(tx, now, renewalQueue, { subscriptionId, periodEnd: periodEnd.getTime() }, { runAt, dedupeKey: renewalDedupeKey(subscriptionId, periodEnd, retry), maxAttempts: 25 });
  }

  /** Invoice + entitlement (+ ENTITLEMENT_CREATED) for one paid period. */
  async function recordPaidPeriod(
    tx: Executor,
    subscription: Pick<SubscriptionRow, 'id' | 'merchantId' | 'livemode' | 'customerId' | 'productId' | 'amount' | 'currency'>,
    paid: { paymentId: string; periodNumber: number; start: Date; end: Date; paidAt: Date },
    now: Date,
  ): Promise<void> {
    const invoiceId = newId('invoice', now.getTime());
    await tx.insert(invoices).values({
      id: invoiceId,
      merchantId: subscription.merchantId,
      livemode: subscription.livemode,
      subscriptionId: subscription.id,
      customerId: subscription.customerId,
      amount: subscription.amount,
      currency: subscription.currency,
      status: 'PAID',
      paymentId: paid.paymentId,
      periodNumber: paid.periodNumber,
      periodStart: paid.start,
      periodEnd: paid.end,
      paidAt: paid.paidAt,
      createdAt: now,
    });
    await entitlements.createEntitlement(
      tx,
      {
        merchantId: subscription.merchantId,
        livemode: subscription.livemode,
        customerId: subscription.customerId,
        subscriptionId: subscription.id,
        productId: subscription.productId,
        invoiceId,
        startPeriod: paid.start,
        endPeriod: paid.end,
      },
      now,
    );
  }

  /** A paid renewal: the next period, its invoice and entitlement; `cardTokenId`, when the customer paid on a renewal page with a newly saved card, becomes the card renewals charge. */
  async function recordSuccess(tx: Executor, current: SubscriptionRow, paymentId: string, now: Date, cardTokenId: string | null = null): Promise<RenewalOutcome> {
    const next = nextPeriod(
      { anchorAt: current.anchorAt, anchorPeriodIndex: current.anchorPeriodIndex, interval: current.interval, intervalCount: current.intervalCount },
      current.currentPeriodEnd,
      now,
    );
    const periodNumber = current.paidPeriods + 1;
    await recordPaidPeriod(tx, current, { paymentId, periodNumber, start: next.period.start, end: next.period.end, paidAt: now }, now);
    await tx
      .update(subscriptions)
      .set({
        status: 'ACTIVE',
        anchorAt: next.schedule.anchorAt,
        anchorPeriodIndex: next.schedule.anchorPeriodIndex,
        currentPeriodStart: next.period.start,
        currentPeriodEnd: next.period.end,
        paidPeriods: periodNumber,
        failedRenewalAttempts: 0,
        pendingRenewalPaymentId: null,
        nextRenewalAttemptAt: null,
        lastDeclineReason: null,
        renewalPageId: null,
        ...(cardTokenId ? { cardTokenId } : {}),
        updatedAt: now,
      })
      .where(eq(subscriptions.id, current.id));
    await enqueueRenewal(tx, current.id, next.period.end, now);
    return { kind: 'renewed' };
  }

  async function recordDecline(tx: Executor, current: SubscriptionRow, declineReason: string, now: Date): Promise<RenewalOutcome> {
    const failed = current.failedRenewalAttempts + 1;
    if (declineReason === authenticationRequiredReason && renewalPages && !current.cancelAtPeriodEnd) {
      return awaitRenewalPage(tx, current, failed, now);
    }
    const retryDelay = renewalRetryDelaysMs[failed - 1];
    if (retryDelay === undefined || current.cancelAtPeriodEnd) {
      await tx
        .update(subscriptions)
        .set({ status: 'CANCELED', endedAt: now, failedRenewalAttempts: failed, pendingRenewalPaymentId: null, nextRenewalAttemptAt: null, lastDeclineReason: declineReason, updatedAt: now })
        .where(eq(subscriptions.id, current.id));
      return { kind: 'declined', status: 'CANCELED' };
    }
    const retryAt = new Date(Math.max(current.currentPeriodEnd.getTime() + retryDelay, now.getTime()));
    await tx
      .update(subscriptions)
      .set({ status: 'PAST_DUE', failedRenewalAttempts: failed, pendingRenewalPaymentId: null, nextRenewalAttemptAt: retryAt, lastDeclineReason: declineReason, updatedAt: now })
      .where(eq(subscriptions.id, current.id));
    await enqueueRenewal(tx, current.id, current.currentPeriodEnd, now, retryAt, failed);
    return { kind: 'declined', status: 'PAST_DUE' };
  }

  const { awaitRenewalPage, followRenewalPage } = createRenewalPageFlow({ database, clock, renewalPages, enqueueRenewal, lastRetryDelayMs: renewalRetryDelaysMs[renewalRetryDelaysMs.length - 1] });

  /**
   * Renews the subscription whose current period ends at `periodEnd`, if it still does. `force`
   * (the sandbox helper) runs it without waiting for the period end or a PAST_DUE retry time.
   */
  async function renew(subscriptionId: string, periodEnd: Date, options: { transaction: RunInTransaction; force: boolean }): Promise<RenewalOutcome> {
    const now = clock.now();
    const [subscription] = await database.db.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId));
    if (!subscription || subscription.status === 'CANCELED' || subscription.currentPeriodEnd.getTime() !== periodEnd.getTime()) {
      return { kind: 'stale' };
    }
    if (!options.force && now.getTime() < periodEnd.getTime()) {
      return { kind: 'wait', until: periodEnd };
    }
    const retryAt = subscription.nextRenewalAttemptAt;
    if (!options.force && subscription.pendingRenewalPaymentId === null && retryAt && now.getTime() < retryAt.getTime()) {
      return { kind: 'wait', until: retryAt };
    }
    const samePeriod = and(eq(subscriptions.id, subscriptionId), eq(subscriptions.currentPeriodEnd, periodEnd), inArray(subscriptions.status, ['ACTIVE', 'PAST_DUE']));

    if (subscription.renewalPageId !== null && subscription.pendingRenewalPaymentId === null) {
      // The customer pays this renewal on its page; no off-session charge while it is open.
      return followRenewalPage(subscription, subscription.renewalPageId, periodEnd, options);
    }

    if (subscription.pendingRenewalPaymentId === null && subscription.cancelAtPeriodEnd) {
      return options.transaction(async (tx) => {
        const ended = await tx
          .update(subscriptions)
          .set({ status: 'CANCELED', endedAt: periodEnd, nextRenewalAttemptAt: null, updatedAt: now })
          .where(and(samePeriod, isNull(subscriptions.pendingRenewalPaymentId)))
          .returning({ id: subscriptions.id });
        return ended.length === 1 ? { kind: 'canceled' } : { kind: 'stale' };
      });
    }

    // Reserve this attempt's payment id (or take the one an earlier runner of the attempt reserved).
    // A cancellation only stops attempts that have not started: a charge in flight is always settled.
    const [reserved] = await database.db
      .update(subscriptions)
      .set({ pendingRenewalPaymentId: sql`coalesce(${subscriptions.pendingRenewalPaymentId}, ${newId('payment', now.getTime())})`, updatedAt: now })
      .where(
        and(
          samePeriod,
          eq(subscriptions.failedRenewalAttempts, subscription.failedRenewalAttempts),
          or(isNotNull(subscriptions.pendingRenewalPaymentId), eq(subscriptions.cancelAtPeriodEnd, false)),
        ),
      )
      .returning({ paymentId: subscriptions.pendingRenewalPaymentId });
    const paymentId = reserved?.paymentId;
    if (!paymentId) {
      return { kind: 'stale' };
    }

    const cardTokenId = await savedCardOf(subscription);
    const charge = cardTokenId
      ? await savedCards.chargeSavedCard({
          merchantId: subscription.merchantId,
          livemode: subscription.livemode,
          cardTokenId,
          amount: subscription.amount,
          currency: subscription.currency,
          pageId: subscription.pageId,
          paymentId,
        })
      : { paymentId, status: 'DECLINED' as const, declineReason: noSavedCardReason };

    return options.transaction(async (tx) => {
      const [current] = await tx.select().from(subscriptions).where(eq(subscriptions.id, subscriptionId)).for('update');
      if (!current || current.status === 'CANCELED' || current.pendingRenewalPaymentId !== paymentId || current.currentPeriodEnd.getTime() !== periodEnd.getTime()) {
        return { kind: 'stale' };
      }
      return charge.status === 'SUCCEEDED' ? recordSuccess(tx, current, paymentId, now) : recordDecline(tx, current, charge.declineReason ?? 'declined', now);
    });
  }

  return {
    /**
     * The payment pages' onPaid hook: a paid page that carries `subscription` starts one, with its
     * first period [paidAt, paidAt + interval), paid by this payment. Runs in the pay transaction;
     * a repeated call for the same page returns the same subscription.
     */
    async startFromPayment(tx: Executor, paid: PaidPayment, now: Date): Promise<{ subscriptionId: string } | undefined> {
      if (!paid.subscription) {
        return undefined;
      }
      // A renewal page paid: that subscription's overdue renewal, not a new subscription.
      const [renewing] = await tx.select().from(subscriptions).where(eq(subscriptions.renewalPageId, paid.pageId)).for('update');
      if (renewing) {
        if (renewing.status === 'PAST_DUE' && renewing.pendingRenewalPaymentId === null) {
          await recordSuccess(tx, renewing, paid.paymentId, now, paid.cardTokenId);
        }
        return { subscriptionId: renewing.id };
      }
      const { productId, interval, intervalCount } = paid.subscription;
      const period = periodAt(paid.paidAt, interval, intervalCount, 0);
      const [created] = await tx
        .insert(subscriptions)
        .values({
          id: newId('subscription', now.getTime()),
          merchantId: paid.merchantId,
          livemode: paid.livemode,
          customerId: paid.customerId,
          productId,
          status: 'ACTIVE',
          interval,
          intervalCount,
          amount: paid.amount,
          currency: paid.currency,
          pageId: paid.pageId,
          cardTokenId: paid.cardTokenId,
          anchorAt: paid.paidAt,
          anchorPeriodIndex: 0,
          currentPeriodStart: period.start,
          currentPeriodEnd: period.end,
          paidPeriods: 1,
          createdAt: now,
          updatedAt: now,
        })
        .onConflictDoNothing({ target: subscriptions.pageId })
        .returning();
      if (!created) {
        const [existing] = await tx.select({ id: subscriptions.id }).from(subscriptions).where(eq(subscriptions.pageId, paid.pageId));
        if (!existing) {
          throw new Error(`subscription for page ${paid.pageId} vanished`);
        }
        return { subscriptionId: existing.id };
      }
      await recordPaidPeriod(tx, created, { paymentId: paid.paymentId, periodNumber: 1, start: period.start, end: period.end, paidAt: paid.paidAt }, now);
      await enqueueRenewal(tx, created.id, period.end, now);
      return { subscriptionId: created.id };
    },

    async getSubscription(merchant: Merchant, livemode: boolean | undefined, subscriptionId: string): Promise<SubscriptionResponse> {
      return respond(database.db, await findScoped(database.db, merchant.id, livemode, subscriptionId));
    },

    /**
     * Cancels at the end of the current period: no renewal, CANCELED when the period ends (the
     * renewal job does it). A PAST_DUE subscription has no paid period left, so it ends now, unless
     * a renewal charge is in flight: that charge is settled first, and the cancellation then takes
     * effect at the end of what it paid for (or at once if it was declined).
     */
    async cancelSubscription(merchant: Merchant, livemode: boolean | undefined, subscriptionId: string): Promise<SubscriptionResponse> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        const [current] = await tx.select().from(subscriptions).where(scoped(merchant.id, livemode, subscriptionId)).for('update');
        if (!current) {
          throw notFound('subscription', subscriptionId);
        }
        if (current.status === 'CANCELED') {
          throw new AppError('INVALID_STATE', `Subscription ${current.id} is already canceled`);
        }
        if (current.cancelAtPeriodEnd) {
          return respond(tx, current);
        }
        // A renewal page still open decides first, like a charge in flight: paid → ends after the paid period; expired → ends then.
        const endsNow = current.status === 'PAST_DUE' && current.pendingRenewalPaymentId === null && current.renewalPageId === null;
        const [updated] = await tx
          .update(subscriptions)
          .set(
            endsNow
              ? { status: 'CANCELED', cancelAtPeriodEnd: true, canceledAt: now, endedAt: now, nextRenewalAttemptAt: null, updatedAt: now }
              : { cancelAtPeriodEnd: true, canceledAt: now, updatedAt: now },
          )
          .where(eq(subscriptions.id, current.id))
          .returning();
        if (!updated) {
          throw notFound('subscription', subscriptionId);
        }
        return respond(tx, updated);
      });
    },

    /**
     * Sandbox helper: ends the current period now (its entitlement ends with it) and runs the renewal
     * at once, through the same code as the job. A PAST_DUE subscription is retried at once. A
     * renewal job for the shortened period end is enqueued in the same transaction, so a failure of
     * the immediate run is picked up by the worker like any other renewal.
     */
    async renewNow(merchant: Merchant, livemode: boolean | undefined, subscriptionId: string): Promise<SubscriptionResponse> {
      if (livemode === true) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only: pass livemode=false');
      }
      const subscription = await findScoped(database.db, merchant.id, livemode, subscriptionId);
      if (subscription.livemode) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this subscription is live');
      }
      if (subscription.status === 'CANCELED') {
        throw new AppError('INVALID_STATE', `Subscription ${subscription.id} is canceled and cannot be renewed`);
      }
      let periodEnd = subscription.currentPeriodEnd;
      const now = clock.now();
      if (periodEnd.getTime() > now.getTime()) {
        // A period is never empty: ending it "now" at the very millisecond it started ends it 1 ms later.
        const newEnd = new Date(Math.max(now.getTime(), subscription.currentPeriodStart.getTime() + 1));
        await database.transaction(async (tx) => {
          const ended = await tx
            .update(subscriptions)
            .set({ currentPeriodEnd: newEnd, updatedAt: now })
            .where(and(eq(subscriptions.id, subscription.id), eq(subscriptions.currentPeriodEnd, periodEnd), ne(subscriptions.status, 'CANCELED')))
            .returning({ id: subscriptions.id });
          if (ended.length === 0) {
            throw new AppError('INVALID_STATE', `Subscription ${subscription.id} changed while ending its period; retry`);
          }
          await entitlements.shortenEntitlement(tx, subscription.id, { start: subscription.currentPeriodStart, end: periodEnd }, newEnd, now);
          await enqueueRenewal(tx, subscription.id, newEnd, now);
        });
        periodEnd = newEnd;
      }
      await renew(subscription.id, periodEnd, { transaction: (work) => database.transaction((tx) => work(tx)), force: true });
      return respond(database.db, await findScoped(database.db, merchant.id, livemode, subscriptionId));
    },

    renew,

    /** The renewal job: enqueued at each period end (and at each retry time) with a unique dedupe key. */
    renewalJob(): JobDefinition<{ subscriptionId: string; periodEnd: number }> {
      return {
        queue: renewalQueue,
        maxAttempts: 25,
        handle: async (payload, context) => {
          const outcome = await renew(payload.subscriptionId, new Date(payload.periodEnd), { transaction: (work) => context.transaction((tx) => work(tx)), force: false });
          if (outcome.kind === 'wait') {
            return { rescheduleAt: outcome.until };
          }
        },
      };
    },
  };
}

export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>;
