import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '../db/client.ts';
import { queryRows } from '../db/client.ts';
import { jobs } from '../db/schema/index.ts';
import { newId } from '../crypto/ids.ts';

export const jobsChannel = 'paysail_jobs';

export interface EnqueueOptions {
  /** When to run; default now. */
  runAt?: Date;
  /** Overrides the queue's policy (its JobDefinition.maxAttempts, else 10) for this one job. */
  maxAttempts?: number;
  /** A second enqueue with the same key is a no-op (exactly-once scheduling). */
  dedupeKey?: string;
}

/**
 * Enqueues a job inside the caller's transaction: the job exists if and only if the caller commits.
 * The NOTIFY is delivered on commit and wakes idle workers.
 */
export async function enqueueJob(tx: Executor, now: Date, queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | null> {
  const id = newId('job', now.getTime());
  const inserted = await tx
    .insert(jobs)
    .values({
      id,
      queue,
      payload: payload as object,
      status: 'pending',
      runAt: options.runAt ?? now,
      // 0 = "the queue's policy": the worker applies JobDefinition.maxAttempts (or the default).
      maxAttempts: options.maxAttempts ?? 0,
      dedupeKey: options.dedupeKey ?? null,
      createdAt: now,
      updatedAt: now,
    })
    .onConflictDoNothing()
    .returning({ id: jobs.id });
  if (inserted.length === 0) {
    return null;
  }
  await tx.execute(sql`select pg_notify(${jobsChannel}, ${queue})`);
  return id;
}

export interface ClaimedJob {
  id: string;
  queue: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

/**
 * Claims up to `limit` due jobs with a lease. SKIP LOCKED lets any number of workers claim at once
 * without blocking each other or taking the same job; a running job whose lease expired (its worker
 * died) is due again.
 */
export async function claimJobs(executor: Executor, options: { now: Date; limit: number; leaseMs: number; workerId: string; queues?: readonly string[] }): Promise<ClaimedJob[]> {
  const lockedUntil = new Date(options.now.getTime() + options.leaseMs);
  const queueFilter = options.queues && options.queues.length > 0 ? sql`and queue in (${sql.join(options.queues.map((queue) => sql`${queue}`), sql`, `)})` : sql``;
  return queryRows<ClaimedJob>(
    executor,
    sql`update jobs set status = 'running', attempts = attempts + 1, locked_until = ${lockedUntil}, locked_by = ${options.workerId}, updated_at = ${options.now}
        where id in (
          select id from jobs
          where ((status = 'pending' and run_at <= ${options.now}) or (status = 'running' and locked_until < ${options.now})) ${queueFilter}
          order by run_at
          limit ${options.limit}
          for update skip locked)
        returning id, queue, payload, attempts, max_attempts as "maxAttempts"`,
  );
}

/** Marks a claimed job done, only if this worker still holds its lease. */
export async function completeJob(executor: Executor, jobId: string, workerId: string, now: Date): Promise<boolean> {
  const updated = await executor
    .update(jobs)
    .set({ status: 'succeeded', lockedUntil: null, finishedAt: now, updatedAt: now, lastError: null })
    .where(and(eq(jobs.id, jobId), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')))
    .returning({ id: jobs.id });
  return updated.length === 1;
}

export const defaultMaxAttempts = 10;

/** The attempt limit of a claimed job: its own when enqueued with one, else the queue's policy. */
export function attemptLimit(job: Pick<ClaimedJob, 'maxAttempts'>, queueMaxAttempts: number | undefined): number {
  return job.maxAttempts > 0 ? job.maxAttempts : (queueMaxAttempts ?? defaultMaxAttempts);
}

/** Schedules another attempt, or marks the job dead when attempts are used up (`maxAttempts` is the effective limit). */
export async function failJob(
  executor: Executor,
  job: ClaimedJob,
  workerId: string,
  now: Date,
  error: string,
  retryAt: Date | null,
  maxAttempts: number = attemptLimit(job, undefined),
): Promise<'retry' | 'dead'> {
  const dead = retryAt === null || job.attempts >= maxAttempts;
  await executor
    .update(jobs)
    .set(
      dead
        ? { status: 'dead', lockedUntil: null, finishedAt: now, updatedAt: now, lastError: error.slice(0, 2000) }
        : { status: 'pending', runAt: retryAt, lockedUntil: null, updatedAt: now, lastError: error.slice(0, 2000) },
    )
    .where(and(eq(jobs.id, job.id), eq(jobs.lockedBy, workerId), eq(jobs.status, 'running')));
  return dead ? 'dead' : 'retry';
}

/** Exponential backoff with full jitter: ~2^attempt seconds, capped at one hour. */
export function defaultBackoff(attempt: number): number {
  const base = Math.min(3_600_000, 1000 * 2 ** Math.min(attempt, 20));
  return Math.round(base / 2 + Math.random() * (base / 2));
}
