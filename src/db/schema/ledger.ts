import { sql } from 'drizzle-orm';
import { bigint, boolean, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * What an account holds, per merchant, mode and currency:
 * - `available`: funds the merchant can put on new payout pages;
 * - `reserved`: held by payout pages that are not paid out yet;
 * - `in_flight`: submitted to a payout rail, not settled yet;
 * - `external`: the outside world (funding in, payouts out). The only account allowed below zero:
 *   its balance is minus everything the merchant holds with us.
 */
export const ledgerAccountKinds = ['available', 'reserved', 'in_flight', 'external'] as const;
export type LedgerAccountKind = (typeof ledgerAccountKinds)[number];

/**
 * Ledger accounts. `balance` is a cache of the sum of the account's entries, changed only in the
 * transaction that inserts those entries (src/modules/ledger/service.ts) by a conditional UPDATE;
 * the CHECK refuses an overdraft even if code were wrong.
 */
export const ledgerAccounts = pgTable(
  'ledger_accounts',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    currency: text('currency').notNull(),
    kind: text('kind', { enum: ledgerAccountKinds }).notNull(),
    balance: bigint('balance', { mode: 'number' }).notNull().default(0),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('ledger_accounts_owner_unique').on(table.merchantId, table.livemode, table.currency, table.kind),
    check('ledger_accounts_kind_valid', sql`${table.kind} in ('available', 'reserved', 'in_flight', 'external')`),
    check('ledger_accounts_no_overdraft', sql`${table.kind} = 'external' or ${table.balance} >= 0`),
  ],
);

/**
 * One balanced movement of money (formance's "transaction"): its entries sum to zero per currency.
 * `idempotency_key` makes "at most once" a constraint: a payout page reserves, submits, settles or
 * releases once (`<payout page id>:<movement>`), whatever races happen above.
 * Rows are immutable (a trigger refuses UPDATE, DELETE and TRUNCATE).
 */
export const ledgerTransactions = pgTable(
  'ledger_transactions',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    currency: text('currency').notNull(),
    /** opening, fund, credit, reserve, release, submit, settle, return */
    kind: text('kind').notNull(),
    /** What the movement is about (a payout page id), for reading the ledger. */
    reference: text('reference'),
    idempotencyKey: text('idempotency_key').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    uniqueIndex('ledger_transactions_idempotency_unique').on(table.idempotencyKey),
    index('ledger_transactions_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('ledger_transactions_reference').on(table.reference),
  ],
);

/**
 * Entries: signed amounts in integer minor units (positive raises the account's balance). Immutable;
 * a deferred constraint trigger refuses to commit a transaction whose entries do not sum to zero
 * per currency.
 */
export const ledgerEntries = pgTable(
  'ledger_entries',
  {
    id: text('id').primaryKey(),
    transactionId: text('transaction_id')
      .notNull()
      .references(() => ledgerTransactions.id),
    accountId: text('account_id')
      .notNull()
      .references(() => ledgerAccounts.id),
    currency: text('currency').notNull(),
    amount: bigint('amount', { mode: 'number' }).notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [
    index('ledger_entries_transaction').on(table.transactionId),
    index('ledger_entries_account').on(table.accountId, table.createdAt),
    check('ledger_entries_amount_nonzero', sql`${table.amount} <> 0`),
  ],
);
