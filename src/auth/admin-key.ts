import { eq } from 'drizzle-orm';
import type { Database } from '../db/client.ts';
import { platformSettings } from '../db/schema/index.ts';
import { constantTimeEqual, sha256Hex } from '../crypto/hashing.ts';
import { randomToken } from '../crypto/ids.ts';

const settingKey = 'admin_api_key_sha256';

export interface AdminKey {
  verify(token: string): boolean;
  /** Set only on the start that generated the key, so it can be printed once. */
  readonly generated: string | undefined;
}

/**
 * The operator's admin token: ADMIN_API_KEY when set; otherwise one generated at first start,
 * stored only as a hash, and printed once.
 */
export async function ensureAdminKey(database: Database, configured: string | undefined, now: Date): Promise<AdminKey> {
  if (configured) {
    return { verify: (token) => constantTimeEqual(token, configured), generated: undefined };
  }
  const candidate = `adm_${randomToken(32)}`;
  const inserted = await database.db
    .insert(platformSettings)
    .values({ key: settingKey, value: sha256Hex(candidate), updatedAt: now })
    .onConflictDoNothing()
    .returning({ key: platformSettings.key });
  const [row] = await database.db.select().from(platformSettings).where(eq(platformSettings.key, settingKey));
  const storedHash = row?.value ?? '';
  return {
    verify: (token) => constantTimeEqual(sha256Hex(token), storedHash),
    generated: inserted.length === 1 ? candidate : undefined,
  };
}
