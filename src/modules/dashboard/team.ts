import { argonHash } from '../../crypto/passwords.ts';
import { and, desc, eq, gt, isNull, lte } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { dashboardInvites } from '../../db/schema/index.ts';
import { newId, randomToken } from '../../crypto/ids.ts';
import { sha256Hex } from '../../crypto/hashing.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { AppError, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { enqueueEmail, renderEmail } from '../email/index.ts';
import {
  countOwners,
  deleteDashboardUser,
  findDashboardUserByEmail,
  findTeamMember,
  insertDashboardUser,
  lockOwners,
  merchantNameOf,
  passwordHashOptions,
  setDashboardUserRole,
} from '../merchants/index.ts';
import { canManageTeam, isRole, mayManageOwners, roles, roleWords, type Role } from './access.ts';
import { teamMembers } from './presenters/logins.ts';
import { createdWithin, type CreatedRange } from './presenters/pagination.ts';
import { endSessionsOfUser, maximumPasswordLength, minimumPasswordLength, openSession } from './session.ts';

/** An invitation link works for 7 days (Stripe's team invitations expire likewise); resending starts a new 7 days. */
export const inviteLifetimeMs = 7 * 24 * 60 * 60 * 1000;
export const inviteEmailTemplate = 'dashboard_invite';

const invitePathPrefix = '/dashboard/invites/';
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;
/** A practical e-mail shape (one @, a dot in the domain, no spaces); the link in the e-mail proves the rest. */
const emailPattern = /^[^\s@]{1,64}@[^\s@]{1,189}\.[^\s@]{2,63}$/;

/** Who is acting: the signed-in dashboard user (their session). */
export interface TeamActor {
  userId: string;
  role: Role;
  merchant: { id: string; name: string };
}

export interface TeamMemberView {
  id: string;
  email: string;
  role: Role;
  createdAt: Date;
  /** The start of the user's latest session still kept (sessions are deleted 12 hours after they end), else null. */
  lastSignInAt: Date | null;
}

export type InviteStatus = 'pending' | 'expired';

export interface TeamInviteView {
  id: string;
  email: string;
  role: Role;
  sentAt: Date;
  expiresAt: Date;
  status: InviteStatus;
  /** When the first invitation was sent (a resend keeps it). */
  createdAt: Date;
}

/** What the accept page shows about an invitation (the token holder is its addressee). */
export type InviteLookup =
  | { state: 'open'; email: string; role: Role; merchantName: string; expiresAt: Date }
  | { state: 'expired' | 'used' | 'unknown'; merchantName?: string };

function forbidden(message: string): AppError {
  return new AppError('FORBIDDEN', message);
}

function normalizeEmail(raw: string): string {
  const email = raw.trim().toLowerCase();
  if (email.length > 254 || !emailPattern.test(email)) {
    throw wrongParameter('email', 'must be an e-mail address such as name@example.com');
  }
  return email;
}

function requireRole(raw: string): Role {
  if (!isRole(raw)) {
    throw wrongParameter('role', 'must be one of owner, admin, developer, support, viewer');
  }
  return raw;
}

/** The rules of a password change (session.ts): 12 to 256 characters, repeated exactly. */
export function checkNewPassword(password: string, confirmation: string): void {
  if (password.length < minimumPasswordLength || password.length > maximumPasswordLength) {
    throw wrongParameter('The password', `must be between ${minimumPasswordLength} and ${maximumPasswordLength} characters`);
  }
  if (password !== confirmation) {
    throw wrongParameter('The repeated password', 'must be the same as the password');
  }
}

/**
 * The merchant's team (issue 18 item 11): members and their roles, invitations by e-mail, removal.
 * Rules beyond the route matrix of access.ts: only an owner gives, changes or takes the owner role
 * (an admin manages everyone else), and a merchant always keeps at least one owner, checked with
 * the merchant's owner rows locked so two concurrent demotions cannot both pass.
 */
