import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Database, Executor } from '../db/client.ts';
import { attemptLimit, claimJobs, completeJob, defaultBackoff, failJob, jobsChannel, type ClaimedJob } from './queue.ts';
import { randomToken } from '../crypto/ids.ts';
import { sql } from 'drizzle-orm';
import { jobs } from '../db/schema/index.ts';
import { and, eq } from 'drizzle-orm';

export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

export interface JobContext {
  readonly jobId: string;
  readonly attempt: number;
  readonly now: Date;
  /**
   * Runs `work` in one transaction that also marks this job done: the job's effects and its
   * completion commit together, so a crash can never apply them twice.
   */
  transaction<T>(work: (tx: Executor, afterCommit: (callback: () => void) => void) => Promise<T>): Promise<T>;
}

/** What a handler may return: nothing (done), or a time to look again (polling, not a failure). */
export type JobOutcome = void | { rescheduleAt: Date };

export interface JobDefinition<P = unknown> {
  readonly queue: string;
  /** Attempts before the job is `dead` (default 10); an enqueue may override it per job. */
  readonly maxAttempts?: number;
  /** Delay in ms before attempt `attempt + 1` after a failure; default exponential with jitter. */
  readonly backoff?: (attempt: number) => number;
  handle(payload: P, context: JobContext): Promise<JobOutcome>;
}

export class JobRegistry {
  private readonly definitions = new Map<string, JobDefinition>();

  register<P>(definition: JobDefinition<P>): void {
    if (this.definitions.has(definition.queue)) {
      throw new Error(`job queue ${definition.queue} registered twice`);
    }
    this.definitions.set(definition.queue, definition as JobDefinition);
  }

  get(queue: string): JobDefinition | undefined {
    return this.definitions.get(queue);
  }

  queues(): string[] {
    return [...this.definitions.keys()];
  }
}

class LeaseLostError extends Error {}

export interface WorkerOptions {
  database: Database;
  registry: JobRegistry;
  clock: Clock;
  logger: Logger;
  concurrency: number;
  pollIntervalMs: number;
  leaseMs?: number;
  onJobFinished?: (queue: string, outcome: 'succeeded' | 'retry' | 'dead' | 'rescheduled', durationMs: number) => void;
}

/**
 * The job worker. Any number of these may run (in-process with the API, or `npm run worker`);
 * SKIP LOCKED claims and leases keep each job to one runner at a time.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomToken(6)}`;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private wakeTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private loopPromise: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  private readonly leaseMs: number;

  constructor(private readonly options: WorkerOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
  }

  async start(): Promise<void> {
    if (!this.stopped) {
      return;
    }
    this.stopped = false;
    this.unlisten = await this.options.database.listen(jobsChannel, () => this.wake());
    this.loopPromise = this.loop();
  }

  /** Stops claiming, waits for running jobs to finish. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.wake();
    await this.loopPromise;
    await Promise.allSettled([...this.running]);
    await this.unlisten?.();
    this.unlisten = undefined;
  }

  wake(): void {
    this.wakeUp?.();
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      let claimed = 0;
      try {
        claimed = await this.claimAndRun(this.options.concurrency - this.running.size);
      } catch (error) {
        this.options.logger.error({ err: error }, 'job claim failed');
      }
      if (this.stopped) {
        break;
      }
      if (claimed === 0 || this.running.size >= this.options.concurrency) {
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.wakeTimer = setTimeout(resolve, this.options.pollIntervalMs);
        });
        clearTimeout(this.wakeTimer);
        this.wakeUp = undefined;
      }
    }
  }

  private async claimAndRun(capacity: number): Promise<number> {
    if (capacity <= 0) {
      return 0;
    }
    const claimed = await claimJobs(this.options.database.db, {
      now: this.options.clock.now(),
      limit: capacity,
      leaseMs: this.leaseMs,
      workerId: this.id,
      queues: this.options.registry.queues(),
    });
    for (const job of claimed) {
      const run = this.run(job).finally(() => {
        this.running.delete(run);
        this.wake();
      });
      this.running.add(run);
    }
    return claimed.length;
  }

  /**
   * Runs every due job (and those that become due while running) until none is left: tests and
   * the test helpers use this instead of waiting for the loop.
   */
  async drain(options: { maxRounds?: number } = {}): Promise<number> {
    let total = 0;
    for (let round = 0; round < (options.maxRounds ?? 1000); round += 1) {
      const claimed = await claimJobs(this.options.database.db, {
        now: this.options.clock.now(),
        limit: 50,
        leaseMs: this.leaseMs,
        workerId: this.id,
        queues: this.options.registry.queues(),
      });
      if (claimed.length === 0) {
        return total;
      }
      total += claimed.length;
      await Promise.all(claimed.map((job) => this.run(job)));
    }
    return total;
  }

  private async run(job: ClaimedJob): Promise<void> {
    const { database, registry, clock, logger } = this.options;
    const started = Date.now();
    const definition = registry.get(job.queue);
    const now = clock.now();
    let completedInTransaction = false;
    const context: JobContext = {
      jobId: job.id,
      attempt: job.attempts,
      now,
      transaction: async (work) =>
        database.transaction(async (tx, afterCommit) => {
          const result = await work(tx, afterCommit);
          if (!(await completeJob(tx, job.id, this.id, clock.now()))) {
            throw new LeaseLostError(`lease on ${job.id} lost`);
          }
          completedInTransaction = true;
          return result;
        }),
    };
    try {
      if (!definition) {
        throw new Error(`no handler for queue ${job.queue}`);
      }
      const outcome = await definition.handle(job.payload, context);
      if (outcome && 'rescheduleAt' in outcome) {
        // Polling is not failure: give the attempt back.
        await database.db
          .update(jobs)
          .set({ status: 'pending', runAt: outcome.rescheduleAt, lockedUntil: null, attempts: sql`greatest(${jobs.attempts} - 1, 0)`, updatedAt: clock.now() })
          .where(and(eq(jobs.id, job.id), eq(jobs.lockedBy, this.id), eq(jobs.status, 'running')));
        this.options.onJobFinished?.(job.queue, 'rescheduled', Date.now() - started);
        return;
      }
      if (!completedInTransaction) {
        await completeJob(database.db, job.id, this.id, clock.now());
      }
      this.options.onJobFinished?.(job.queue, 'succeeded', Date.now() - started);
    } catch (error) {
      if (error instanceof LeaseLostError) {
        logger.warn({ jobId: job.id, queue: job.queue }, 'job lease lost; another worker owns it now');
        return;
      }
      if (completedInTransaction) {
        // The job's effects and its completion already committed; what failed afterwards cannot undo them.
        logger.error({ jobId: job.id, queue: job.queue, err: error }, 'job failed after its transaction committed');
        this.options.onJobFinished?.(job.queue, 'succeeded', Date.now() - started);
        return;
      }
      const message = error instanceof Error ? error.message : String(error);
      const backoff = definition?.backoff ?? defaultBackoff;
      const retryAt = new Date(clock.now().getTime() + backoff(job.attempts));
      const limit = attemptLimit(job, definition?.maxAttempts);
      const outcome = await failJob(database.db, job, this.id, clock.now(), message, definition ? retryAt : null, limit).catch(() => 'retry' as const);
      const log = outcome === 'dead' ? logger.error.bind(logger) : logger.warn.bind(logger);
      log({ jobId: job.id, queue: job.queue, attempt: job.attempts, outcome, err: error }, 'job failed');
      this.options.onJobFinished?.(job.queue, outcome, Date.now() - started);
    }
  }
}
