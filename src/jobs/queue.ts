import { and, eq, sql, type SQL } from 'drizzle-orm';
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
 * The INSERT that enqueues one job, as a single statement ending in `returning queue` (no row when
 * the dedupe key already exists, or when `onlyIf` is false), so a caller can run it inside a larger
 * statement as a CTE (`onlyIf` then names what the job depends on, e.g. `exists (select 1 from row)`).
 * Timestamps and JSON travel as text with explicit casts: the same on `pg` and PGlite.
 */
export function jobInsertStatement(now: Date, queue: string, payload: unknown, options: EnqueueOptions = {}, onlyIf: SQL = sql`true`): SQL {
  const id = newId('job', now.getTime());
  const at = now.toISOString();
  // max_attempts 0 = "the queue's policy": the worker applies JobDefinition.maxAttempts (or the default).
  return sql`insert into jobs (id, queue, payload, status, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
    select ${id}, ${queue}, ${JSON.stringify(payload ?? null)}::jsonb, 'pending', ${(options.runAt ?? now).toISOString()}::timestamptz, 0,
           ${options.maxAttempts ?? 0}::integer, ${options.dedupeKey ?? null}::text, ${at}::timestamptz, ${at}::timestamptz
    where ${onlyIf}
    on conflict do nothing returning id, queue`;
}

/**
 * The INSERT that enqueues one job per row of `source` (a select of `id text, payload jsonb,
 * dedupe_key text, at timestamptz`), for a statement that writes several things at once (the
 * batched refunds of decision 0055). Same columns and `on conflict do nothing` as `jobInsertStatement`.
 */
export function jobRowsInsertStatement(queue: string, source: SQL): SQL {
  return sql`insert into jobs (id, queue, payload, status, run_at, attempts, max_attempts, dedupe_key, created_at, updated_at)
    select s.id, ${queue}::text, s.payload, 'pending', s.at, 0, 0, s.dedupe_key, s.at, s.at from (${source}) s
    on conflict do nothing returning id, queue`;
}

/**
 * True while a job of `queue` is pending to run at or before `runAt` with `payload->>field = value`:
 * the `onlyIf` of a `jobInsertStatement` that shares one pending job among many callers (no dedupe
 * key, so a finished job does not stop the next one).
 */
export function noPendingJob(queue: string, runAt: Date, field: string, value: string): SQL {
  return sql`not exists (select 1 from jobs where queue = ${queue} and status = 'pending' and run_at <= ${runAt.toISOString()}::timestamptz and payload->>${field}::text = ${value})`;
}

/** `select pg_notify(…)` over the rows of a `jobInsertStatement` CTE: wakes idle workers on commit. */
export function notifyInsertedJobs(cteName: string): SQL {
  return sql`select id, pg_notify(${jobsChannel}, queue) from ${sql.identifier(cteName)}`;
}

/**
 * Coalesced wake-ups for a queue that a hot path fills outside a transaction (each statement commits
 * on its own). A NOTIFY inside every such statement would serialise their commits: PostgreSQL holds
 * one database-wide lock from a notifying transaction's pre-commit to its end, WAL flush included.
 * Instead the caller inserts without NOTIFY and calls `request()` once the statement has committed:
 * at most one `pg_notify` per `windowMs` is sent (leading edge, then one trailing), always after the
 * commit that asked for it, so no wake-up is lost; a failed one only leaves the job to the workers'
 * poll (`JOB_POLL_INTERVAL_MS`).
 */
export function createCoalescedWakeup(database: { db: Executor }, queue: string, windowMs = 25): { request(): void } {
  let lastSentAt = 0;
  let pending: NodeJS.Timeout | undefined;
  const send = () => {
    pending = undefined;
    lastSentAt = Date.now();
    queryRows(database.db, sql`select pg_notify(${jobsChannel}, ${queue})`).catch(() => undefined);
  };
  return {
    request() {
      if (pending) {
        return;
      }
      const wait = lastSentAt + windowMs - Date.now();
      if (wait <= 0) {
        send();
      } else {
        pending = setTimeout(send, wait);
        pending.unref();
      }
    },
  };
}

/**
 * Enqueues a job inside the caller's transaction: the job exists if and only if the caller commits.
 * The NOTIFY is delivered on commit and wakes idle workers. Insert and NOTIFY are one statement (one
 * round trip), and a duplicate (same dedupe key) notifies nobody.
 */
export async function enqueueJob(tx: Executor, now: Date, queue: string, payload: unknown, options: EnqueueOptions = {}): Promise<string | null> {
  const [row] = await queryRows<{ id: string }>(tx, sql`with inserted as (${jobInsertStatement(now, queue, payload, options)}) ${notifyInsertedJobs('inserted')}`);
  return row ? row.id : null;
}

export interface ClaimedJob {
  id: string;
  queue: string;
  payload: unknown;
  attempts: number;
  maxAttempts: number;
}

