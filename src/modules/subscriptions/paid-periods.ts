import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { invoices, subscriptions } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { nextPeriod } from './periods.ts';
import { authenticationRequiredReason, createRenewalPageFlow } from './renewal-pages.ts';
import { renewalDedupeKey, renewalQueue, renewalRetryDelaysMs, type RenewalOutcome, type SubscriptionRow, type SubscriptionsDependencies } from './types.ts';

/**
 * What a subscription records, always inside the caller's transaction: a paid period (invoice and
 * entitlement), a renewal's outcome (the next period, or PAST_DUE / CANCELED with the retry
 * schedule, or a renewal page when the issuer asks for authentication), and the next renewal job.
 */
export function createPaidPeriods(deps: Pick<SubscriptionsDependencies, 'database' | 'clock' | 'entitlements' | 'renewalPages'>) {
  const { database, clock, entitlements, renewalPages } = deps;

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

  return { enqueueRenewal, recordPaidPeriod, recordSuccess, recordDecline, followRenewalPage };
}

export type PaidPeriods = ReturnType<typeof createPaidPeriods>;
