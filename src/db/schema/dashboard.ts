import { sql } from 'drizzle-orm';
import { check, index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { dashboardUsers, merchants, type DashboardRole } from './merchants.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Dashboard sign-in sessions. The cookie carries a random token; only its SHA-256 is stored, so a
 * database read does not hand out working sessions. A session ends at `expires_at`, at sign-out, or
 * when the user changes the password (every other session of the user is deleted then).
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
  },
  (table) => [uniqueIndex('dashboard_sessions_token_hash_unique').on(table.tokenHash), index('dashboard_sessions_user').on(table.userId), index('dashboard_sessions_expires').on(table.expiresAt)],
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
