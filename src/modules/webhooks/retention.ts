import { count, lt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { webhookDeliveryAttempts } from '../../db/schema/index.ts';
import type { RetentionPurge } from '../../db/retention-purge.ts';

/**
 * Webhook delivery logs past retention: each attempt made before the cutoff (URL, status code,
 * latency, the first 1 KiB of the answer, the error) is deleted. The delivery itself stays with its
 * status and attempt count (the next attempt's number comes from that count, not from these rows)
 * until its event leaves after 30 days.
 */
export const webhookDeliveryLogRetention: RetentionPurge = {
  async countDue(executor: Executor, cutoff: Date): Promise<number> {
    const [row] = await executor.select({ due: count() }).from(webhookDeliveryAttempts).where(lt(webhookDeliveryAttempts.attemptedAt, cutoff));
    return row?.due ?? 0;
  },

  async purgeBatch(database: Database, cutoff: Date, _now: Date, limit: number): Promise<number> {
    const deleted = await database.db
      .delete(webhookDeliveryAttempts)
      .where(
        sql`(${webhookDeliveryAttempts.deliveryId}, ${webhookDeliveryAttempts.number}) in (
              select delivery_id, number from webhook_delivery_attempts where attempted_at < ${cutoff.toISOString()}::timestamptz limit ${limit}::integer)`,
      )
      .returning({ deliveryId: webhookDeliveryAttempts.deliveryId });
    return deleted.length;
  },
};
