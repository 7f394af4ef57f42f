import { boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { payments } from './payments.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const disputeStatuses = ['NEEDS_RESPONSE', 'UNDER_REVIEW', 'WON', 'LOST'] as const;
export type DisputeStatus = (typeof disputeStatuses)[number];

/**
 * Disputes (chargebacks) of card payments, as the card processor reports them. One row per
 * processor dispute (`processor`, `processor_reference` unique), so a repeated or out-of-order
 * webhook never makes a second dispute. The ledger debit when it opens and the return when it is
 * won are ledger transactions keyed by the dispute id (`dispute:<id>:debit`, `dispute:<id>:return`).
 */
export const disputes = pgTable(
  'disputes',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id),
    /** The payment page the payment paid; null for a renewal charged without one. */
    pageId: text('page_id'),
    processor: text('processor').notNull(),
    /** The processor's dispute id (Stripe `du_…`, the sandbox's `sbxdp_…`). */
    processorReference: text('processor_reference').notNull(),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason').notNull(),
    status: text('status', { enum: disputeStatuses }).notNull(),
    evidenceDueBy: timestamptz('evidence_due_by'),
    closedAt: timestamptz('closed_at'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('disputes_processor_reference_unique').on(table.processor, table.processorReference),
    index('disputes_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('disputes_page_created').on(table.pageId, table.createdAt, table.id),
    index('disputes_payment').on(table.paymentId),
  ],
);
