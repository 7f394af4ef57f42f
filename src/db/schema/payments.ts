import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, numeric, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { customers } from './customers.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const paymentPageStatuses = ['CREATED', 'PAID', 'EXPIRED'] as const;
export type PaymentPageStatus = (typeof paymentPageStatuses)[number];

export const subscriptionIntervals = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type SubscriptionInterval = (typeof subscriptionIntervals)[number];

export interface PaymentPageSubscription {
  productId: string;
  interval: SubscriptionInterval;
  intervalCount: number;
}

/** One line of a payment page's itemised amount (minor units). */
export interface PaymentPageLineItem {
  name: string;
  quantity: number;
  unitAmount: number;
}

/**
 * Hosted payment pages (docs/API.md §9). `attempt_payment_id` is the claim a card payment takes on a
 * CREATED page before it calls the processor: while it is set, nothing else (expire, the expiry job,
 * a second payment) can move the page, so a payment racing an expire has exactly one winner.
 */
export const paymentPages = pgTable(
  'payment_pages',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    status: text('status', { enum: paymentPageStatuses }).notNull(),
    clientReferenceId: text('client_reference_id').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    /** The e-mail sent with this page, sealed with the key ring (PII). */
    customerEmailCiphertext: text('customer_email_ciphertext').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    successReturnUrl: text('success_return_url'),
    failureReturnUrl: text('failure_return_url'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    subscription: jsonb('subscription').$type<PaymentPageSubscription>(),
    /** What is being paid for, as the merchant wrote it (shown on the page and in the receipt). */
    description: text('description'),
    /** The itemised amount (their sum equals `amount`); null when the merchant gave none. */
    lineItems: jsonb('line_items').$type<PaymentPageLineItem[]>(),
    expiresAt: timestamptz('expires_at').notNull(),
    /** The in-flight payment attempt holding the page (see above); null when none. */
    attemptPaymentId: text('attempt_payment_id'),
    paymentId: text('payment_id'),
    subscriptionId: text('subscription_id'),
    paidAt: timestamptz('paid_at'),
    expiredAt: timestamptz('expired_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('payment_pages_client_reference_unique').on(table.merchantId, table.livemode, table.clientReferenceId),
    index('payment_pages_merchant_created').on(table.merchantId, table.livemode, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // The lists (GET /v1/payment_pages): both modes, and per filter; newest first.
    index('payment_pages_merchant_all_created').on(table.merchantId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('payment_pages_merchant_status_created').on(table.merchantId, table.status, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('payment_pages_customer_created').on(table.customerId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
  ],
);

export const paymentStatuses = ['PROCESSING', 'SUCCEEDED', 'DECLINED'] as const;
export type PaymentStatus = (typeof paymentStatuses)[number];

/**
 * Card payments: one row per attempt (`CHECKOUT` on a payment page, `RENEWAL` on a saved card).
 * Only the card's description is kept (BIN, last 4, scheme, type, issuer, expiry); the full number
 * and the CVC never reach the database. The cardholder name is sealed (PII) for fraud reports.
 */
export const payments = pgTable(
  'payments',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    kind: text('kind', { enum: ['CHECKOUT', 'RENEWAL'] }).notNull(),
    pageId: text('page_id').references(() => paymentPages.id),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    status: text('status', { enum: paymentStatuses }).notNull(),
    processor: text('processor').notNull(),
    processorReference: text('processor_reference'),
    networkTransactionId: text('network_transaction_id'),
    bin: text('bin').notNull(),
    last4: text('last4').notNull(),
    scheme: text('scheme'),
    cardType: text('card_type'),
    issuer: text('issuer'),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    cardholderNameCiphertext: text('cardholder_name_ciphertext'),
    cardTokenId: text('card_token_id'),
    /** The session keeps the card for renewals (its page starts a subscription): the processor's create is repeated with exactly these parameters. */
    saveCard: boolean('save_card').notNull().default(false),
    declineReason: text('decline_reason'),
    /**
     * What refunds have taken back (minor units): every refund not FAILED, pending ones included. Raised
     * with the refund's insert under the payment's row lock, by an UPDATE that refuses to pass `amount`.
     */
    refundedAmount: integer('refunded_amount').notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    /** When the processor's answer was recorded: the transaction date of a successful payment. */
    decidedAt: timestamptz('decided_at'),
  },
  (table) => [
    // A page can be paid once: the claim makes this unreachable, the index makes it impossible.
    uniqueIndex('payments_one_success_per_page').on(table.pageId).where(sql`status = 'SUCCEEDED' and kind = 'CHECKOUT'`),
    index('payments_page').on(table.pageId, table.createdAt),
    index('payments_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('payments_network_transaction').on(table.networkTransactionId),
    index('payments_card_amount_date').on(table.bin, table.last4, table.amount, table.decidedAt).where(sql`status = 'SUCCEEDED'`),
    check('payments_refunded_within_amount', sql`${table.refundedAmount} >= 0 and ${table.refundedAmount} <= ${table.amount}`),
  ],
);

/** Our reference to a processor's reusable card token (saved for subscription renewals). */
export const cardTokens = pgTable(
  'card_tokens',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    processor: text('processor').notNull(),
    processorToken: text('processor_token').notNull(),
    /** The payment that saved the card. */
    paymentId: text('payment_id').notNull(),
    bin: text('bin').notNull(),
    last4: text('last4').notNull(),
    scheme: text('scheme').notNull(),
    cardType: text('card_type').notNull(),
    issuer: text('issuer').notNull(),
    expMonth: integer('exp_month').notNull(),
    expYear: integer('exp_year').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('card_tokens_customer').on(table.customerId, table.createdAt), uniqueIndex('card_tokens_processor_token_unique').on(table.processor, table.processorToken)],
);

export const fraudReportSources = ['TEST_HELPER', 'SANDBOX_NETWORK', 'IMPORT', 'STRIPE_EARLY_FRAUD_WARNING'] as const;

/**
 * Fraud reports (docs/API.md §10): one per card payment, so the payment id is the primary key (and the
 * report's public id). Cardholder name and customer e-mail are PII: sealed in `pii`.
 */
export const fraudReports = pgTable(
  'fraud_reports',
  {
    paymentId: text('payment_id')
      .primaryKey()
      .references(() => payments.id),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    pageId: text('page_id'),
    clientReferenceId: text('client_reference_id').notNull(),
    fraudAmountUsd: numeric('fraud_amount_usd', { precision: 14, scale: 2 }).notNull(),
    fraudReason: text('fraud_reason').notNull(),
    /** The network's own fraud type code (Visa TC40 `6`, Mastercard SAFE `06`, …); null for test helper reports. */
    fraudType: text('fraud_type'),
    network: text('network').notNull(),
    source: text('source', { enum: fraudReportSources }).notNull(),
    importId: text('import_id'),
    fraudIssueDate: timestamptz('fraud_issue_date').notNull(),
    transactionDate: timestamptz('transaction_date').notNull(),
    issuingBank: text('issuing_bank').notNull(),
    cardSchemeType: text('card_scheme_type').notNull(),
    bin: text('bin').notNull(),
    last4: text('last4').notNull(),
    /** `cardholderName`, `customerEmail` → key-ring ciphertext. */
    pii: jsonb('pii').$type<Record<string, string>>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('fraud_reports_merchant_mode_issued').on(table.merchantId, table.livemode, table.fraudIssueDate.desc(), table.paymentId),
    // Lists without `livemode` return both modes, in the same order.
    index('fraud_reports_merchant_issued').on(table.merchantId, table.fraudIssueDate.desc(), table.paymentId),
  ],
);

/** One operator import of a card network's issuer-fraud file, with what could not be matched. */
export const fraudImports = pgTable('fraud_imports', {
  id: text('id').primaryKey(),
  network: text('network', { enum: ['visa', 'mastercard'] }).notNull(),
  livemode: boolean('livemode').notNull(),
  totalRows: integer('total_rows').notNull(),
  createdCount: integer('created_count').notNull(),
  duplicateCount: integer('duplicate_count').notNull(),
  unmatchedCount: integer('unmatched_count').notNull(),
  /** Row numbers, masked card data and reasons of unmatched rows (no PII). */
  unmatched: jsonb('unmatched').$type<Array<Record<string, unknown>>>().notNull(),
  createdAt: timestamptz('created_at').notNull(),
});
