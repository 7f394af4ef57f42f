import { count, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../db/client.ts';
import { idempotencyKeys } from '../db/schema/index.ts';
import type { RetentionPurge } from '../db/retention-purge.ts';

/**
 * Idempotency records past retention: the stored request hash and sealed answer of a key used
 * before the cutoff are deleted. The setting is at least 24 hours (src/config/retention.ts), the
 * replay window docs/API.md §5 promises, so no key still inside it is ever purged.
 */
export const idempotencyRetention: RetentionPurge = {
  async countDue(executor: Executor, cutoff: Date): Promise<number> {
    const [row] = await executor.select({ due: count() }).from(idempotencyKeys).where(lt(idempotencyKeys.createdAt, cutoff));
    return row?.due ?? 0;
  },

  async purgeBatch(database: Database, cutoff: Date, _now: Date, limit: number): Promise<number> {
    const deleted = await database.db
      .delete(idempotencyKeys)
      .where(
        sql`(${idempotencyKeys.merchantId}, ${idempotencyKeys.livemode}, ${idempotencyKeys.key}) in (
              select merchant_id, livemode, key from idempotency_keys where created_at < ${cutoff.toISOString()}::timestamptz limit ${limit}::integer)`,
      )
      .returning({ key: idempotencyKeys.key });
    return deleted.length;
  },
};
