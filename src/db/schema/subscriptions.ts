import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { customers } from './customers.ts';
import { merchants } from './merchants.ts';
import { subscriptionIntervals } from './payments.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const subscriptionStatuses = ['ACTIVE', 'PAST_DUE', 'CANCELED'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

/**
 * Subscriptions (docs/API.md §11), created by a paid payment page that carries `subscription`.
 *
 * Period boundaries are computed from `anchor_at` (see modules/subscriptions/periods.ts): the current
 * period is period number `anchor_period_index` counted from the anchor. A renewal is one conditional
 * step on (`id`, `current_period_end`): whoever moves the period first wins, everyone else finds it
 * moved and does nothing.
 */
export const subscriptions = pgTable(
  'subscriptions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    productId: text('product_id').notNull(),
    status: text('status', { enum: subscriptionStatuses }).notNull(),
    interval: text('interval', { enum: subscriptionIntervals }).notNull(),
    intervalCount: integer('interval_count').notNull(),
    /** Charged at every renewal: the first payment's amount and currency. */
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    /** The payment page whose payment started the subscription (one subscription per page). */
    pageId: text('page_id').notNull(),
    /** Our id of the saved card (card_tokens); null when the processor gave no token. */
    cardTokenId: text('card_token_id'),
    anchorAt: timestamptz('anchor_at').notNull(),
    anchorPeriodIndex: integer('anchor_period_index').notNull(),
    currentPeriodStart: timestamptz('current_period_start').notNull(),
    currentPeriodEnd: timestamptz('current_period_end').notNull(),
    /** Paid periods so far (1 after the first payment); names the period a renewal charge pays for. */
    paidPeriods: integer('paid_periods').notNull(),
    /** Declined renewal attempts for the period now due (0 when ACTIVE). */
    failedRenewalAttempts: integer('failed_renewal_attempts').notNull().default(0),
    /**
     * The card payment id of the renewal attempt in flight. Reserved before the processor is called
     * and reused by every runner of the same attempt (crash, lease expiry, a parallel test helper), so
     * the processor's idempotency turns them into one charge.
     */
    pendingRenewalPaymentId: text('pending_renewal_payment_id'),
    nextRenewalAttemptAt: timestamptz('next_renewal_attempt_at'),
    lastDeclineReason: text('last_decline_reason'),
    /**
     * While PAST_DUE because the issuer asked for authentication: the payment page (page_…) where
     * the customer pays the overdue renewal on-session (3-D Secure). Off-session retries stop; the
     * subscription ends when this page expires unpaid.
     */
    renewalPageId: text('renewal_page_id'),
    cancelAtPeriodEnd: boolean('cancel_at_period_end').notNull().default(false),
    canceledAt: timestamptz('canceled_at'),
    endedAt: timestamptz('ended_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('subscriptions_page_unique').on(table.pageId),
    index('subscriptions_merchant_created').on(table.merchantId, table.livemode, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // The lists (GET /v1/subscriptions): both modes, and per filter; newest first.
    index('subscriptions_merchant_all_created').on(table.merchantId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('subscriptions_merchant_status_created').on(table.merchantId, table.status, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('subscriptions_customer_created').on(table.customerId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('subscriptions_customer').on(table.customerId),
    uniqueIndex('subscriptions_renewal_page_unique').on(table.renewalPageId),
  ],
);

/** One invoice per paid period; the unique index on the period number makes a second one impossible. */
export const invoices = pgTable(
  'invoices',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    customerId: text('customer_id').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: ['PAID'] }).notNull(),
    /** The card payment (`pay_…`) that paid the period. */
    paymentId: text('payment_id').notNull(),
    /** 1 for the first period, 2 for the first renewal, …: the period's identity within the subscription. */
    periodNumber: integer('period_number').notNull(),
    /** The period as billed (a sandbox renewal that ends a period early shortens its entitlement, not its invoice). */
    periodStart: timestamptz('period_start').notNull(),
    periodEnd: timestamptz('period_end').notNull(),
    paidAt: timestamptz('paid_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('invoices_subscription_period_unique').on(table.subscriptionId, table.periodNumber),
    uniqueIndex('invoices_payment_unique').on(table.paymentId),
    index('invoices_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
  ],
);

/**
 * Entitlements: one per paid subscription period, identified by
 * `<subscriptionId>-<startPeriod ms>-<endPeriod ms>` (unique). The list endpoint pages by keyset over
 * (created_at, id) within a merchant, so every index ends with those two columns.
 */
export const entitlements = pgTable(
  'entitlements',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    customerId: text('customer_id').notNull(),
    subscriptionId: text('subscription_id')
      .notNull()
      .references(() => subscriptions.id),
    productId: text('product_id').notNull(),
    invoiceId: text('invoice_id'),
    startPeriod: timestamptz('start_period').notNull(),
    endPeriod: timestamptz('end_period').notNull(),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at'),
  },
  (table) => [
    uniqueIndex('entitlements_idempotency_key_unique').on(table.idempotencyKey),
    index('entitlements_merchant_created').on(table.merchantId, table.createdAt, table.id),
    index('entitlements_merchant_customer_created').on(table.merchantId, table.customerId, table.createdAt, table.id),
    index('entitlements_merchant_subscription_created').on(table.merchantId, table.subscriptionId, table.createdAt, table.id),
  ],
);
