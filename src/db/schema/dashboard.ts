import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { dashboardUsers, merchants } from './merchants.ts';

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
