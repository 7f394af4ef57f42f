import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { subscriptions } from '../../db/schema/index.ts';
import type { Clock } from '../../clock.ts';

type SubscriptionRow = typeof subscriptions.$inferSelect;
type RunInTransaction = <T>(work: (tx: Executor) => Promise<T>) => Promise<T>;
type Outcome = { kind: 'declined'; status: 'PAST_DUE' | 'CANCELED' } | { kind: 'wait'; until: Date } | { kind: 'stale' };

const dayMs = 24 * 60 * 60 * 1000;

/** Renewal pages, as the payment pages module opens them (see RenewalPages in its index). */
export interface RenewalPages {
  open(tx: Executor, input: { subscriptionId: string; subscriptionPageId: string; amount: number; currency: string; periodEnd: Date; expiresAt: Date }, now: Date): Promise<{ pageId: string; url: string }>;
  statusOf(executor: Executor, pageId: string): Promise<'CREATED' | 'PAID' | 'EXPIRED' | null>;
  urlOf(pageId: string): string;
}

/** The decline that sends the customer to a renewal page instead of more off-session retries. */
export const authenticationRequiredReason = 'authentication_required';
/** How often a subscription waiting for its renewal page looks at it again. */
const renewalPagePollMs = 15 * 60_000;

/**
 * Renewals the customer must confirm on-session (the issuer asked for authentication): the page
 * they pay it on, and what the renewal job does while it is open.
 */
export function createRenewalPageFlow(deps: {
  database: Database;
  clock: Clock;
  renewalPages: RenewalPages | undefined;
  /** The last off-session retry's delay after the period end: the page stays open that long. */
  lastRetryDelayMs?: number;
  enqueueRenewal: (tx: Executor, subscriptionId: string, periodEnd: Date, now: Date, runAt?: Date, retry?: number) => Promise<void>;
}) {
  const { database, clock, renewalPages, enqueueRenewal } = deps;
  const lastRetryDelayMs = deps.lastRetryDelayMs ?? 5 * dayMs;

  /**
   * The issuer wants the customer to authenticate: off-session retries would fail the same way, so
   * the customer gets a renewal page (open until the last retry would have run, at least a day)
   * and the subscription is PAST_DUE until it is paid (the renewal) or expires (CANCELED).
   */
  async function awaitRenewalPage(tx: Executor, current: SubscriptionRow, failed: number, now: Date): Promise<Outcome> {
    if (!renewalPages) {
      throw new Error('renewal pages are not available');
    }
    const expiresAt = new Date(Math.max(current.currentPeriodEnd.getTime() + lastRetryDelayMs, now.getTime() + dayMs));
    const page = current.renewalPageId ? { pageId: current.renewalPageId } : await renewalPages.open(tx, { subscriptionId: current.id, subscriptionPageId: current.pageId, amount: current.amount, currency: current.currency, periodEnd: current.currentPeriodEnd, expiresAt }, now);
    await tx
      .update(subscriptions)
      .set({ status: 'PAST_DUE', failedRenewalAttempts: failed, pendingRenewalPaymentId: null, nextRenewalAttemptAt: null, lastDeclineReason: authenticationRequiredReason, renewalPageId: page.pageId, updatedAt: now })
      .where(eq(subscriptions.id, current.id));
    await enqueueRenewal(tx, current.id, current.currentPeriodEnd, now, expiresAt, failed);
    return { kind: 'declined', status: 'PAST_DUE' };
  }

  /**
   * A subscription waiting for its renewal page: paid → the page's settlement already renewed it
   * (stale); still open → look again later; expired unpaid → CANCELED for non-payment.
   */
  async function followRenewalPage(subscription: SubscriptionRow, pageId: string, periodEnd: Date, options: { transaction: RunInTransaction }): Promise<Outcome> {
    const status = renewalPages ? await renewalPages.statusOf(database.db, pageId) : null;
    const now = clock.now();
    if (status === 'CREATED') {
      return { kind: 'wait', until: new Date(now.getTime() + renewalPagePollMs) };
    }
    if (status === 'PAID') {
      return { kind: 'stale' };
    }
    return options.transaction(async (tx): Promise<Outcome> => {
      const ended = await tx
        .update(subscriptions)
        .set({ status: 'CANCELED', endedAt: now, nextRenewalAttemptAt: null, updatedAt: now })
        .where(and(eq(subscriptions.id, subscription.id), eq(subscriptions.currentPeriodEnd, periodEnd), eq(subscriptions.renewalPageId, pageId), eq(subscriptions.status, 'PAST_DUE')))
        .returning({ id: subscriptions.id });
      return ended.length === 1 ? { kind: 'declined', status: 'CANCELED' } : { kind: 'stale' };
    });
  }

  return { awaitRenewalPage, followRenewalPage };
}
