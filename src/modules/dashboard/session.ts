import { argonHash, argonVerify } from '../../crypto/passwords.ts';
import { and, desc, eq, gt, isNull, lt, ne, or } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { dashboardSessions, type DashboardRole } from '../../db/schema/index.ts';
import { newId, randomToken } from '../../crypto/ids.ts';
import { sha256Hex } from '../../crypto/hashing.ts';
import { AppError, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { findDashboardUser, findDashboardUserByEmail, passwordHashOptions, setDashboardUserPassword, type Merchant } from '../merchants/index.ts';
import { sessionViewer } from './presenters/logins.ts';
import type { TwoFactor } from './two-factor.ts';

/** A session lasts 12 hours from sign-in, whatever the activity (then the user signs in again). */
export const sessionLifetimeMs = 12 * 60 * 60 * 1000;
export const minimumPasswordLength = 12;
export const maximumPasswordLength = 256;

export interface DashboardSession {
  id: string;
  userId: string;
  email: string;
  /** Read with the session on every request, so a role change applies at once (access.ts). */
  role: DashboardRole;
  merchant: Merchant;
  expiresAt: Date;
  /** Whether the user signs in with a second factor (the merchant may require it: `merchant.requireTwoFactor`). */
  twoFactorEnabled: boolean;
}

/** What the browser told us when it signed in: shown in the user's list of sessions. */
export interface SessionClient {
  address: string;
  userAgent: string;
}

/** One of a user's sessions, for the Security screen. */
export interface SessionSummary {
  id: string;
  createdAt: Date;
  lastUsedAt: Date | null;
  expiresAt: Date;
  address: string | null;
  userAgent: string | null;
}

/** What a right password leads to: a session, or the second step first (the user has two-factor sign-in). */
export type SignInOutcome = { kind: 'session'; token: string; expiresAt: Date } | { kind: 'second-factor'; userId: string; email: string; token: string; expiresAt: Date };

/** `last_used_at` is written at most once a minute per session, not on every page. */
const lastUsedPrecisionMs = 60 * 1000;

const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Dashboard users' sign-in, sessions (listed and revocable) and password change. The dashboard's one mutating service of
 * its own: every other action of the dashboard calls the module services the API calls.
 */
export function createDashboardSessions(deps: { database: Database; clock: Clock; twoFactor: TwoFactor }) {
  const { database, clock, twoFactor } = deps;
  let dummyHash: Promise<string> | undefined;

  function sessionRow(user: { id: string; merchantId: string }, token: string, now: Date, expiresAt: Date, client: SessionClient) {
    return {
      id: newId('dashboardSession', now.getTime()),
      tokenHash: sha256Hex(token),
      userId: user.id,
      merchantId: user.merchantId,
      createdAt: now,
      lastUsedAt: now,
      expiresAt,
      address: client.address.slice(0, 64),
      userAgent: client.userAgent.slice(0, 300),
    };
  }

  async function openSession(userId: string, client: SessionClient): Promise<{ token: string; expiresAt: Date }> {
    const user = await findDashboardUser(database.db, userId);
    if (!user) {
      throw new AppError('UNAUTHORIZED', 'Sign in to use the dashboard');
    }
    const now = clock.now();
    const token = randomToken(32);
    const expiresAt = new Date(now.getTime() + sessionLifetimeMs);
    await database.transaction(async (tx) => {
      // Housekeeping on the way: ended sessions are useless rows (indexed by expiry, so cheap).
      await tx.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, now));
      await tx.insert(dashboardSessions).values(sessionRow(user, token, now, expiresAt, client));
    });
    return { token, expiresAt };
  }

  /** Verifying against a throwaway hash for unknown e-mails keeps sign-in time independent of whether the user exists. */
  function hashForUnknownUser(): Promise<string> {
    dummyHash ??= argonHash(randomToken(18), passwordHashOptions);
    return dummyHash;
  }

  async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
    try {
      return await argonVerify(passwordHash, password);
    } catch {
      return false;
    }
  }

  return {
    /**
     * Checks the e-mail and password. A user with two-factor sign-in gets the pending second step
     * (`TwoFactor.openChallenge`), everyone else a session; null for a wrong e-mail or password.
     */
    async signIn(email: string, password: string, client: SessionClient): Promise<SignInOutcome | null> {
      const normalized = email.trim().toLowerCase();
      const user = normalized === '' ? null : await findDashboardUserByEmail(database.db, normalized);
      const valid = await verifyPassword(user?.passwordHash ?? (await hashForUnknownUser()), password.slice(0, maximumPasswordLength));
      if (!user || !valid) {
        return null;
      }
      if (await twoFactor.isEnabled(user.id)) {
        return { kind: 'second-factor', userId: user.id, email: user.email, ...(await twoFactor.openChallenge(user.id)) };
      }
      return { kind: 'session', ...(await openSession(user.id, client)) };
    },

    /** Opens a session for a user whose sign-in is complete (after the second step, when there is one). */
    openSession,

    /** Whether `password` is the user's password (disabling two-factor sign-in accepts it instead of a code). */
    async checkPassword(userId: string, password: string): Promise<boolean> {
      const user = await findDashboardUser(database.db, userId);
      return verifyPassword(user?.passwordHash ?? (await hashForUnknownUser()), password.slice(0, maximumPasswordLength));
    },

    /** The e-mail of a user (the second step of sign-in names the account it is for). */
    async emailOf(userId: string): Promise<string | null> {
      const user = await findDashboardUser(database.db, userId);
      return user?.email ?? null;
    },

    /** The live session of a cookie token, or null (unknown, malformed or expired). */
    async authenticate(token: string | undefined): Promise<DashboardSession | null> {
      if (!token || !tokenPattern.test(token)) {
        return null;
      }
      const row = await sessionViewer(database.db, sha256Hex(token));
      const now = clock.now();
      if (!row || row.session.expiresAt.getTime() <= now.getTime()) {
        return null;
      }
      if (!row.session.lastUsedAt || now.getTime() - row.session.lastUsedAt.getTime() >= lastUsedPrecisionMs) {
        const stale = new Date(now.getTime() - lastUsedPrecisionMs);
        await database.db
          .update(dashboardSessions)
          .set({ lastUsedAt: now })
          .where(and(eq(dashboardSessions.id, row.session.id), or(isNull(dashboardSessions.lastUsedAt), lt(dashboardSessions.lastUsedAt, stale))));
      }
      return { id: row.session.id, userId: row.session.userId, email: row.email, role: row.role, merchant: row.merchant, expiresAt: row.session.expiresAt, twoFactorEnabled: row.twoFactorEnabledAt !== null };
    },

    async signOut(sessionId: string): Promise<void> {
      await database.db.delete(dashboardSessions).where(eq(dashboardSessions.id, sessionId));
    },

    /** The user's live sessions, the newest first. */
    async listSessions(userId: string): Promise<SessionSummary[]> {
      return database.db
        .select({
          id: dashboardSessions.id,
          createdAt: dashboardSessions.createdAt,
          lastUsedAt: dashboardSessions.lastUsedAt,
          expiresAt: dashboardSessions.expiresAt,
          address: dashboardSessions.address,
          userAgent: dashboardSessions.userAgent,
        })
        .from(dashboardSessions)
        .where(and(eq(dashboardSessions.userId, userId), gt(dashboardSessions.expiresAt, clock.now())))
        .orderBy(desc(dashboardSessions.createdAt), desc(dashboardSessions.id));
    },

    /** Ends one of the user's sessions (another user's id: false, nothing changes). Its next request is signed out. */
    async revokeSession(userId: string, sessionId: string): Promise<boolean> {
      const revoked = await database.db
        .delete(dashboardSessions)
        .where(and(eq(dashboardSessions.id, sessionId), eq(dashboardSessions.userId, userId)))
        .returning({ id: dashboardSessions.id });
      return revoked.length === 1;
    },

    /** Ends every session of the user but `keepSessionId`; the number ended. */
    async revokeOtherSessions(userId: string, keepSessionId: string): Promise<number> {
      const revoked = await database.db
        .delete(dashboardSessions)
        .where(and(eq(dashboardSessions.userId, userId), ne(dashboardSessions.id, keepSessionId)))
        .returning({ id: dashboardSessions.id });
      return revoked.length;
    },

    /**
     * Changes the password after checking the current one. Every session of the user ends, this one
     * included (a stolen session cookie does not survive a password change), and a fresh session
     * replaces this one: a new token, with the same end as the session it replaces (changing the
     * password does not extend a session). Returns the new cookie token.
     */
    async changePassword(
      session: DashboardSession,
      input: { currentPassword: string; newPassword: string; confirmation: string },
      client: SessionClient,
    ): Promise<{ token: string; expiresAt: Date }> {
      if (input.newPassword.length < minimumPasswordLength || input.newPassword.length > maximumPasswordLength) {
        throw wrongParameter('New password', `must be between ${minimumPasswordLength} and ${maximumPasswordLength} characters`);
      }
      if (input.newPassword !== input.confirmation) {
        throw wrongParameter('The confirmation', 'must repeat the new password exactly');
      }
      const user = await findDashboardUser(database.db, session.userId);
      if (!user || !(await verifyPassword(user.passwordHash, input.currentPassword.slice(0, maximumPasswordLength)))) {
        throw new AppError('WRONG_PARAMETER', 'The current password is not correct', { field: 'currentPassword' });
      }
      if (input.newPassword === input.currentPassword) {
        throw wrongParameter('New password', 'must differ from the current one');
      }
      const passwordHash = await argonHash(input.newPassword, passwordHashOptions);
      const now = clock.now();
      const token = randomToken(32);
      const expiresAt = session.expiresAt;
      await database.transaction(async (tx) => {
        await setDashboardUserPassword(tx, user.id, passwordHash, now);
        await tx.delete(dashboardSessions).where(eq(dashboardSessions.userId, user.id));
        await tx.insert(dashboardSessions).values(sessionRow(user, token, now, expiresAt, client));
      });
      return { token, expiresAt };
    },
  };
}

export type DashboardSessions = ReturnType<typeof createDashboardSessions>;

/** Opens a session for a user inside the caller's transaction (accepting an invitation signs the new member in); returns its cookie token. */
export async function openSession(tx: Executor, user: { id: string; merchantId: string }, now: Date): Promise<{ token: string; expiresAt: Date }> {
  const token = randomToken(32);
  const expiresAt = new Date(now.getTime() + sessionLifetimeMs);
  await tx.insert(dashboardSessions).values({ id: newId('dashboardSession', now.getTime()), tokenHash: sha256Hex(token), userId: user.id, merchantId: user.merchantId, createdAt: now, expiresAt });
  return { token, expiresAt };
}

/** Ends every session of a user at once (removed from the team, or their role changed). */
export async function endSessionsOfUser(tx: Executor, userId: string): Promise<void> {
  await tx.delete(dashboardSessions).where(eq(dashboardSessions.userId, userId));
}
