import { hash as argonHash, verify as argonVerify } from '@node-rs/argon2';
import { eq, lt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { dashboardSessions, dashboardUsers, merchants, type DashboardRole } from '../../db/schema/index.ts';
import { newId, randomToken } from '../../crypto/ids.ts';
import { sha256Hex } from '../../crypto/hashing.ts';
import { AppError, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { passwordHashOptions, type Merchant } from '../merchants/index.ts';

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
}

const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/**
 * Dashboard users' sign-in, sessions and password change. The dashboard's one mutating service of
 * its own: every other action of the dashboard calls the module services the API calls.
 */
export function createDashboardSessions(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;
  let dummyHash: Promise<string> | undefined;

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
    /** Checks the e-mail and password; on success opens a session and returns its cookie token. */
    async signIn(email: string, password: string): Promise<{ token: string; expiresAt: Date } | null> {
      const normalized = email.trim().toLowerCase();
      const [user] = normalized === '' ? [] : await database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, normalized));
      const valid = await verifyPassword(user?.passwordHash ?? (await hashForUnknownUser()), password.slice(0, maximumPasswordLength));
      if (!user || !valid) {
        return null;
      }
      const now = clock.now();
      const token = randomToken(32);
      const expiresAt = new Date(now.getTime() + sessionLifetimeMs);
      await database.transaction(async (tx) => {
        // Housekeeping on the way: ended sessions are useless rows (indexed by expiry, so cheap).
        await tx.delete(dashboardSessions).where(lt(dashboardSessions.expiresAt, now));
        await tx.insert(dashboardSessions).values({ id: newId('dashboardSession', now.getTime()), tokenHash: sha256Hex(token), userId: user.id, merchantId: user.merchantId, createdAt: now, expiresAt });
      });
      return { token, expiresAt };
    },

    /** The live session of a cookie token, or null (unknown, malformed or expired). */
    async authenticate(token: string | undefined): Promise<DashboardSession | null> {
      if (!token || !tokenPattern.test(token)) {
        return null;
      }
      const [row] = await database.db
        .select({ session: dashboardSessions, email: dashboardUsers.email, role: dashboardUsers.role, merchant: merchants })
        .from(dashboardSessions)
        .innerJoin(dashboardUsers, eq(dashboardUsers.id, dashboardSessions.userId))
        .innerJoin(merchants, eq(merchants.id, dashboardSessions.merchantId))
        .where(eq(dashboardSessions.tokenHash, sha256Hex(token)));
      if (!row || row.session.expiresAt.getTime() <= clock.now().getTime()) {
        return null;
      }
      return { id: row.session.id, userId: row.session.userId, email: row.email, role: row.role, merchant: row.merchant, expiresAt: row.session.expiresAt };
    },

    async signOut(sessionId: string): Promise<void> {
      await database.db.delete(dashboardSessions).where(eq(dashboardSessions.id, sessionId));
    },

    /**
     * Changes the password after checking the current one. Every session of the user ends, this one
     * included (a stolen session cookie does not survive a password change), and a fresh session
     * replaces this one: a new token, with the same end as the session it replaces (changing the
     * password does not extend a session). Returns the new cookie token.
     */
    async changePassword(session: DashboardSession, input: { currentPassword: string; newPassword: string; confirmation: string }): Promise<{ token: string; expiresAt: Date }> {
      if (input.newPassword.length < minimumPasswordLength || input.newPassword.length > maximumPasswordLength) {
        throw wrongParameter('New password', `must be between ${minimumPasswordLength} and ${maximumPasswordLength} characters`);
      }
      if (input.newPassword !== input.confirmation) {
        throw wrongParameter('The confirmation', 'must repeat the new password exactly');
      }
      const [user] = await database.db.select().from(dashboardUsers).where(eq(dashboardUsers.id, session.userId));
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
        await tx.update(dashboardUsers).set({ passwordHash, updatedAt: now }).where(eq(dashboardUsers.id, user.id));
        await tx.delete(dashboardSessions).where(eq(dashboardSessions.userId, user.id));
        await tx.insert(dashboardSessions).values({ id: newId('dashboardSession', now.getTime()), tokenHash: sha256Hex(token), userId: user.id, merchantId: user.merchantId, createdAt: now, expiresAt });
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
