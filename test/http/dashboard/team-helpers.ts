import assert from 'node:assert/strict';
import { and, desc, eq } from 'drizzle-orm';
import { dashboardUsers, emails } from '../../../src/db/schema/index.ts';
import { openEmailContent } from '../../../src/modules/email/sealing.ts';
import { inviteEmailTemplate } from '../../../src/modules/dashboard/team.ts';
import type { Role } from '../../../src/modules/dashboard/access.ts';
import type { TestContext } from '../../helpers/context.ts';
import { DashboardClient } from './client.ts';

let memberCounter = 0;

/** The dashboard path of the invitation link in the latest invitation e-mail to `to` (opened from the emails table, as the inbox does). */
export async function latestInvitePath(context: TestContext, merchantId: string, to: string): Promise<string> {
  const rows = await context.database.db
    .select()
    .from(emails)
    .where(and(eq(emails.merchantId, merchantId), eq(emails.template, inviteEmailTemplate)))
    .orderBy(desc(emails.createdAt), desc(emails.id));
  for (const row of rows) {
    const content = openEmailContent(context.keyRing, merchantId, row.id, row);
    if (content.to === to) {
      return invitePathIn(content.text);
    }
  }
  throw new Error(`no invitation e-mail to ${to}`);
}

/** The `/dashboard/invites/<token>` path of an e-mail's text. */
export function invitePathIn(text: string): string {
  const match = /http:\/\/paysail\.test(\/dashboard\/invites\/[A-Za-z0-9_-]{43})\b/.exec(text);
  assert.ok(match?.[1], `an invitation link in: ${text}`);
  return match[1];
}

export function memberEmail(label: string): string {
  memberCounter += 1;
  return `${label}-${process.pid}-${memberCounter}@team.example.com`;
}

export const memberPassword = 'correct horse battery staple';

/** Posts the Team screen's invitation form as `manager` and answers the response. */
export async function postInvite(manager: DashboardClient, email: string, role: Role | string) {
  await manager.get('/dashboard/sandbox/team');
  return manager.post('/dashboard/sandbox/team/invites', { email, role });
}

/**
 * A new team member with `role`, the whole way a person gets there: invited on the Team screen by
 * `manager`, the link taken from the e-mail, the password chosen on the accept page (signed in).
 */
export async function addMember(context: TestContext, manager: DashboardClient, merchantId: string, role: Role): Promise<{ client: DashboardClient; email: string; userId: string }> {
  const email = memberEmail(role);
  const invited = await postInvite(manager, email, role);
  assert.equal(invited.statusCode, 303, invited.body);
  const path = await latestInvitePath(context, merchantId, email);
  const client = new DashboardClient(context);
  assert.equal((await client.get(path)).statusCode, 200);
  const accepted = await client.post(path, { newPassword: memberPassword, confirmation: memberPassword });
  assert.equal(accepted.statusCode, 303, accepted.body);
  assert.equal(accepted.headers.location, '/dashboard');
  const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, email));
  assert.ok(user);
  assert.equal(user.role, role);
  return { client, email, userId: user.id };
}

/** The section links of a signed-in page's navigation, in order. */
export function navigationOf(html: string): string[] {
  const nav = /<nav class="sections"[\s\S]*?<\/nav>/.exec(html)?.[0] ?? '';
  return [...nav.matchAll(/<a href="([^"]+)"/g)].map((match) => String(match[1]));
}
