import { and, eq, inArray, isNotNull, isNull, or, sql } from 'drizzle-orm';
import { subscriptions } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { PaidPeriods } from './paid-periods.ts';
import { noSavedCardReason, type RenewalOutcome, type RunInTransaction, type SubscriptionRow, type SubscriptionsDependencies } from './types.ts';

/**
 * The renewal of one period, exactly once whatever runs it (see createSubscriptionsService): the
 * attempt's payment id reserved on the row, the saved card charged outside any transaction, the
 * outcome recorded under a row lock if the row still has that period and that id.
 */
export function createRenewal(deps: Pick<SubscriptionsDependencies, 'database' | 'clock' | 'savedCards'> & { periods: Pick<PaidPeriods, 'recordSuccess' | 'recordDecline' | 'followRenewalPage'> }) {
  const { database, clock, savedCards } = deps;
  const { recordSuccess, recordDecline, followRenewalPage } = deps.periods;

  /** The saved card to charge: only the customer's own card, of the same merchant and mode. */
  async function savedCardOf(subscription: SubscriptionRow): Promise<string | null> {
    if (!subscription.cardTokenId) {
      return null;
    }
    const token = await savedCards.findCardToken(database.db, subscription.cardTokenId);
    const isOwn = token !== null && token.merchantId === subscription.merchantId && token.livemode === subscription.livemode && token.customerId === subscription.customerId;
    return isOwn ? subscription.cardTokenId : null;
  }

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

  return renew;
}
