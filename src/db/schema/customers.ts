import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const kycStatuses = ['NOT_STARTED', 'PENDING', 'APPROVED', 'REJECTED'] as const;
export type KycStatus = (typeof kycStatuses)[number];

/**
 * Customers. Every PII field (e-mail, names, date of birth, phone, each address field) is stored
 * in `pii` as key-ring ciphertext bound to merchant, row and field; nothing here is plaintext PII.
 */
export const customers = pgTable(
  'customers',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    referenceId: text('reference_id').notNull(),
    signupAt: timestamp('signup_at', { withTimezone: true, mode: 'date' }).notNull(),
    /**
     * The PII fields (`firstName`, `address.city`, `email`, …) sealed as one value:
     * `{ "record": "v1.<kid>.…" }` (`sealRecord` in crypto/pii.ts). Rows of the earlier per-field
     * format (field name → ciphertext) still read and are rewritten by the key-rotation re-encryption.
     */
    pii: jsonb('pii').$type<Record<string, string>>().notNull(),
    supportedPaymentMethods: jsonb('supported_payment_methods').$type<string[]>(),
    supportedPayoutMethods: jsonb('supported_payout_methods').$type<string[]>(),
    kycStatus: text('kyc_status', { enum: kycStatuses }).notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('customers_reference_unique').on(table.merchantId, table.livemode, table.referenceId),
    index('customers_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
  ],
);

/** One verification submitted to a KYC provider for a customer. */
export const kycVerifications = pgTable(
  'kyc_verifications',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    customerId: text('customer_id')
      .notNull()
      .references(() => customers.id),
    provider: text('provider').notNull(),
    providerReference: text('provider_reference'),
    status: text('status', { enum: ['PENDING', 'APPROVED', 'REJECTED'] }).notNull(),
    /** Why a verification is still pending or was rejected (never PII). */
    reason: text('reason'),
    createdAt: timestamptz('created_at').notNull(),
    decidedAt: timestamptz('decided_at'),
  },
  (table) => [index('kyc_verifications_customer').on(table.customerId, table.createdAt)],
);
