import { and, desc, eq, ne, type SQL } from 'drizzle-orm';
import { isId } from '../../crypto/ids.ts';
import { createBoundCursorCodecs, keysetPage, olderThan } from '../../http/paging.ts';
import type { Executor } from '../../db/client.ts';
import { invoices, subscriptions } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError, notFound } from '../../http/errors.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Merchant } from '../merchants/index.ts';
import { periodAt } from './periods.ts';
import type { SubscriptionListInput, SubscriptionListView, SubscriptionResponse } from './schemas.ts';
import { createPaidPeriods } from './paid-periods.ts';
import { createRenewal } from './renewal.ts';
import { renewalQueue, type InvoiceRow, type PaidPayment, type SubscriptionRow, type SubscriptionsDependencies } from './types.ts';
import { toSubscriptionResponse } from './view.ts';

export { toSubscriptionResponse } from './view.ts';
export { authenticationRequiredReason, type RenewalPages } from './renewal-pages.ts';
export {
  noSavedCardReason,
  renewalDedupeKey,
  renewalQueue,
  renewalRetryDelaysMs,
  type PaidPayment,
  type RenewalOutcome,
  type RunInTransaction,
  type SavedCards,
  type SubscriptionRow,
  type SubscriptionsDependencies,
} from './types.ts';

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
  const cursors = createBoundCursorCodecs(deps.keyRing, 'subscriptions');

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

  const { enqueueRenewal, recordPaidPeriod, recordSuccess, recordDecline, followRenewalPage } = createPaidPeriods({ database, clock, entitlements, renewalPages });
  const renew = createRenewal({ database, clock, savedCards, periods: { recordSuccess, recordDecline, followRenewalPage } });

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

    /** `GET /v1/subscriptions`: newest first, keyset-paged like `GET /v1/events`, each as its GET answers it. */
    async listSubscriptions(merchant: Merchant, livemode: boolean | undefined, input: SubscriptionListInput): Promise<SubscriptionListView> {
      const conditions: SQL[] = [
        eq(subscriptions.merchantId, merchant.id),
        ...(livemode === undefined ? [] : [eq(subscriptions.livemode, livemode)]),
        ...(input.customerId === undefined ? [] : [eq(subscriptions.customerId, input.customerId)]),
        ...(input.status === undefined ? [] : [eq(subscriptions.status, input.status)]),
      ];
      const page = await keysetPage({
        input,
        codec: cursors({ merchantId: merchant.id, livemode, customerId: input.customerId, status: input.status }),
        isOwnId: (value) => isId('subscription', value),
        find: async (id) => {
          const [row] = await database.db
            .select({ createdAt: subscriptions.createdAt, id: subscriptions.id })
            .from(subscriptions)
            .where(and(...conditions, eq(subscriptions.id, id)));
          return row ?? null;
        },
        fetch: (after, count) =>
          database.db
            .select()
            .from(subscriptions)
            .where(and(...conditions, ...(after ? [olderThan(subscriptions.createdAt, subscriptions.id, after)] : [])))
            .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
            .limit(count),
      });
      const items = await Promise.all(page.items.map((row) => respond(database.db, row)));
      return { subscriptions: items, hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
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
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.renewalJob()];
    },

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
