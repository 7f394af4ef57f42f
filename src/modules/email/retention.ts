import { and, count, inArray, isNull, lt } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import type { RetentionPurge } from '../../db/retention-purge.ts';

/** E-mails that reached an end (sent, stored in the sandbox inbox, or failed for good); a queued one still needs its content. */
const finishedStatuses = ['sent', 'stored', 'failed'] as const;

function dueCondition(cutoff: Date) {
  return and(isNull(emails.contentPurgedAt), lt(emails.createdAt, cutoff), inArray(emails.status, [...finishedStatuses]));
}

/**
 * E-mail bodies past retention: the sealed recipient, subject, text and html of a finished e-mail
 * created before the cutoff are emptied and `content_purged_at` set. The row stays (template,
 * status, what it was about, when it was sent), the record that the e-mail went out; readers see
 * empty strings (an empty value is not a ciphertext and opens as itself).
 */
export const emailBodyRetention: RetentionPurge = {
  async countDue(executor: Executor, cutoff: Date): Promise<number> {
    const [row] = await executor.select({ due: count() }).from(emails).where(dueCondition(cutoff));
    return row?.due ?? 0;
  },

  async purgeBatch(database: Database, cutoff: Date, now: Date, limit: number): Promise<number> {
    const batch = database.db.select({ id: emails.id }).from(emails).where(dueCondition(cutoff)).limit(limit);
    const purged = await database.db
      .update(emails)
      .set({ toCiphertext: '', subject: '', text: '', html: '', contentPurgedAt: now })
      // The condition again: a row another worker purged meanwhile is left alone.
      .where(and(inArray(emails.id, batch), dueCondition(cutoff)))
      .returning({ id: emails.id });
    return purged.length;
  },
};
