import { sql } from 'drizzle-orm';
import { boolean, index, jsonb, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

export const kycStatuses = ['NOT_STARTED', 'PENDING', 'APPROVED', 'REJECTED'] as const;
export type KycStatus = (typeof kycStatuses)[number];
export const kycCheckKinds = ['DATA', 'DOCUMENTS'] as const;
export const kycOutcomes = ['PENDING', 'REVIEW', 'STEP_UP', 'APPROVED', 'REJECTED'] as const;

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
    /**
     * The e-mail's keyed hash (`KeyRing.lookupHash('customer-email', '<merchant id>\n<e-mail>')`) for
     * `GET /v1/customers?email=`: an exact lookup without the plain address in the database. Null
     * without an e-mail (and, until the backfill job of migration 0019 ran, on older rows).
     */
    emailLookup: text('email_lookup'),
    supportedPaymentMethods: jsonb('supported_payment_methods').$type<string[]>(),
    supportedPayoutMethods: jsonb('supported_payout_methods').$type<string[]>(),
    kycStatus: text('kyc_status', { enum: kycStatuses }).notNull(),
    /** Why KYC is in review or was rejected (never PII; set by the KYC module), else null. */
    kycReason: text('kyc_reason'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    /** Set when the customer was erased (`POST /v1/customers/:id/erase`): `pii` is then empty and stays so. */
    erasedAt: timestamptz('erased_at'),
    /**
     * Set when retention removed the identity fields (names, date of birth, phone, address) from
     * `pii` after the customer's last activity (RETENTION_KYC_DETAILS_DAYS, src/modules/kyc/retention.ts);
     * the e-mail stays. A later write of the record moves `updated_at` past it.
     */
    kycDetailsPurgedAt: timestamptz('kyc_details_purged_at'),
  },
  (table) => [
    uniqueIndex('customers_reference_unique').on(table.merchantId, table.livemode, table.referenceId),
    index('customers_merchant_created').on(table.merchantId, table.livemode, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    // The list (GET /v1/customers): both modes, and by KYC status; newest first.
    index('customers_merchant_all_created').on(table.merchantId, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('customers_merchant_kyc_created').on(table.merchantId, table.kycStatus, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('customers_merchant_email_created').on(table.merchantId, table.emailLookup, table.createdAt.desc().nullsFirst(), table.id.desc().nullsFirst()),
    index('customers_kyc_retention').on(table.updatedAt).where(sql`erased_at is null`),
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
    /** The provider's id of the person (Onfido applicant); `providerReference` is the current check's id. */
    providerApplicantId: text('provider_applicant_id'),
    /** Which check runs: the background data check, or documents + selfie after a step-up. */
    stage: text('stage', { enum: kycCheckKinds }).notNull().default('DATA'),
    /** The current check's outcome as last read (REVIEW: the merchant decides; STEP_UP: documents are asked for). */
    providerOutcome: text('provider_outcome', { enum: kycOutcomes }),
    /** Set just before the applicant is created: with no `providerApplicantId` yet, a retry looks for the applicant that call may have made. */
    applicantRequestedAt: timestamptz('applicant_requested_at'),
    /** Set just before a check is started: with no `providerReference` yet, the outcome of that call is unknown and is looked up, never redone blind. */
    checkRequestedAt: timestamptz('check_requested_at'),
    /** Non-PII result per report or rule (`identity_enhanced` → `consider`), for the review queue. */
    breakdown: jsonb('breakdown').$type<Record<string, string>>(),
    /** `provider`, or `merchant` when decided in review (details in kyc_reviews). */
    decidedBy: text('decided_by', { enum: ['provider', 'merchant'] }),
    /** When the provider deleted the applicant after the customer was erased (its answer recorded). */
    applicantDeletedAt: timestamptz('applicant_deleted_at'),
  },
  (table) => [index('kyc_verifications_customer').on(table.customerId, table.createdAt), index('kyc_verifications_provider_reference').on(table.provider, table.providerReference)],
);

/** The merchant's decisions on verifications in review: who decided, when, and why (one per verification). */
export const kycReviews = pgTable(
  'kyc_reviews',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    verificationId: text('verification_id')
      .notNull()
      .references(() => kycVerifications.id),
    customerId: text('customer_id').notNull(),
    decision: text('decision', { enum: ['APPROVED', 'REJECTED'] }).notNull(),
    /** The merchant's reason, as written by them (not shown to the customer). */
    reason: text('reason').notNull(),
    /** Who decided: `dashboard:<user id>` or `api:<key prefix>`. */
    actor: text('actor').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [uniqueIndex('kyc_reviews_verification_unique').on(table.verificationId), index('kyc_reviews_merchant_created').on(table.merchantId, table.livemode, table.createdAt)],
);
