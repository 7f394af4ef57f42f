import type { KeyRing } from '../../crypto/keyring.ts';
import type { Database, Executor } from '../../db/client.ts';
import type { invoices, subscriptions } from '../../db/schema/index.ts';
import type { Clock } from '../../clock.ts';
import type { EntitlementsService } from '../entitlements/index.ts';
import type { PaidPaymentPage } from '../payment-pages/index.ts';
import type { RenewalPages } from './renewal-pages.ts';

/** The subscriptions module's shared types and renewal constants (its services are in service.ts, paid-periods.ts and renewal.ts). */

export type SubscriptionRow = typeof subscriptions.$inferSelect;
export type InvoiceRow = typeof invoices.$inferSelect;

/** What the payment pages service reports when a page is paid (its `onPaid` hook), inside the pay transaction: declared there, once. */
export type PaidPayment = PaidPaymentPage;

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

export const dayMs = 24 * 60 * 60 * 1000;

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
  /** Signs the list's cursors. */
  keyRing: KeyRing;
  clock: Clock;
  entitlements: EntitlementsService;
  /** Renewals charge the saved card through it (the payments module). */
  savedCards: SavedCards;
  /** Pages for a renewal the customer must confirm on-session (the payment pages module); without it, authentication_required is retried like any decline. */
  renewalPages?: RenewalPages;
}
