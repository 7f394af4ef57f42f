import { randomInt } from 'node:crypto';
import { and, eq, gt, isNotNull, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import type { Database, Executor } from '../../db/client.ts';
import { dashboardRecoveryCodes, dashboardSessions, dashboardSignInChallenges, dashboardTwoFactor } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { newId, randomToken } from '../../crypto/ids.ts';
import { sha256Hex } from '../../crypto/hashing.ts';
import { resealInBatches, resealValue, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { findDashboardUserByEmail, setRequireTwoFactor } from '../merchants/index.ts';

/** The pending second step of a sign-in lasts five minutes: long enough to find the phone, short enough that a left-open tab does not keep a half sign-in. */
export const challengeLifetimeMs = 5 * 60 * 1000;
export const recoveryCodeCount = 10;
/** RFC 6238 defaults every authenticator app understands: SHA-1, 6 digits, 30 seconds. */
const totpPeriodSeconds = 30;
/** A code of the previous or the next time step is accepted too (a phone clock a little off, a code typed as it changed). */
const totpWindow = 1;
export const totpIssuer = 'Paysail';

const codePattern = /^\d{6}$/;
const recoveryAlphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
const recoveryCodePattern = /^[a-z2-9]{10}$/;
const tokenPattern = /^[A-Za-z0-9_-]{43}$/;

/** What the user typed, without spaces and dashes, lower case: `ab3de-fgh4k` and `AB3DE FGH4K` are the same code. */
export function normalizeSecondFactor(input: string): string {
  return input.replace(/[\s-]/g, '').toLowerCase();
}

/** A 6-digit authenticator code or a recovery code, by shape; `null` for anything else. */
export function secondFactorKind(input: string): 'totp' | 'recovery' | null {
  const normalized = normalizeSecondFactor(input);
  return codePattern.test(normalized) ? 'totp' : recoveryCodePattern.test(normalized) ? 'recovery' : null;
}

function secretAssociatedData(userId: string): string {
  return `dashboard-totp|${userId}`;
}

function recoveryCodeHash(userId: string, code: string): string {
  return sha256Hex(`dashboard-recovery|${userId}|${normalizeSecondFactor(code)}`);
}

/** Ten characters of an alphabet without look-alikes (50 bits), shown as `xxxxx-xxxxx`. */
function newRecoveryCode(): string {
  let code = '';
  while (code.length < 10) {
    code += recoveryAlphabet[randomInt(recoveryAlphabet.length)] ?? '';
  }
  return `${code.slice(0, 5)}-${code.slice(5, 10)}`;
}

function totpOf(base32Secret: string, email: string): TOTP {
  return new TOTP({ issuer: totpIssuer, label: email, algorithm: 'SHA1', digits: 6, period: totpPeriodSeconds, secret: Secret.fromBase32(base32Secret) });
}

export interface Enrolment {
  secret: string;
  uri: string;
  qrSvg: string;
}

/**
 * Two-factor sign-in of dashboard users: the TOTP secret (sealed with the key ring), single-use
 * recovery codes (hashed), the pending second step of a sign-in and the merchant's "require two-factor"
 * setting. docs/decisions/0033 and 0034.
 */
export function createTwoFactor(deps: { database: Database; clock: Clock; keyRing: KeyRing }) {
  const { database, clock, keyRing } = deps;

  async function readRow(userId: string) {
    const [row] = await database.db.select().from(dashboardTwoFactor).where(eq(dashboardTwoFactor.userId, userId));
    return row;
  }

  async function replaceRecoveryCodes(executor: Executor, userId: string, now: Date): Promise<string[]> {
    const codes = Array.from({ length: recoveryCodeCount }, newRecoveryCode);
    await executor.delete(dashboardRecoveryCodes).where(eq(dashboardRecoveryCodes.userId, userId));
    await executor.insert(dashboardRecoveryCodes).values(codes.map((code) => ({ id: newId('recoveryCode', now.getTime()), userId, codeHash: recoveryCodeHash(userId, code), createdAt: now })));
    return codes;
  }

  /**
   * The time step of `code` if it is valid now (±1 step) for the secret; null otherwise. Replay is
   * checked by the caller's conditional update on `last_used_step`.
   */
  function acceptedStep(sealedSecret: string, userId: string, code: string): number | null {
    const totp = totpOf(keyRing.decrypt(sealedSecret, secretAssociatedData(userId)), '');
    const timestamp = clock.now().getTime();
    const delta = totp.validate({ token: normalizeSecondFactor(code), timestamp, window: totpWindow });
    return delta === null ? null : totp.counter({ timestamp }) + delta;
  }

  const service = {
    async status(userId: string): Promise<{ enabled: boolean; enabledAt: Date | null; recoveryCodesLeft: number }> {
      const row = await readRow(userId);
      const [left] = await database.db
        .select({ count: sql<number>`count(*)::int` })
        .from(dashboardRecoveryCodes)
        .where(and(eq(dashboardRecoveryCodes.userId, userId), isNull(dashboardRecoveryCodes.usedAt)));
      return { enabled: Boolean(row?.enabledAt), enabledAt: row?.enabledAt ?? null, recoveryCodesLeft: row?.enabledAt ? Number(left?.count ?? 0) : 0 };
    },

    async isEnabled(userId: string): Promise<boolean> {
      return Boolean((await readRow(userId))?.enabledAt);
    },

    /**
     * The secret waiting for its first code, created on the first visit and kept across reloads (the
     * user may have scanned it already). Null when two-factor sign-in is already on.
     */
    async enrolment(userId: string, email: string): Promise<Enrolment | null> {
      let row = await readRow(userId);
      if (row?.enabledAt) {
        return null;
      }
      if (!row) {
        const secret = new Secret({ size: 20 }).base32;
        await database.db
          .insert(dashboardTwoFactor)
          .values({ userId, secretCiphertext: keyRing.encrypt(secret, secretAssociatedData(userId)), createdAt: clock.now() })
          .onConflictDoNothing();
        row = await readRow(userId);
      }
      if (!row || row.enabledAt) {
        return null;
      }
      const secret = keyRing.decrypt(row.secretCiphertext, secretAssociatedData(userId));
      const uri = totpOf(secret, email).toString();
      // qrcode (and the PNG encoder it brings) loads on the first enrolment, not at every start.
      const { default: QRCode } = await import('qrcode');
      const qrSvg = await QRCode.toString(uri, { type: 'svg', margin: 0, errorCorrectionLevel: 'M' });
      return { secret, uri, qrSvg };
    },

    /** Turns two-factor sign-in on with the first code from the app; returns the recovery codes (shown once). */
    async enable(userId: string, code: string): Promise<string[]> {
      const row = await readRow(userId);
      if (!row || row.enabledAt) {
        throw new AppError('INVALID_STATE', 'Two-factor sign-in is already on, or its setup expired. Reload the page.');
      }
      const step = secondFactorKind(code) === 'totp' ? acceptedStep(row.secretCiphertext, userId, code) : null;
      if (step === null) {
        throw new AppError('WRONG_PARAMETER', 'The code is not correct. Enter the 6-digit code your app shows now.', { field: 'code' });
      }
      const now = clock.now();
      return database.transaction(async (tx) => {
        const enabled = await tx
          .update(dashboardTwoFactor)
          .set({ enabledAt: now, lastUsedStep: step })
          .where(and(eq(dashboardTwoFactor.userId, userId), isNull(dashboardTwoFactor.enabledAt), eq(dashboardTwoFactor.secretCiphertext, row.secretCiphertext)))
          .returning({ userId: dashboardTwoFactor.userId });
        if (enabled.length === 0) {
          throw new AppError('INVALID_STATE', 'Two-factor sign-in is already on, or its setup expired. Reload the page.');
        }
        return replaceRecoveryCodes(tx, userId, now);
      });
    },

    /**
     * Checks a second factor of a user with two-factor sign-in on: a code of the app (each time step
     * accepted once) or an unused recovery code (used up by this call).
     */
    async verify(userId: string, input: string): Promise<boolean> {
      const kind = secondFactorKind(input);
      const row = await readRow(userId);
      if (!row?.enabledAt || kind === null) {
        return false;
      }
      if (kind === 'recovery') {
        const used = await database.db
          .update(dashboardRecoveryCodes)
          .set({ usedAt: clock.now() })
          .where(and(eq(dashboardRecoveryCodes.userId, userId), eq(dashboardRecoveryCodes.codeHash, recoveryCodeHash(userId, input)), isNull(dashboardRecoveryCodes.usedAt)))
          .returning({ id: dashboardRecoveryCodes.id });
        return used.length === 1;
      }
      const step = acceptedStep(row.secretCiphertext, userId, input);
      if (step === null) {
        return false;
      }
      // Conditional on the last accepted step: a code seen once (or an older one) never works again.
      const accepted = await database.db
        .update(dashboardTwoFactor)
        .set({ lastUsedStep: step })
        .where(and(eq(dashboardTwoFactor.userId, userId), isNotNull(dashboardTwoFactor.enabledAt), or(isNull(dashboardTwoFactor.lastUsedStep), lt(dashboardTwoFactor.lastUsedStep, step))))
        .returning({ userId: dashboardTwoFactor.userId });
      return accepted.length === 1;
    },

    /** A new set of recovery codes; the previous set stops working. */
    async regenerateRecoveryCodes(userId: string): Promise<string[]> {
      if (!(await service.isEnabled(userId))) {
        throw new AppError('INVALID_STATE', 'Turn on two-factor sign-in first.');
      }
      return database.transaction((tx) => replaceRecoveryCodes(tx, userId, clock.now()));
    },

    /** Turns two-factor sign-in off: the secret and the recovery codes are deleted. */
    async disable(userId: string): Promise<void> {
      await database.transaction(async (tx) => {
        await tx.delete(dashboardRecoveryCodes).where(eq(dashboardRecoveryCodes.userId, userId));
        await tx.delete(dashboardTwoFactor).where(eq(dashboardTwoFactor.userId, userId));
      });
    },

    /** Opens the pending second step of a sign-in; returns its cookie token. */
    async openChallenge(userId: string): Promise<{ token: string; expiresAt: Date }> {
      const now = clock.now();
      const token = randomToken(32);
      const expiresAt = new Date(now.getTime() + challengeLifetimeMs);
      await database.transaction(async (tx) => {
        await tx.delete(dashboardSignInChallenges).where(lt(dashboardSignInChallenges.expiresAt, now));
        await tx.insert(dashboardSignInChallenges).values({ id: newId('signInChallenge', now.getTime()), tokenHash: sha256Hex(token), userId, createdAt: now, expiresAt });
      });
      return { token, expiresAt };
    },

    /** The user a pending step belongs to, while it lasts; null for an unknown, used or expired token. */
    async challengeUser(token: string | undefined): Promise<string | null> {
      if (!token || !tokenPattern.test(token)) {
        return null;
      }
      const [row] = await database.db
        .select({ userId: dashboardSignInChallenges.userId })
        .from(dashboardSignInChallenges)
        .where(and(eq(dashboardSignInChallenges.tokenHash, sha256Hex(token)), gt(dashboardSignInChallenges.expiresAt, clock.now())));
      return row?.userId ?? null;
    },

    /** Ends a pending step; true for the one call that ended it while it lasted (so it opens one session). */
    async closeChallenge(token: string): Promise<boolean> {
      const closed = await database.db
        .delete(dashboardSignInChallenges)
        .where(and(eq(dashboardSignInChallenges.tokenHash, sha256Hex(token)), gt(dashboardSignInChallenges.expiresAt, clock.now())))
        .returning({ id: dashboardSignInChallenges.id });
      return closed.length === 1;
    },

    /**
     * The operator's reset for a user who lost both the phone and the recovery codes: two-factor
     * sign-in off, every session and pending sign-in of the user ended. The user must belong to the
     * merchant; false when no such user exists.
     */
    async resetForUser(merchantId: string, email: string): Promise<boolean> {
      const normalized = email.trim().toLowerCase();
      return database.transaction(async (tx) => {
        const user = await findDashboardUserByEmail(tx, normalized, merchantId);
        if (!user) {
          return false;
        }
        await tx.delete(dashboardRecoveryCodes).where(eq(dashboardRecoveryCodes.userId, user.id));
        await tx.delete(dashboardTwoFactor).where(eq(dashboardTwoFactor.userId, user.id));
        await tx.delete(dashboardSignInChallenges).where(eq(dashboardSignInChallenges.userId, user.id));
        await tx.delete(dashboardSessions).where(eq(dashboardSessions.userId, user.id));
        return true;
      });
    },

    async setRequired(merchantId: string, required: boolean): Promise<void> {
      await setRequireTwoFactor(database.db, merchantId, required, clock.now());
    },
  };
  return service;
}

export type TwoFactor = ReturnType<typeof createTwoFactor>;

/** Key rotation: re-seals every TOTP secret under the active key (crypto/rotation.ts). */
export async function reencryptTwoFactorSecrets(deps: { database: Database; keyRing: KeyRing }, options: ReencryptOptions = {}): Promise<number> {
  const { database, keyRing } = deps;
  return resealInBatches({
    ...options,
    count: async () => (await database.db.select({ count: sql<number>`count(*)::int` }).from(dashboardTwoFactor))[0]?.count ?? 0,
    readBatch: (after: string | undefined, limit) =>
      database.db
        .select()
        .from(dashboardTwoFactor)
        .where(after === undefined ? undefined : gt(dashboardTwoFactor.userId, after))
        .orderBy(dashboardTwoFactor.userId)
        .limit(limit),
    cursorOf: (row) => row.userId,
    reseal: async (row) => {
      const resealed = resealValue(keyRing, row.secretCiphertext, secretAssociatedData(row.userId));
      if (resealed === null) {
        return false;
      }
      const updated = await database.db
        .update(dashboardTwoFactor)
        .set({ secretCiphertext: resealed })
        .where(and(eq(dashboardTwoFactor.userId, row.userId), eq(dashboardTwoFactor.secretCiphertext, row.secretCiphertext)))
        .returning({ userId: dashboardTwoFactor.userId });
      return updated.length === 1;
    },
  });
}
