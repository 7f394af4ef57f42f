import { Writable } from 'node:stream';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import { createLogger } from '../../src/logger.ts';
import { JobRegistry, Worker, type JobDefinition } from '../../src/jobs/worker.ts';
import type { TestClock } from './clock.ts';

export interface JobRow {
  id: string;
  queue: string;
  status: string;
  attempts: number;
  maxAttempts: number;
  runAt: Date;
  lastError: string | null;
  lockedBy: string | null;
  finishedAt: Date | null;
  dedupeKey: string | null;
}

export async function jobRows(database: Database, queue?: string): Promise<JobRow[]> {
  const rows = await queryRows<JobRow & { runAt: Date | string; finishedAt: Date | string | null }>(
    database.db,
    sql`select id, queue, status, attempts, max_attempts as "maxAttempts", run_at as "runAt", last_error as "lastError", locked_by as "lockedBy",
               finished_at as "finishedAt", dedupe_key as "dedupeKey"
        from jobs ${queue === undefined ? sql`` : sql`where queue = ${queue}`} order by created_at, id`,
  );
  // Raw rows: timestamps come back as Date (PGlite) or string (pg); normalise.
  return rows.map((row) => ({ ...row, runAt: new Date(row.runAt), finishedAt: row.finishedAt === null ? null : new Date(row.finishedAt) }));
}

/** A worker over test queues only, with a silent logger whose lines are kept. */
export function createTestWorker(options: { database: Database; clock: TestClock; definitions: JobDefinition<never>[]; concurrency?: number; leaseMs?: number; pollIntervalMs?: number }): { worker: Worker; logs: string[] } {
  const logs: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, callback) {
      logs.push(String(chunk));
      callback();
    },
  });
  const registry = new JobRegistry();
  for (const definition of options.definitions) {
    registry.register(definition as JobDefinition<unknown>);
  }
  const worker = new Worker({
    database: options.database,
    registry,
    clock: options.clock,
    logger: createLogger({ level: 'info', stream }),
    concurrency: options.concurrency ?? 4,
    pollIntervalMs: options.pollIntervalMs ?? 20,
    ...(options.leaseMs !== undefined ? { leaseMs: options.leaseMs } : {}),
  });
  return { worker, logs };
}

/** Polls `check` until it is true (real time; for workers running their own loop). */
export async function waitFor(check: () => Promise<boolean>, options: { timeoutMs?: number; what?: string } = {}): Promise<void> {
  const deadline = Date.now() + (options.timeoutMs ?? 30_000);
  while (!(await check())) {
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${options.what ?? 'a condition'}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
