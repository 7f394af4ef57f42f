import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { customers } from './customers.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** The non-secret part of a chosen payout method (the rest is sealed in `destination`). */
export type PayoutMethodMask = { type: 'BANK_TRANSFER'; last4: string; accountType: 'CHECKING' | 'SAVINGS' } | { type: 'CRYPTO_WALLET'; network: 'ETHEREUM' | 'POLYGON' | 'BASE' | 'SOLANA'; address: string };

/**
 * Hosted payout pages (docs/API.md §8). `status`/`sub_status` move only through the transition table
 * in src/modules/payout-pages/states.ts, by conditional UPDATEs; the CHECK below keeps the pair
 * valid whatever code runs. Destination details (holder name, routing and account numbers, wallet
 * address) are sealed with the key ring in `destination`; the customer's e-mail too.
 */
export const payoutPages = pgTable(
  'payout_pages',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    /** Denormalised (a customer's referenceId never changes) so that responses need no join. */
    customerReferenceId: text('customer_reference_id').notNull(),
    /** The e-mail the page was created with, sealed (PII). */
    customerEmailCiphertext: text('customer_email_ciphertext').notNull(),
    clientReferenceId: text('client_reference_id').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    fundingCurrency: text('funding_currency', { enum: ['USDC', 'USD'] }).notNull(),
    releaseMethod: text('release_method', { enum: ['AUTOMATIC', 'MANUAL'] }).notNull(),
    status: text('status').notNull(),
    subStatus: text('sub_status').notNull(),
    /** Why the page is where it is, when that is not obvious (no live rail, rail rejection). Never PII. */
    statusReason: text('status_reason'),
    successReturnUrl: text('success_return_url'),
    failureReturnUrl: text('failure_return_url'),
    metadata: jsonb('metadata').$type<Record<string, string>>().notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    customerConfirmedAt: timestamptz('customer_confirmed_at'),
    payoutMethod: jsonb('payout_method').$type<PayoutMethodMask>(),
    /** field → key-ring ciphertext bound to table|merchant|row|field */
    destination: jsonb('destination').$type<Record<string, string>>(),
    /**
     * The current payout attempt (1, then one more each time the customer enters other details after
     * a rejection or a return); ledger movements of attempt n > 1 carry it in their idempotency key.
     */
    attempt: integer('attempt').notNull().default(1),
    /** The payout rail that took the current attempt, and its reference (see `payout_attempts`). */
    rail: text('rail'),
    railReference: text('rail_reference'),
    /** On-chain payouts: the current attempt's transaction hash once the rail reports it (null for a new attempt). */
    transactionHash: text('transaction_hash'),
    submittedAt: timestamptz('submitted_at'),
    /**
     * Wrong verification codes entered on the hosted page over its whole life (every code, every
     * hour), raised by a conditional UPDATE in the guess's transaction; reset by a reissue.
     */
    wrongCodes: integer('wrong_codes').notNull().default(0),
    /** Set when `wrong_codes` reached the cap: no code is sent or accepted until the merchant reissues the page. */
    lockedAt: timestamptz('locked_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('payout_pages_client_reference_unique').on(table.merchantId, table.livemode, table.clientReferenceId),
    index('payout_pages_merchant_created').on(table.merchantId, table.livemode, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // The lists (GET /v1/payout_pages): both modes, and per filter; newest first.
    index('payout_pages_merchant_all_created').on(table.merchantId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('payout_pages_merchant_status_created').on(table.merchantId, table.status, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('payout_pages_customer_created').on(table.customerId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('payout_pages_customer_status').on(table.customerId, table.status),
    check('payout_pages_amount_range', sql`${table.amount} between 1 and 100000000`),
    check(
      'payout_pages_state_valid',
      sql`(${table.status}, ${table.subStatus}) in (('CREATED', 'AWAITING_CUSTOMER'), ('PENDING', 'KYC_REQUIRED'), ('PENDING', 'KYC_IN_REVIEW'), ('PENDING', 'AWAITING_RELEASE'), ('PROCESSING', 'SUBMITTED'), ('PROCESSED', 'PAID'), ('FAILED', 'KYC_REJECTED'), ('FAILED', 'PAYOUT_REJECTED'), ('FAILED', 'PAYOUT_RETURNED'), ('CANCELED', 'CUSTOMER_DECLINED'), ('CANCELED', 'MERCHANT_CANCELED'), ('EXPIRED', 'NOT_COMPLETED'))`,
    ),
  ],
);

export const payoutAttemptStatuses = ['SUBMITTING', 'SUBMITTED', 'PAID', 'REJECTED', 'RETURNED'] as const;
export type PayoutAttemptStatus = (typeof payoutAttemptStatuses)[number];

/**
 * Each hand-over of a payout page to a rail: its own id (the rail's idempotency key), created in the
 * transaction that moves the page to PROCESSING. `SUBMITTING` until the rail's answer is recorded
 * (an answer lost in a crash is looked up by this id, never guessed). At most one attempt per page is
 * live (submitting, submitted or paid) — a unique index, not a hope.
 */
export const payoutAttempts = pgTable(
  'payout_attempts',
  {
    id: text('id').primaryKey(),
    payoutPageId: text('payout_page_id')
      .notNull()
      .references(() => payoutPages.id),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    number: integer('number').notNull(),
    rail: text('rail').notNull(),
    status: text('status', { enum: payoutAttemptStatuses }).notNull(),
    railReference: text('rail_reference'),
    /** The rail's reason for a rejection or a return. Never PII. */
    reason: text('reason'),
    /** On-chain rails: the transaction hash once known. */
    transactionHash: text('transaction_hash'),
    submittedAt: timestamptz('submitted_at'),
    paidAt: timestamptz('paid_at'),
    finishedAt: timestamptz('finished_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('payout_attempts_page_number').on(table.payoutPageId, table.number),
    uniqueIndex('payout_attempts_one_live').on(table.payoutPageId).where(sql`${table.status} in ('SUBMITTING', 'SUBMITTED', 'PAID')`),
    index('payout_attempts_status_submitted').on(table.status, table.submittedAt),
    check('payout_attempts_status_valid', sql`${table.status} in ('SUBMITTING', 'SUBMITTED', 'PAID', 'REJECTED', 'RETURNED')`),
  ],
);

/** Every status change of a payout page, for the dashboard's timeline (the first row is the creation). */
export const payoutPageStatusHistory = pgTable(
  'payout_page_status_history',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    payoutPageId: text('payout_page_id')
      .notNull()
      .references(() => payoutPages.id),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    fromStatus: text('from_status'),
    fromSubStatus: text('from_sub_status'),
    toStatus: text('to_status').notNull(),
    toSubStatus: text('to_sub_status').notNull(),
    /** The transition-table action (`create`, `confirm`, `release`, …). */
    action: text('action').notNull(),
    /** Who moved it: merchant, customer, system, kyc, rail. */
    actor: text('actor').notNull(),
    reason: text('reason'),
    /** The PAYOUT_PAGE_UPDATED event recorded with the change (none for the creation). */
    eventId: text('event_id'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('payout_page_status_history_page').on(table.payoutPageId, table.id)],
);

/**
 * One-time codes e-mailed to the customer before the hosted page shows stored PII. Only an HMAC of
 * the code is stored; `attempts` is raised by a conditional UPDATE, so guesses are counted exactly.
 */
export const payoutPageAccessCodes = pgTable(
  'payout_page_access_codes',
  {
    id: bigint('id', { mode: 'number' }).primaryKey().generatedAlwaysAsIdentity(),
    payoutPageId: text('payout_page_id')
      .notNull()
      .references(() => payoutPages.id),
    codeHash: text('code_hash').notNull(),
    attempts: integer('attempts').notNull().default(0),
    expiresAt: timestamptz('expires_at').notNull(),
    consumedAt: timestamptz('consumed_at'),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('payout_page_access_codes_page').on(table.payoutPageId, table.createdAt)],
);

/** Verified hosted-page sessions: the cookie holds a random token, only its SHA-256 is stored. */
export const payoutPageSessions = pgTable(
  'payout_page_sessions',
  {
    tokenHash: text('token_hash').primaryKey(),
    payoutPageId: text('payout_page_id')
      .notNull()
      .references(() => payoutPages.id),
    expiresAt: timestamptz('expires_at').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('payout_page_sessions_page').on(table.payoutPageId)],
);