export function createTeamService(deps: { database: Database; clock: Clock; keyRing: KeyRing; publicUrl: string }) {
  const { database, clock, keyRing, publicUrl } = deps;

  async function requireMember(executor: Executor, merchantId: string, userId: string) {
    const user = await findTeamMember(executor, merchantId, userId);
    if (!user) {
      throw new AppError('NOT_FOUND', 'No team member with this id exists in your account. They may have been removed meanwhile.');
    }
    return user;
  }

  /**
   * The owner rows locked, then the actor as the database has them now: a role taken meanwhile (two
   * owners demoting each other at once: the second waits here for the first) no longer acts.
   */
  async function lockActor(tx: Executor, actor: TeamActor): Promise<{ actor: TeamActor; owners: string[] }> {
    const owners = await lockOwners(tx, actor.merchant.id);
    const self = await findTeamMember(tx, actor.merchant.id, actor.userId);
    if (!self || !canManageTeam(self)) {
      throw forbidden('Your role changed meanwhile and no longer lets you manage the team.');
    }
    return { actor: { ...actor, role: self.role }, owners };
  }

  /** Refuses when `userId` is the merchant's only owner (`owners` as `lockActor` locked them). */
  function keepAnotherOwner(owners: string[], userId: string): void {
    if (!owners.some((owner) => owner !== userId)) {
      throw new AppError('INVALID_STATE', 'Your account needs at least one owner. Make another member an owner first.', { notice: 'last-owner' });
    }
  }

  async function sendInviteEmail(tx: Executor, now: Date, merchant: { id: string; name: string }, invite: { id: string; email: string; role: Role; expiresAt: Date }, token: string): Promise<void> {
    const role = roleWords[invite.role].name;
    const content = renderEmail({
      subject: `You are invited to ${merchant.name} on Paysail`,
      title: `Join ${merchant.name} on Paysail`,
      paragraphs: [
        `You are invited to the Paysail dashboard of ${merchant.name} as ${role}: ${roleWords[invite.role].summary}`,
        `Choose your password with the button below. The link works once, until ${invite.expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC.`,
        'If you did not expect this invitation, ignore this e-mail: nothing happens unless the link is used.',
      ],
      action: { label: 'Accept the invitation', url: `${publicUrl}${invitePathPrefix}${token}` },
    });
    await enqueueEmail(tx, now, keyRing, { ...content, merchantId: merchant.id, livemode: false, to: invite.email, template: inviteEmailTemplate, relatedId: invite.id });
  }

  async function openInvite(executor: Executor, merchantId: string, inviteId: string) {
    const [invite] = await executor
      .select()
      .from(dashboardInvites)
      .where(and(eq(dashboardInvites.id, inviteId), eq(dashboardInvites.merchantId, merchantId), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt)));
    if (!invite) {
      throw new AppError('NOT_FOUND', 'No open invitation with this id exists in your account. It may have been accepted or revoked meanwhile.');
    }
    return invite;
  }

  function guardOwnerRole(actor: TeamActor, ...rolesTouched: Role[]): void {
    if (rolesTouched.includes('owner') && !mayManageOwners(actor)) {
      throw forbidden('Only an owner can give, change or take the owner role, or invite an owner.');
    }
  }

  return {
    /** The members (those who joined in `period` when given): owners first, then by role. */
    async listMembers(merchantId: string, period: CreatedRange = {}): Promise<TeamMemberView[]> {
      const rows = await teamMembers(database.db, merchantId, period);
      // Owners first, then by role, then the longest-standing member first.
      return rows
        .map((row) => ({ ...row, lastSignInAt: row.lastSignInAt === null ? null : new Date(row.lastSignInAt) }))
        .sort((a, b) => roles.indexOf(a.role) - roles.indexOf(b.role));
    },

    /** Invitations neither accepted nor revoked (first sent in `period` when given), newest first; expired ones stay listed so they can be resent. */
    async listInvites(merchantId: string, period: CreatedRange = {}): Promise<TeamInviteView[]> {
      const now = clock.now();
      const rows = await database.db
        .select()
        .from(dashboardInvites)
        .where(and(eq(dashboardInvites.merchantId, merchantId), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt), ...createdWithin(dashboardInvites.createdAt, period)))
        .orderBy(desc(dashboardInvites.createdAt), desc(dashboardInvites.id))
        .limit(200);
      return rows.map((row) => ({ id: row.id, email: row.email, role: row.role, sentAt: row.sentAt, expiresAt: row.expiresAt, status: row.expiresAt.getTime() > now.getTime() ? 'pending' : 'expired', createdAt: row.createdAt }));
    },

    /** Invites an e-mail with a role; the e-mail (with a link valid 7 days) commits with the invitation. */
    async invite(actor: TeamActor, input: { email: string; role: string }): Promise<{ id: string }> {
      const email = normalizeEmail(input.email);
      const role = requireRole(input.role);
      guardOwnerRole(actor, role);
      const now = clock.now();
      const token = randomToken(32);
      const id = newId('dashboardInvite', now.getTime());
      const expiresAt = new Date(now.getTime() + inviteLifetimeMs);
      return database.transaction(async (tx) => {
        const existing = await findDashboardUserByEmail(tx, email);
        if (existing) {
          throw wrongParameter(
            'email',
            existing.merchantId === actor.merchant.id
              ? 'is already a member of your team: change their role in the list instead'
              : 'already has a Paysail dashboard login (one e-mail signs in to one account): ask them for another address',
          );
        }
        // An expired invitation of the same address gives way to the new one; an open one is resent instead.
        await tx
          .update(dashboardInvites)
          .set({ revokedAt: now })
          .where(and(eq(dashboardInvites.merchantId, actor.merchant.id), eq(dashboardInvites.email, email), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt), lte(dashboardInvites.expiresAt, now)));
        const inserted = await tx
          .insert(dashboardInvites)
          .values({ id, merchantId: actor.merchant.id, email, role, tokenHash: sha256Hex(token), invitedBy: actor.userId, createdAt: now, sentAt: now, expiresAt })
          .onConflictDoNothing()
          .returning({ id: dashboardInvites.id });
        if (inserted.length === 0) {
          throw wrongParameter('email', 'already has an open invitation: resend it from the list of invitations');
        }
        await sendInviteEmail(tx, now, actor.merchant, { id, email, role, expiresAt }, token);
        return { id };
      });
    },

    /** A new link (the earlier one stops working) and a new 7 days, e-mailed again. */
    async resendInvite(actor: TeamActor, inviteId: string): Promise<void> {
      const now = clock.now();
      const token = randomToken(32);
      const expiresAt = new Date(now.getTime() + inviteLifetimeMs);
      await database.transaction(async (tx) => {
        const invite = await openInvite(tx, actor.merchant.id, inviteId);
        guardOwnerRole(actor, invite.role);
        const [updated] = await tx
          .update(dashboardInvites)
          .set({ tokenHash: sha256Hex(token), sentAt: now, expiresAt })
          .where(and(eq(dashboardInvites.id, invite.id), eq(dashboardInvites.tokenHash, invite.tokenHash), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt)))
          .returning({ id: dashboardInvites.id });
        if (!updated) {
          throw new AppError('INVALID_STATE', 'This invitation was accepted, revoked or resent meanwhile.');
        }
        await sendInviteEmail(tx, now, actor.merchant, { id: invite.id, email: invite.email, role: invite.role, expiresAt }, token);
      });
    },

    async revokeInvite(actor: TeamActor, inviteId: string): Promise<void> {
      await database.transaction(async (tx) => {
        const invite = await openInvite(tx, actor.merchant.id, inviteId);
        guardOwnerRole(actor, invite.role);
        await tx
          .update(dashboardInvites)
          .set({ revokedAt: clock.now() })
          .where(and(eq(dashboardInvites.id, invite.id), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt)));
      });
    },

    /** A new role applies at the member's next request (sessions read it); the last owner keeps theirs. */
    async changeRole(actor: TeamActor, userId: string, rawRole: string): Promise<void> {
      const role = requireRole(rawRole);
      await database.transaction(async (tx) => {
        const { actor: current, owners } = await lockActor(tx, actor);
        const member = await requireMember(tx, actor.merchant.id, userId);
        guardOwnerRole(current, member.role, role);
        if (member.role === role) {
          return;
        }
        if (member.role === 'owner') {
          keepAnotherOwner(owners, member.id);
        }
        await setDashboardUserRole(tx, actor.merchant.id, member.id, role, clock.now());
      });
    },

    /** Removes a member: their login is deleted and every session of theirs ends at once. */
    async removeMember(actor: TeamActor, userId: string): Promise<void> {
      await database.transaction(async (tx) => {
        const { actor: current, owners } = await lockActor(tx, actor);
        const member = await requireMember(tx, actor.merchant.id, userId);
        guardOwnerRole(current, member.role);
        if (member.role === 'owner') {
          keepAnotherOwner(owners, member.id);
        }
        await endSessionsOfUser(tx, member.id);
        await deleteDashboardUser(tx, actor.merchant.id, member.id);
      });
    },

    async findMember(merchantId: string, userId: string): Promise<TeamMemberView> {
      const member = await requireMember(database.db, merchantId, userId);
      return { id: member.id, email: member.email, role: member.role, createdAt: member.createdAt, lastSignInAt: null };
    },

    async findInvite(merchantId: string, inviteId: string): Promise<TeamInviteView> {
      const invite = await openInvite(database.db, merchantId, inviteId);
      return { id: invite.id, email: invite.email, role: invite.role, sentAt: invite.sentAt, expiresAt: invite.expiresAt, status: invite.expiresAt.getTime() > clock.now().getTime() ? 'pending' : 'expired', createdAt: invite.createdAt };
    },

    /** The invitation a link's token names, as its accept page shows it. */
    async lookupInvite(token: string): Promise<InviteLookup> {
      if (!tokenPattern.test(token)) {
        return { state: 'unknown' };
      }
      const [row] = await database.db
        .select({ invite: dashboardInvites, merchantName: merchantNameOf(dashboardInvites.merchantId) })
        .from(dashboardInvites)
        .where(eq(dashboardInvites.tokenHash, sha256Hex(token)));
      if (!row) {
        return { state: 'unknown' };
      }
      const { invite, merchantName } = row;
      if (invite.acceptedAt || invite.revokedAt) {
        return { state: 'used', merchantName };
      }
      if (invite.expiresAt.getTime() <= clock.now().getTime()) {
        return { state: 'expired', merchantName };
      }
      return { state: 'open', email: invite.email, role: invite.role, merchantName, expiresAt: invite.expiresAt };
    },

    /**
     * Accepts an invitation once: the invitation is claimed by a conditional update (open, not
     * expired), the login created with the invited role, and a session opened, in one transaction.
     * Returns the new session's cookie token, or throws NOT_FOUND when the link no longer works.
     */
    async acceptInvite(token: string, input: { password: string; confirmation: string }): Promise<{ userId: string; merchantId: string; token: string; expiresAt: Date }> {
      if (!tokenPattern.test(token)) {
        throw new AppError('NOT_FOUND', 'This invitation link does not work.');
      }
      checkNewPassword(input.password, input.confirmation);
      const passwordHash = await argonHash(input.password, passwordHashOptions);
      const now = clock.now();
      return database.transaction(async (tx) => {
        const [invite] = await tx
          .update(dashboardInvites)
          .set({ acceptedAt: now })
          .where(and(eq(dashboardInvites.tokenHash, sha256Hex(token)), isNull(dashboardInvites.acceptedAt), isNull(dashboardInvites.revokedAt), gt(dashboardInvites.expiresAt, now)))
          .returning();
        if (!invite) {
          throw new AppError('NOT_FOUND', 'This invitation link no longer works: it was used, revoked or has expired. Ask the team for a new invitation.');
        }
        const userId = newId('dashboardUser', now.getTime());
        const created = await insertDashboardUser(tx, { id: userId, merchantId: invite.merchantId, email: invite.email, passwordHash, role: invite.role }, now);
        if (!created) {
          throw wrongParameter('email', 'already has a Paysail dashboard login: sign in with it instead');
        }
        const session = await openSession(tx, { id: userId, merchantId: invite.merchantId }, now);
        return { userId, merchantId: invite.merchantId, ...session };
      });
    },

    /** How many owners a merchant has (tests and the lead's "owners require 2FA" wiring). */
    async countOwners(merchantId: string): Promise<number> {
      return countOwners(database.db, merchantId);
    },
  };
}

export type TeamService = ReturnType<typeof createTeamService>;
