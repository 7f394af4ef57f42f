import { sql } from 'drizzle-orm';
import { bigint, check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { dashboardUsers, merchants, type DashboardRole } from './merchants.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Dashboard sign-in sessions. The cookie carries a random token; only its SHA-256 is stored, so a
 * database read does not hand out working sessions. A session ends at `expires_at`, at sign-out, or
 * when the user changes the password (every other session of the user is deleted then), or when the
 * user revokes it on the Security screen. `address` and `user_agent` are what the browser sent at
 * sign-in, shown to the user in the list of their sessions; `last_used_at` is refreshed at most once a
 * minute.
 */
export const dashboardSessions = pgTable(
  'dashboard_sessions',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    lastUsedAt: timestamptz('last_used_at'),
    address: text('address'),
    userAgent: text('user_agent'),
  },
  (table) => [uniqueIndex('dashboard_sessions_token_hash_unique').on(table.tokenHash), index('dashboard_sessions_user').on(table.userId), index('dashboard_sessions_expires').on(table.expiresAt)],
);

/**
 * A user's TOTP second factor (RFC 6238). The secret is sealed with the key ring, bound to the user
 * (`dashboard-totp|<user>`). `enabled_at` is null while enrolment waits for the first code; only an
 * enabled row asks for a code at sign-in. `last_used_step` is the 30-second time step of the last
 * accepted code: a code of that step or an earlier one is refused (no replay).
 */
export const dashboardTwoFactor = pgTable('dashboard_two_factor', {
  userId: text('user_id')
    .primaryKey()
    .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
  secretCiphertext: text('secret_ciphertext').notNull(),
  enabledAt: timestamptz('enabled_at'),
  lastUsedStep: bigint('last_used_step', { mode: 'number' }),
  createdAt: timestamptz('created_at').notNull(),
});

/**
 * Single-use recovery codes: only a SHA-256 of each (with the user id) is stored; `used_at` is set by
 * a conditional update, so a code signs in once. Regenerating deletes the whole previous set.
 */
export const dashboardRecoveryCodes = pgTable(
  'dashboard_recovery_codes',
  {
    id: text('id').primaryKey(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    codeHash: text('code_hash').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    usedAt: timestamptz('used_at'),
  },
  (table) => [uniqueIndex('dashboard_recovery_codes_user_hash_unique').on(table.userId, table.codeHash)],
);

/**
 * The pending second step of a sign-in: the password was right and the user has two-factor sign-in.
 * The cookie carries a random token, only its SHA-256 is stored; it lasts five minutes and is used
 * once. No session exists until the code is accepted.
 */
export const dashboardSignInChallenges = pgTable(
  'dashboard_sign_in_challenges',
  {
    id: text('id').primaryKey(),
    tokenHash: text('token_hash').notNull(),
    userId: text('user_id')
      .notNull()
      .references(() => dashboardUsers.id, { onDelete: 'cascade' }),
    createdAt: timestamptz('created_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
  },
  (table) => [uniqueIndex('dashboard_sign_in_challenges_token_hash_unique').on(table.tokenHash), index('dashboard_sign_in_challenges_expires').on(table.expiresAt)],
);

/**
 * Invitations to a merchant's team (issue 18 item 11). The e-mailed link carries a random token;
 * only its SHA-256 is stored. An invitation is open until it is accepted (once: a conditional
 * update), revoked, or past `expires_at`; resending replaces the token and the expiry, so earlier
 * links stop working. At most one open invitation per merchant and e-mail (partial unique index).
 */
export const dashboardInvites = pgTable(
  'dashboard_invites',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    email: text('email').notNull(),
    role: text('role').$type<DashboardRole>().notNull(),
    tokenHash: text('token_hash').notNull(),
    /** The dashboard user who invited (no foreign key: the inviter may be removed later). */
    invitedBy: text('invited_by').notNull(),
    createdAt: timestamptz('created_at').notNull(),
    sentAt: timestamptz('sent_at').notNull(),
    expiresAt: timestamptz('expires_at').notNull(),
    acceptedAt: timestamptz('accepted_at'),
    revokedAt: timestamptz('revoked_at'),
  },
  (table) => [
    uniqueIndex('dashboard_invites_token_hash_unique').on(table.tokenHash),
    uniqueIndex('dashboard_invites_open_unique').on(table.merchantId, table.email).where(sql`${table.acceptedAt} is null and ${table.revokedAt} is null`),
    index('dashboard_invites_merchant').on(table.merchantId, table.createdAt),
    check('dashboard_invites_role_known', sql`${table.role} in ('owner', 'admin', 'developer', 'support', 'viewer')`),
  ],
);
