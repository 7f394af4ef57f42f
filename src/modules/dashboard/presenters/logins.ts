/**
 * Read models of the dashboard's logins (decision 0042): who a session is, and the team's members.
 * Both join a merchants table (`dashboard_users`, `merchants`) to the dashboard's own; every write
 * to a login goes through the merchants module (`merchants/dashboard-users.ts`).
 */
import { and, asc, eq, max } from 'drizzle-orm';
import type { Executor } from '../../../db/client.ts';
import { dashboardSessions, dashboardTwoFactor, dashboardUsers, merchants } from '../../../db/schema/index.ts';
import { createdWithin, type CreatedRange } from './pagination.ts';

/**
 * Read model of the team screen's members: each login of the merchant (a merchants table) with the
 * start of their latest session still kept (a dashboard table), in one query; longest-standing first;
 * `period` keeps those who joined in it.
 */
export async function teamMembers(executor: Executor, merchantId: string, period: CreatedRange = {}) {
  return executor
    .select({ id: dashboardUsers.id, email: dashboardUsers.email, role: dashboardUsers.role, createdAt: dashboardUsers.createdAt, lastSignInAt: max(dashboardSessions.createdAt) })
    .from(dashboardUsers)
    .leftJoin(dashboardSessions, eq(dashboardSessions.userId, dashboardUsers.id))
    .where(and(eq(dashboardUsers.merchantId, merchantId), ...createdWithin(dashboardUsers.createdAt, period)))
    .groupBy(dashboardUsers.id)
    .orderBy(asc(dashboardUsers.createdAt), asc(dashboardUsers.id));
}

/**
 * The live session of a cookie token's hash with what every dashboard request needs beside it: the
 * user's e-mail and role (read on every request, so a role change applies at once), the merchant
 * row and whether the user has two-factor sign-in. One query: it runs on every dashboard request.
 */
export async function sessionViewer(executor: Executor, tokenHash: string) {
  const [row] = await executor
    .select({ session: dashboardSessions, email: dashboardUsers.email, role: dashboardUsers.role, merchant: merchants, twoFactorEnabledAt: dashboardTwoFactor.enabledAt })
    .from(dashboardSessions)
    .innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId))
    .innerJoin(merchants, eq(merchants.id, dashboardSessions.merchantId))
    .leftJoin(dashboardTwoFactor, eq(dashboardTwoFactor.userId, dashboardSessions.userId))
    .where(eq(dashboardSessions.tokenHash, tokenHash));
  return row ?? null;
}
