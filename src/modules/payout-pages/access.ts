import { randomInt } from 'node:crypto';
import { and, desc, eq, gt, gte, isNull, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { payoutPageAccessCodes, payoutPageSessions, payoutPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { constantTimeEqual, hmacSha256, sha256Hex } from '../../crypto/hashing.ts';
import { randomToken } from '../../crypto/ids.ts';
import type { Clock } from '../../clock.ts';

/**
 * A code is good for 10 minutes and 5 guesses; at most 5 codes an hour, one per 30 s; and a page
 * takes 10 wrong codes in its whole life (`maxWrongCodes`, lock.ts) before it locks.
 */
export const accessCodeTtlMs = 10 * 60_000;
export const maxCodeAttempts = 5;
export const maxCodesPerHour = 5;
export const resendIntervalMs = 30_000;
/** A verified session lasts 30 minutes. */
export const sessionTtlMs = 30 * 60_000;

export type SendCodeOutcome = 'sent' | 'recently_sent' | 'too_many' | 'locked';
export type VerifyOutcome = { outcome: 'verified'; sessionToken: string; expiresAt: Date } | { outcome: 'wrong'; attemptsLeft: number } | { outcome: 'no_code' } | { outcome: 'locked' };

/**
 * Who may see the customer's stored data on a hosted page: whoever proves they read the customer's
 * e-mail. A 6-digit code (stored as an HMAC, limited guesses, short life) buys a session whose
 * token lives in an HttpOnly cookie (stored as a SHA-256).
 */
export function createPayoutPageAccess(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  /** E-mails the code inside the transaction that stores it. */
  emailCode: (tx: Executor, payoutPageId: string, code: string, now: Date) => Promise<void>;
  /** Counts a wrong code against the page's lifetime cap, in the guess's transaction (lock.ts); true when the page is now locked. */
  countWrongCode: (tx: Executor, payoutPageId: string, now: Date) => Promise<boolean>;
}) {
  const { database, clock, keyRing, emailCode, countWrongCode } = deps;
  const codeKey = keyRing.deriveKey('payout-page-access-code');

  function hashCode(payoutPageId: string, code: string): string {
    return hmacSha256(codeKey, `${payoutPageId}|${code}`).toString('hex');
  }

  async function latestCode(executor: Executor, payoutPageId: string) {
    const [row] = await executor
      .select()
      .from(payoutPageAccessCodes)
      .where(eq(payoutPageAccessCodes.payoutPageId, payoutPageId))
      .orderBy(desc(payoutPageAccessCodes.createdAt), desc(payoutPageAccessCodes.id))
      .limit(1);
    return row ?? null;
  }

  /**
   * Whether the page is locked, its row held FOR UPDATE until the caller's commit: every send and
   * guess of one page runs one after the other, so none slips past the lock another one sets.
   */
  async function lockedForUpdate(tx: Executor, payoutPageId: string): Promise<boolean> {
    const [row] = await tx.select({ lockedAt: payoutPages.lockedAt }).from(payoutPages).where(eq(payoutPages.id, payoutPageId)).for('update');
    return !row || row.lockedAt !== null;
  }

  function usable(row: { attempts: number; expiresAt: Date; consumedAt: Date | null }, now: Date): boolean {
    return row.consumedAt === null && row.attempts < maxCodeAttempts && row.expiresAt.getTime() > now.getTime();
  }

  return {
    /** A new code replaces any earlier one; refused when sent too recently or too often. */
    async sendCode(payoutPageId: string): Promise<SendCodeOutcome> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        if (await lockedForUpdate(tx, payoutPageId)) {
          return 'locked';
        }
        const latest = await latestCode(tx, payoutPageId);
        if (latest && usable(latest, now) && now.getTime() - latest.createdAt.getTime() < resendIntervalMs) {
          return 'recently_sent';
        }
        const [recent] = await tx
          .select({ count: sql<number>`count(*)::int` })
          .from(payoutPageAccessCodes)
          .where(and(eq(payoutPageAccessCodes.payoutPageId, payoutPageId), gte(payoutPageAccessCodes.createdAt, new Date(now.getTime() - 60 * 60_000))));
        if ((recent?.count ?? 0) >= maxCodesPerHour) {
          return 'too_many';
        }
        const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
        await tx.insert(payoutPageAccessCodes).values({ payoutPageId, codeHash: hashCode(payoutPageId, code), attempts: 0, expiresAt: new Date(now.getTime() + accessCodeTtlMs), createdAt: now });
        await emailCode(tx, payoutPageId, code, now);
        return 'sent';
      });
    },

    /** The latest code, when one can still be entered (for the page: "enter the code we sent"). */
    async pendingCode(payoutPageId: string): Promise<{ attemptsLeft: number; expiresAt: Date } | null> {
      const now = clock.now();
      const latest = await latestCode(database.db, payoutPageId);
      return latest && usable(latest, now) ? { attemptsLeft: maxCodeAttempts - latest.attempts, expiresAt: latest.expiresAt } : null;
    },

    /**
     * Checks a code against the latest one. The guess is counted by a conditional UPDATE before the
     * comparison, so concurrent guesses cannot exceed the limit; a wrong guess commits its count.
     */
    async verify(payoutPageId: string, code: string): Promise<VerifyOutcome> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        if (await lockedForUpdate(tx, payoutPageId)) {
          return { outcome: 'locked' } as const;
        }
        const latest = await latestCode(tx, payoutPageId);
        if (!latest || !usable(latest, now)) {
          return { outcome: 'no_code' } as const;
        }
        const [counted] = await tx
          .update(payoutPageAccessCodes)
          .set({ attempts: sql`${payoutPageAccessCodes.attempts} + 1` })
          .where(
            and(
              eq(payoutPageAccessCodes.id, latest.id),
              lt(payoutPageAccessCodes.attempts, maxCodeAttempts),
              isNull(payoutPageAccessCodes.consumedAt),
              gt(payoutPageAccessCodes.expiresAt, now),
            ),
          )
          .returning({ attempts: payoutPageAccessCodes.attempts });
        if (!counted) {
          return { outcome: 'no_code' } as const;
        }
        if (!/^\d{6}$/.test(code) || !constantTimeEqual(hashCode(payoutPageId, code), latest.codeHash)) {
          if (await countWrongCode(tx, payoutPageId, now)) {
            return { outcome: 'locked' } as const;
          }
          return { outcome: 'wrong', attemptsLeft: maxCodeAttempts - counted.attempts } as const;
        }
        const consumed = await tx
          .update(payoutPageAccessCodes)
          .set({ consumedAt: now })
          .where(and(eq(payoutPageAccessCodes.id, latest.id), isNull(payoutPageAccessCodes.consumedAt)))
          .returning({ id: payoutPageAccessCodes.id });
        if (consumed.length === 0) {
          return { outcome: 'no_code' } as const;
        }
        const sessionToken = randomToken(32);
        const expiresAt = new Date(now.getTime() + sessionTtlMs);
        await tx.insert(payoutPageSessions).values({ tokenHash: sha256Hex(sessionToken), payoutPageId, expiresAt, createdAt: now });
        return { outcome: 'verified', sessionToken, expiresAt } as const;
      });
    },

    async hasSession(payoutPageId: string, token: string | undefined): Promise<boolean> {
      if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) {
        return false;
      }
      const [row] = await database.db
        .select({ payoutPageId: payoutPageSessions.payoutPageId, expiresAt: payoutPageSessions.expiresAt })
        .from(payoutPageSessions)
        .where(eq(payoutPageSessions.tokenHash, sha256Hex(token)));
      return !!row && row.payoutPageId === payoutPageId && row.expiresAt.getTime() > clock.now().getTime();
    },
  };
}

export type PayoutPageAccess = ReturnType<typeof createPayoutPageAccess>;