/** The filter on `queue` for a lane: none (every queue), `=` for one queue (an ordered index scan), `= any` for several. */
function queueFilter(queues: readonly string[]): SQL {
  if (queues.length === 0) {
    return sql``;
  }
  return queues.length === 1 ? sql` and queue = ${queues[0]}` : sql` and queue = any(${textArray(queues)}::text[])`;
}

/**
 * Claims up to `limit` due jobs with a lease. SKIP LOCKED lets any number of workers claim at once
 * without blocking each other or taking the same job; a running job whose lease expired (its worker
 * died) is due again.
 */
export async function claimJobs(executor: Executor, options: { now: Date; limit: number; leaseMs: number; workerId: string; queues?: readonly string[] }): Promise<ClaimedJob[]> {
  return claimJobLanes(executor, { ...options, lanes: [{ queues: options.queues ?? [], limit: options.limit }] });
}

/** A set of queues claimed together, up to `limit` jobs (an empty `queues` means every queue). */
export interface ClaimLane {
  queues: readonly string[];
  limit: number;
}

/**
 * Claims due jobs for several lanes (each its own queues and limit) in one statement: one round
 * trip fills every lane that has room, with one lease each. The same SKIP LOCKED rules as
 * `claimJobs`; a job is in at most one lane's result because the lanes' queues do not overlap.
 *
 * Due means: running with an expired lease (its worker died; taken first), or pending and its time
 * has come, oldest `run_at` first. The two are separate index scans (`jobs_running_locked_until`,
 * `jobs_pending_queue_run_at`) read lazily up to the lane's limit, so a claim costs the same with a
 * backlog of a million as with ten: no scan or sort of every due row.
 *
 * The UPDATE finds the locked rows by `ctid` (a Tid Scan), not by joining their ids back through
 * `jobs_pkey`: a row this statement holds FOR UPDATE cannot move meanwhile. A locked version that
 * the statement's snapshot does not see (committed by another transaction after the snapshot) is
 * not updated: that job stays as it is, for the next claim (decision 0068).
 */
export async function claimJobLanes(executor: Executor, options: { now: Date; leaseMs: number; workerId: string; lanes: readonly ClaimLane[] }): Promise<ClaimedJob[]> {
  const lanes = options.lanes.filter((lane) => lane.limit > 0);
  if (lanes.length === 0) {
    return [];
  }
  const lockedUntil = new Date(options.now.getTime() + options.leaseMs);
  // Two CTEs per lane (FOR UPDATE may not sit under a UNION); a CTE is read only as far as the
  // outer LIMIT asks, so pending rows are locked only while the lane still has room.
  const picks = lanes.flatMap((lane, index) => [
    sql`${sql.raw(`expired${index}`)} as (select ctid from jobs where status = 'running' and locked_until < ${options.now}${queueFilter(lane.queues)} order by locked_until limit ${lane.limit} for update skip locked)`,
    sql`${sql.raw(`pending${index}`)} as (select ctid from jobs where status = 'pending' and run_at <= ${options.now}${queueFilter(lane.queues)} order by run_at limit ${lane.limit} for update skip locked)`,
  ]);
  const union = sql.join(
    lanes.map((lane, index) => sql`(select ctid from (select ctid from ${sql.raw(`expired${index}`)} union all select ctid from ${sql.raw(`pending${index}`)}) as ${sql.raw(`lane${index}`)} limit ${lane.limit})`),
    sql` union all `,
  );
  return queryRows<ClaimedJob>(
    executor,
    sql`with ${sql.join(picks, sql`, `)}
        update jobs set status = 'running', attempts = attempts + 1, locked_until = ${lockedUntil}, locked_by = ${options.workerId}, updated_at = ${options.now}
        where ctid = any(array(${union}))
        returning id, queue, payload, attempts, max_attempts as "maxAttempts"`,
  );
}

/** A PostgreSQL array literal of texts (one parameter, whatever the count). */
export function textArray(values: readonly string[]): string {
  return `{${values.map((value) => `"${value.replace(/["\\]/g, (character) => `\\${character}`)}"`).join(',')}}`;
}

/** Marks a claimed job done, only if this worker still holds its lease. */
export async function completeJob(executor: Executor, jobId: string, workerId: string, now: Date): Promise<boolean> {
  return (await completeJobs(executor, [jobId], workerId, now)).length === 1;
}

/**
 * Marks several claimed jobs done in one statement, each only if this worker still holds its lease;
 * answers the ids it completed (the others belong to another worker now, or were done already).
 */
export async function completeJobs(executor: Executor, jobIds: readonly string[], workerId: string, now: Date): Promise<string[]> {
  if (jobIds.length === 0) {
    return [];
  }
  const at = now.toISOString();
  const rows = await queryRows<{ id: string }>(
    executor,
    sql`update jobs set status = 'succeeded', locked_until = null, finished_at = ${at}::timestamptz, updated_at = ${at}::timestamptz, last_error = null
        where id = any(${textArray(jobIds)}::text[]) and locked_by = ${workerId} and status = 'running'
        returning id`,
  );
  return rows.map((row) => row.id);
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
