import { sql } from 'drizzle-orm';
import { check, boolean, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { paymentPages, payments } from './payments.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const refundStatuses = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type RefundStatus = (typeof refundStatuses)[number];

export const refundReasons = ['REQUESTED_BY_CUSTOMER', 'DUPLICATE', 'FRAUDULENT'] as const;
export type RefundReason = (typeof refundReasons)[number];

/**
 * Refunds of card payments (issue 13): `PENDING` → `SUCCEEDED` or `FAILED`, each move a conditional
 * UPDATE on the status. The amount is taken from the payment's `refunded_amount` when the row is
 * inserted (same transaction, payment row locked), so refunds never exceed their payment.
 */
export const refunds = pgTable(
  'refunds',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    paymentPageId: text('payment_page_id')
      .notNull()
      .references(() => paymentPages.id),
    paymentId: text('payment_id')
      .notNull()
      .references(() => payments.id),
    amount: integer('amount').notNull(),
    currency: text('currency').notNull(),
    reason: text('reason', { enum: refundReasons }),
    status: text('status', { enum: refundStatuses }).notNull(),
    failureReason: text('failure_reason'),
    /** The processor's id of the refund (Stripe's `re_…`), once it answered. */
    processorReference: text('processor_reference'),
    /**
     * The one-time key of the dashboard's refund form that made it (rendered into the form): a
     * double click or a resubmitted form finds this refund instead of making a second one.
     */
    requestKey: text('request_key'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    settledAt: timestamptz('settled_at'),
  },
  (table) => [
    index('refunds_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('refunds_page_created').on(table.paymentPageId, table.createdAt, table.id),
    index('refunds_payment').on(table.paymentId),
    uniqueIndex('refunds_request_key').on(table.merchantId, table.livemode, table.requestKey),
    check('refunds_amount_positive', sql`${table.amount} > 0`),
    check('refunds_status_valid', sql`${table.status} in ('PENDING', 'SUCCEEDED', 'FAILED')`),
    check('refunds_failure_reason_when_failed', sql`(${table.status} = 'FAILED') = (${table.failureReason} is not null)`),
  ],
);
