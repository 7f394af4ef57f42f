import type { Database, Executor } from './client.ts';

/**
 * One category's part of retention, implemented by the module that owns the rows: how many rows are
 * past `cutoff` now, and one bounded batch of purging them (its own transaction or statement). A
 * batch is idempotent and safe beside a concurrent one: each re-checks its condition as it writes.
 */
export interface RetentionPurge {
  countDue(executor: Executor, cutoff: Date): Promise<number>;
  /** Purges at most `limit` due rows; returns how many it purged (fewer than `limit`: none left). */
  purgeBatch(database: Database, cutoff: Date, now: Date, limit: number): Promise<number>;
}
