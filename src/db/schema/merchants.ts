import { sql } from 'drizzle-orm';
import { boolean, check, customType, index, integer, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Raw bytes: PGlite hands back a Uint8Array, node-postgres a Buffer; both become a Buffer. */
const bytea = customType<{ data: Buffer; driverData: Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

export const merchants = pgTable('merchants', {
  id: text('id').primaryKey(),
  name: text('name').notNull(),
  email: text('email').notNull(),
  liveEnabled: boolean('live_enabled').notNull().default(false),
  fraudReportWebhooksEnabled: boolean('fraud_report_webhooks_enabled').notNull().default(false),
  /** The operator's override of the merchant-wide rate limit (all its keys together); null = the configured default. */
  rateLimitPerSecond: integer('rate_limit_per_second'),
  rateLimitBurst: integer('rate_limit_burst'),
  /** Set by an owner on the dashboard's Security screen: every dashboard user must sign in with a second factor. */
  requireTwoFactor: boolean('require_two_factor').notNull().default(false),
  createdAt: timestamptz('created_at').notNull(),
  updatedAt: timestamptz('updated_at').notNull(),
});

/**
 * API keys: `sk_<lookup>_<secret>`. Only the SHA-256 of the secret is stored; the lookup part is
 * the key id's suffix, so authentication is one primary-key read plus a constant-time compare.
 */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    name: text('name').notNull(),
    secretHash: text('secret_hash').notNull(),
    /** Last four characters of the secret, to tell keys apart in the dashboard. */
    last4: text('last4').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    lastUsedAt: timestamptz('last_used_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (table) => [index('api_keys_merchant').on(table.merchantId)],
);

/**
 * A dashboard user's role (issue 18 item 11): what each may see and do is the matrix in
 * src/modules/dashboard/access.ts. The first user of a merchant (operator, CLI, admin API) is an owner.
 */
export const dashboardRoles = ['owner', 'admin', 'developer', 'support', 'viewer'] as const;
export type DashboardRole = (typeof dashboardRoles)[number];

export const dashboardUsers = pgTable(
  'dashboard_users',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    email: text('email').notNull(),
    passwordHash: text('password_hash').notNull(),
    role: text('role').$type<DashboardRole>().notNull(),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [
    uniqueIndex('dashboard_users_email_unique').on(table.email),
    index('dashboard_users_merchant').on(table.merchantId),
    check('dashboard_users_role_known', sql`${table.role} in ('owner', 'admin', 'developer', 'support', 'viewer')`),
  ],
);

/**
 * Per-merchant keys for the JWE the API returns PII in. Stored encrypted with the platform key
 * ring; the newest active one encrypts responses. Rotation keeps old keys (inactive) so a merchant
 * can still read responses they stored earlier.
 */
export const merchantPiiKeys = pgTable(
  'merchant_pii_keys',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    keyCiphertext: text('key_ciphertext').notNull(),
    active: boolean('active').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('merchant_pii_keys_merchant').on(table.merchantId, table.createdAt)],
);

/**
 * What the merchant's customers see on hosted pages and in e-mails (decision 0035): every field
 * optional (null = Paysail's default). The logo's bytes live here too, already checked and (SVG)
 * sanitised, and are served at `/brand/logos/<logo_sha256>.<logo_type>`: one row per merchant, so
 * the row is small enough to read with every hosted page, and the bytes only when a logo is asked for.
 */
export const merchantBranding = pgTable(
  'merchant_branding',
  {
    merchantId: text('merchant_id')
      .primaryKey()
      .references(() => merchants.id),
    displayName: text('display_name'),
    /** `#rrggbb`, lower case; contrast-checked against its button text (decision 0035). */
    brandColor: text('brand_color'),
    supportEmail: text('support_email'),
    supportUrl: text('support_url'),
    /** SHA-256 (hex) of the stored bytes: the logo's content address. */
    logoSha256: text('logo_sha256'),
    /** `png`, `jpeg` or `svg`, decided from the bytes. */
    logoType: text('logo_type'),
    logo: bytea('logo'),
    updatedAt: timestamptz('updated_at').notNull(),
  },
  (table) => [index('merchant_branding_logo').on(table.logoSha256)],
);
