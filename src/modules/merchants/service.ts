import { argonHash } from '../../crypto/passwords.ts';
import { and, desc, eq, isNull } from 'drizzle-orm';
import { timingSafeEqual } from 'node:crypto';
import type { Database, Executor } from '../../db/client.ts';
import { apiKeys, dashboardUsers, merchantPiiKeys, merchants } from '../../db/schema/index.ts';
import { newId, randomToken } from '../../crypto/ids.ts';
import { sha256Hex } from '../../crypto/hashing.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealTable, resealValue, type ReencryptOptions } from '../../crypto/rotation.ts';
import { randomBytes } from 'node:crypto';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';

export type Merchant = typeof merchants.$inferSelect;

export interface AuthenticatedKey {
  merchant: Merchant;
  apiKeyId: string;
}

export interface MerchantSettings {
  fraudReportWebhooksEnabled?: boolean;
  rateLimitPerSecond?: number | null;
  rateLimitBurst?: number | null;
}

export interface CreatedMerchant {
  merchant: { id: string; name: string; liveEnabled: boolean };
  apiKey: string;
  dashboardUser: { email: string; password: string };
}

export type MerchantCreatedHook = (tx: Executor, merchant: Merchant, now: Date) => Promise<void>;

export interface PiiKey {
  id: string;
  key: Uint8Array;
}

