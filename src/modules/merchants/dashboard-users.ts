import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { dashboardUsers, merchants, type DashboardRole } from '../../db/schema/index.ts';

/**
 * A merchant's dashboard logins, as the dashboard module signs them in, changes passwords and runs
 * the team (docs/ARCHITECTURE.md, "Module boundaries": the merchants module owns `dashboard_users`
 * and `merchants`; the dashboard owns sessions, invitations and the two-factor tables). Each takes
 * the caller's executor, so it reads and writes inside the caller's transaction.
 */
export type DashboardUser = typeof dashboardUsers.$inferSelect;

export async function findDashboardUser(executor: Executor, userId: string): Promise<DashboardUser | null> {
  const [user] = await executor.select().from(dashboardUsers).where(eq(dashboardUsers.id, userId));
  return user ?? null;
}

/** The login of an e-mail (already normalized: trimmed, lower case), of any merchant or of `merchantId` only. */
export async function findDashboardUserByEmail(executor: Executor, email: string, merchantId?: string): Promise<DashboardUser | null> {
  const [user] = await executor
    .select()
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.email, email), merchantId === undefined ? undefined : eq(dashboardUsers.merchantId, merchantId)));
  return user ?? null;
}

/** A member of this merchant's team, or null (another merchant's user is not found). */
export async function findTeamMember(executor: Executor, merchantId: string, userId: string): Promise<DashboardUser | null> {
  const [user] = await executor
    .select()
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.merchantId, merchantId)));
  return user ?? null;
}

/** The ids of the merchant's owners, in id order, row-locked for the transaction (two demotions of the last owners queue here). */
export async function lockOwners(tx: Executor, merchantId: string): Promise<string[]> {
  const owners = await tx
    .select({ id: dashboardUsers.id })
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.role, 'owner')))
    .orderBy(asc(dashboardUsers.id))
    .for('update');
  return owners.map((owner) => owner.id);
}

export async function countOwners(executor: Executor, merchantId: string): Promise<number> {
  const [row] = await executor
    .select({ count: sql<number>`count(*)::int` })
    .from(dashboardUsers)
    .where(and(eq(dashboardUsers.merchantId, merchantId), eq(dashboardUsers.role, 'owner')));
  return Number(row?.count ?? 0);
}

/** A new login; false when the e-mail has one already (the unique index on e-mails). */
export async function insertDashboardUser(
  tx: Executor,
  values: { id: string; merchantId: string; email: string; passwordHash: string; role: DashboardRole },
  now: Date,
): Promise<boolean> {
  const created = await tx
    .insert(dashboardUsers)
    .values({ ...values, createdAt: now, updatedAt: now })
    .onConflictDoNothing()
    .returning({ id: dashboardUsers.id });
  return created.length > 0;
}

export async function setDashboardUserPassword(tx: Executor, userId: string, passwordHash: string, now: Date): Promise<void> {
  await tx.update(dashboardUsers).set({ passwordHash, updatedAt: now }).where(eq(dashboardUsers.id, userId));
}

export async function setDashboardUserRole(tx: Executor, merchantId: string, userId: string, role: DashboardRole, now: Date): Promise<void> {
  await tx
    .update(dashboardUsers)
    .set({ role, updatedAt: now })
    .where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.merchantId, merchantId)));
}

export async function deleteDashboardUser(tx: Executor, merchantId: string, userId: string): Promise<void> {
  await tx.delete(dashboardUsers).where(and(eq(dashboardUsers.id, userId), eq(dashboardUsers.merchantId, merchantId)));
}

/** Whether the merchant's dashboard users must sign in with a second factor (the Security screen's switch). */
export async function setRequireTwoFactor(executor: Executor, merchantId: string, required: boolean, now: Date): Promise<void> {
  await executor.update(merchants).set({ requireTwoFactor: required, updatedAt: now }).where(eq(merchants.id, merchantId));
}