/** argon2id parameters (OWASP minimum: m=19 MiB, t=2, p=1). */
export const passwordHashOptions = { memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

const apiKeyPattern = /^sk_([0-9a-z]{36})_([A-Za-z0-9_-]{43})$/;
const lastUsedWriteIntervalMs = 60_000;
const piiKeyCacheMs = 30_000;
/**
 * How long a resolved API key (its hash, revocation and merchant row) is reused without reading the
 * database. Revoking a key or changing the merchant through this service empties the cache at once
 * in this process; another process (several API processes on one PostgreSQL) notices within this time.
 */
export const authCacheMs = 2_000;
const authCacheMaxEntries = 10_000;

function piiKeyAssociatedData(merchantId: string, keyId: string): string {
  return `merchant_pii_keys|${merchantId}|${keyId}`;
}

export function createMerchantsService(deps: { database: Database; clock: Clock; keyRing: KeyRing }) {
  const { database, clock, keyRing } = deps;
  const createdHooks: MerchantCreatedHook[] = [];
  const lastUsedWrites = new Map<string, number>();
  const piiKeyCache = new Map<string, { key: PiiKey; loadedAt: number }>();
  type KeyRow = { key: typeof apiKeys.$inferSelect; merchant: Merchant };
  /** Resolved key ids, and unknown ones (null): a flood of made-up key ids costs one query per id and cache period. */
  const authCache = new Map<string, { row: KeyRow | null; loadedAt: number }>();
  /** Bumped by every invalidation, so a read that raced with it is not cached. */
  let authCacheEpoch = 0;

  /** Forgets every resolved key: after a revocation or a change to a merchant row. */
  function invalidateAuthCache(): void {
    authCacheEpoch += 1;
    authCache.clear();
  }

  async function loadKeyRow(keyId: string): Promise<KeyRow | undefined> {
    const cached = authCache.get(keyId);
    if (cached && Date.now() - cached.loadedAt < authCacheMs) {
      return cached.row ?? undefined;
    }
    const epoch = authCacheEpoch;
    const [row] = await database.db
      .select({ key: apiKeys, merchant: merchants })
      .from(apiKeys)
      .innerJoin(merchants, eq(merchants.id, apiKeys.merchantId))
      .where(eq(apiKeys.id, keyId));
    if (epoch === authCacheEpoch) {
      if (authCache.size >= authCacheMaxEntries) {
        authCache.clear();
      }
      authCache.set(keyId, { row: row ?? null, loadedAt: Date.now() });
    }
    return row;
  }

  async function insertApiKey(tx: Executor, merchantId: string, name: string, now: Date): Promise<{ id: string; secret: string }> {
    const id = newId('apiKey', now.getTime());
    const secret = randomToken(32);
    await tx.insert(apiKeys).values({ id, merchantId, name, secretHash: sha256Hex(secret), last4: secret.slice(-4), createdAt: now });
    return { id, secret: `sk_${id.slice('key_'.length)}_${secret}` };
  }

  async function insertPiiKey(tx: Executor, merchantId: string, now: Date): Promise<void> {
    const id = newId('piiKey', now.getTime());
    await tx.update(merchantPiiKeys).set({ active: false }).where(eq(merchantPiiKeys.merchantId, merchantId));
    await tx.insert(merchantPiiKeys).values({
      id,
      merchantId,
      keyCiphertext: keyRing.encrypt(randomBytes(32).toString('base64url'), piiKeyAssociatedData(merchantId, id)),
      active: true,
      createdAt: now,
    });
  }

  async function requireMerchant(executor: Executor, merchantId: string): Promise<Merchant> {
    const [merchant] = await executor.select().from(merchants).where(eq(merchants.id, merchantId));
    if (!merchant) {
      throw notFound('merchant', merchantId);
    }
    return merchant;
  }

  return {
    onMerchantCreated(hook: MerchantCreatedHook): void {
      createdHooks.push(hook);
    },

    async createMerchant(input: { name: string; email: string }): Promise<CreatedMerchant> {
      const now = clock.now();
      const email = input.email.trim().toLowerCase();
      const password = randomToken(18);
      const passwordHash = await argonHash(password, passwordHashOptions);
      return database.transaction(async (tx) => {
        const [existingUser] = await tx.select({ id: dashboardUsers.id }).from(dashboardUsers).where(eq(dashboardUsers.email, email));
        if (existingUser) {
          throw wrongParameter('email', 'is already used by another dashboard user');
        }
        const id = newId('merchant', now.getTime());
        const [merchant] = await tx
          .insert(merchants)
          .values({ id, name: input.name, email, liveEnabled: false, fraudReportWebhooksEnabled: false, createdAt: now, updatedAt: now })
          .returning();
        if (!merchant) {
          throw new Error('merchant insert returned nothing');
        }
        const key = await insertApiKey(tx, id, 'Default key', now);
        await tx.insert(dashboardUsers).values({ id: newId('dashboardUser', now.getTime()), merchantId: id, email, passwordHash, role: 'owner', createdAt: now, updatedAt: now });
        await insertPiiKey(tx, id, now);
        for (const hook of createdHooks) {
          await hook(tx, merchant, now);
        }
        return { merchant: { id, name: merchant.name, liveEnabled: merchant.liveEnabled }, apiKey: key.secret, dashboardUser: { email, password } };
      });
    },

    async getMerchant(merchantId: string): Promise<Merchant> {
      return requireMerchant(database.db, merchantId);
    },

    async listMerchants(): Promise<Merchant[]> {
      return database.db.select().from(merchants).orderBy(merchants.createdAt, merchants.id);
    },

    async countMerchants(): Promise<number> {
      const rows = await database.db.select({ id: merchants.id }).from(merchants).limit(1);
      return rows.length;
    },

    async enableLive(merchantId: string): Promise<Merchant> {
      const [merchant] = await database.db.update(merchants).set({ liveEnabled: true, updatedAt: clock.now() }).where(eq(merchants.id, merchantId)).returning();
      invalidateAuthCache();
      if (!merchant) {
        throw notFound('merchant', merchantId);
      }
      return merchant;
    },

    /**
     * `rateLimitPerSecond` / `rateLimitBurst`: the merchant-wide limit (all its keys together); null
     * returns to the configured default. The burst must hold at least a second's worth.
     */
    async updateSettings(merchantId: string, settings: MerchantSettings): Promise<Merchant> {
      const merchant = await database.transaction(async (tx) => {
        const [current] = await tx.select().from(merchants).where(eq(merchants.id, merchantId)).for('update');
        if (!current) {
          throw notFound('merchant', merchantId);
        }
        const changes: Partial<Merchant> = { updatedAt: clock.now() };
        if (settings.fraudReportWebhooksEnabled !== undefined) {
          changes.fraudReportWebhooksEnabled = settings.fraudReportWebhooksEnabled;
        }
        if (settings.rateLimitPerSecond !== undefined) {
          changes.rateLimitPerSecond = settings.rateLimitPerSecond;
        }
        if (settings.rateLimitBurst !== undefined) {
          changes.rateLimitBurst = settings.rateLimitBurst;
        }
        const rate = changes.rateLimitPerSecond !== undefined ? changes.rateLimitPerSecond : current.rateLimitPerSecond;
        const burst = changes.rateLimitBurst !== undefined ? changes.rateLimitBurst : current.rateLimitBurst;
        if ((rate === null) !== (burst === null)) {
          throw wrongParameter(settings.rateLimitBurst === undefined ? 'rateLimitBurst' : 'rateLimitPerSecond', 'rateLimitPerSecond and rateLimitBurst are set (or reset with null) together');
        }
        if (rate !== null && burst !== null && burst < rate) {
          throw wrongParameter('rateLimitBurst', `must be at least rateLimitPerSecond (${rate})`);
        }
        const [updated] = await tx.update(merchants).set(changes).where(eq(merchants.id, merchantId)).returning();
        return updated as Merchant;
      });
      invalidateAuthCache();
      return merchant;
    },

    async createApiKey(merchantId: string, name: string): Promise<{ id: string; apiKey: string; name: string; createdAt: Date }> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        await requireMerchant(tx, merchantId);
        const key = await insertApiKey(tx, merchantId, name, now);
        return { id: key.id, apiKey: key.secret, name, createdAt: now };
      });
    },

    async listApiKeys(merchantId: string) {
      await requireMerchant(database.db, merchantId);
      return database.db
        .select({ id: apiKeys.id, name: apiKeys.name, last4: apiKeys.last4, createdAt: apiKeys.createdAt, lastUsedAt: apiKeys.lastUsedAt, revokedAt: apiKeys.revokedAt })
        .from(apiKeys)
        .where(eq(apiKeys.merchantId, merchantId))
        .orderBy(apiKeys.createdAt, apiKeys.id);
    },

    async revokeApiKey(merchantId: string, keyId: string): Promise<void> {
      const updated = await database.db
        .update(apiKeys)
        .set({ revokedAt: clock.now() })
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId), isNull(apiKeys.revokedAt)))
        .returning({ id: apiKeys.id });
      invalidateAuthCache();
      if (updated.length === 0) {
        const [existing] = await database.db.select({ id: apiKeys.id }).from(apiKeys).where(and(eq(apiKeys.id, keyId), eq(apiKeys.merchantId, merchantId)));
        if (!existing) {
          throw notFound('API key', keyId);
        }
      }
    },

    /**
     * Resolves `sk_<lookup>_<secret>`: one primary-key read (reused for `authCacheMs`, see above),
     * then a constant-time comparison of the secret's hash on every call. Unknown, malformed and
     * revoked keys all answer null.
     */
    async authenticate(rawKey: string): Promise<AuthenticatedKey | null> {
      const match = apiKeyPattern.exec(rawKey);
      if (!match) {
        return null;
      }
      const [, lookup, secret] = match as unknown as [string, string, string];
      const keyId = `key_${lookup}`;
      const row = await loadKeyRow(keyId);
      const expected = Buffer.from(row?.key.secretHash ?? '0'.repeat(64), 'hex');
      const actual = Buffer.from(sha256Hex(secret), 'hex');
      if (!row || !timingSafeEqual(expected, actual) || row.key.revokedAt !== null) {
        return null;
      }
      const now = clock.now().getTime();
      const lastWrite = lastUsedWrites.get(keyId) ?? row.key.lastUsedAt?.getTime() ?? 0;
      if (now - lastWrite >= lastUsedWriteIntervalMs) {
        lastUsedWrites.set(keyId, now);
        // lastUsedAt is advisory: written at most once a minute per key and process, off the hot path.
        void database.db
          .update(apiKeys)
          .set({ lastUsedAt: new Date(now) })
          .where(eq(apiKeys.id, keyId))
          .catch(() => lastUsedWrites.delete(keyId));
      }
      // A copy: the cached row is shared by every request that hits it.
      return { merchant: { ...row.merchant }, apiKeyId: keyId };
    },

    /** The merchant's active PII key (for JWE responses), cached briefly per process. */
    async activePiiKey(merchantId: string): Promise<PiiKey> {
      const cached = piiKeyCache.get(merchantId);
      if (cached && Date.now() - cached.loadedAt < piiKeyCacheMs) {
        return cached.key;
      }
      const [row] = await database.db
        .select()
        .from(merchantPiiKeys)
        .where(and(eq(merchantPiiKeys.merchantId, merchantId), eq(merchantPiiKeys.active, true)))
        .orderBy(desc(merchantPiiKeys.createdAt))
        .limit(1);
      if (!row) {
        throw new AppError('INTERNAL_ERROR', 'merchant has no PII key');
      }
      const key = { id: row.id, key: Buffer.from(keyRing.decrypt(row.keyCiphertext, piiKeyAssociatedData(merchantId, row.id)), 'base64url') };
      piiKeyCache.set(merchantId, { key, loadedAt: Date.now() });
      return key;
    },

    /** Every PII key of the merchant, newest first, with the key material (dashboard and admin reveal). */
    async revealPiiKeys(merchantId: string): Promise<Array<{ id: string; key: string; active: boolean; createdAt: Date }>> {
      await requireMerchant(database.db, merchantId);
      const rows = await database.db.select().from(merchantPiiKeys).where(eq(merchantPiiKeys.merchantId, merchantId)).orderBy(desc(merchantPiiKeys.createdAt));
      return rows.map((row) => ({
        id: row.id,
        key: keyRing.decrypt(row.keyCiphertext, piiKeyAssociatedData(merchantId, row.id)),
        active: row.active,
        createdAt: row.createdAt,
      }));
    },

    async rotatePiiKey(merchantId: string): Promise<void> {
      await database.transaction(async (tx) => {
        await requireMerchant(tx, merchantId);
        await insertPiiKey(tx, merchantId, clock.now());
      });
      piiKeyCache.delete(merchantId);
    },

    /** Re-encrypts every stored PII key under the key ring's active key (key-ring rotation; `onProgress`: rows examined of all). */
    reencryptPiiKeys(options: ReencryptOptions = {}): Promise<number> {
      return resealTable(database, {
        ...options,
        table: merchantPiiKeys,
        columns: { id: merchantPiiKeys.id, merchantId: merchantPiiKeys.merchantId, keyCiphertext: merchantPiiKeys.keyCiphertext },
        key: 'id',
        reseal: async (row) => {
          const keyCiphertext = resealValue(keyRing, row.keyCiphertext, piiKeyAssociatedData(row.merchantId, row.id));
          if (keyCiphertext === null) {
            return false;
          }
          const updated = await database.db
            .update(merchantPiiKeys)
            .set({ keyCiphertext })
            .where(and(eq(merchantPiiKeys.id, row.id), eq(merchantPiiKeys.keyCiphertext, row.keyCiphertext)))
            .returning({ id: merchantPiiKeys.id });
          return updated.length > 0;
        },
      });
    },
  };
}

export type MerchantsService = ReturnType<typeof createMerchantsService>;
