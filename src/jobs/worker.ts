import { hostname } from 'node:os';
import type { Logger } from 'pino';
import type { Database } from '../db/client.ts';
import type { Clock } from '../clock.ts';
import { CompletionBatcher } from './completions.ts';
import type { BatchContext, JobContext, JobRegistry } from './definitions.ts';
import { attemptLimit, claimJobLanes, claimJobs, completeJob, completeJobs, defaultBackoff, failJob, jobsChannel, type ClaimedJob } from './queue.ts';
import { randomToken } from '../crypto/ids.ts';
import { and, eq, sql } from 'drizzle-orm';
import { jobs } from '../db/schema/index.ts';

// Re-exported: the worker's public surface stays importable from here.
export { JobRegistry, type BatchContext, type BatchJob, type JobContext, type JobDefinition, type JobOutcome } from './definitions.ts';

class LeaseLostError extends Error {}

export interface WorkerOptions {
  database: Database;
  registry: JobRegistry;
  clock: Clock;
  logger: Logger;
  /** Jobs in flight at once for the queues that set no `concurrency` of their own. */
  concurrency: number;
  pollIntervalMs: number;
  leaseMs?: number;
  onJobFinished?: (queue: string, outcome: 'succeeded' | 'retry' | 'dead' | 'rescheduled', durationMs: number) => void;
}

/** Queues claimed together: the shared default lane, or one queue with its own concurrency. */
interface Lane {
  readonly queues: string[];
  /** Jobs in flight at most. */
  readonly capacity: number;
  /** Jobs claimed per round trip at most. */
  readonly batchSize: number;
  inFlight: number;
}

const yieldToEventLoop = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/**
 * The job worker. Any number of these may run (in-process with the API, or `npm run worker`);
 * SKIP LOCKED claims and leases keep each job to one runner at a time.
 *
 * One loop claims for every lane with room in one statement (`claimJobLanes`), starts the jobs
 * (a batch queue's jobs as one `handleBatch` call), yields to the event loop — on PGlite every
 * query runs on this thread, so a backlog must not starve HTTP — and claims again while anything
 * came back; otherwise it sleeps until a NOTIFY, a finished job or the poll interval.
 */
export class Worker {
  readonly id = `${hostname()}:${process.pid}:${randomToken(6)}`;
  private running = new Set<Promise<void>>();
  private stopped = true;
  private wakeTimer: NodeJS.Timeout | undefined;
  private unlisten: (() => Promise<void>) | undefined;
  private loopPromise: Promise<void> | undefined;
  private wakeUp: (() => void) | undefined;
  /** A wake-up that came while the loop was busy: the loop claims again instead of sleeping. */
  private wakePending = false;
  private readonly leaseMs: number;
  private lanes: Lane[] = [];
  private readonly completions: CompletionBatcher;

  constructor(private readonly options: WorkerOptions) {
    this.leaseMs = options.leaseMs ?? 60_000;
    this.completions = new CompletionBatcher((ids) => completeJobs(options.database.db, ids, this.id, options.clock.now()));
  }

  async start(): Promise<void> {
    if (!this.stopped) {
      return;
    }
    this.stopped = false;
    this.lanes = this.buildLanes();
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
    if (this.wakeUp) {
      this.wakeUp();
    } else {
      this.wakePending = true;
    }
  }

  private buildLanes(): Lane[] {
    const { registry, concurrency } = this.options;
    const shared: string[] = [];
    const lanes: Lane[] = [];
    for (const queue of registry.queues()) {
      const definition = registry.get(queue);
      if (definition?.concurrency === undefined && definition?.handleBatch === undefined) {
        shared.push(queue);
        continue;
      }
      const capacity = Math.max(1, definition.concurrency ?? concurrency);
      lanes.push({ queues: [queue], capacity, batchSize: Math.max(1, Math.min(capacity, definition.batchSize ?? capacity)), inFlight: 0 });
    }
    if (shared.length > 0) {
      lanes.unshift({ queues: shared, capacity: Math.max(1, concurrency), batchSize: Math.max(1, concurrency), inFlight: 0 });
    }
    return lanes;
  }

  private hasRoom(): boolean {
    return this.lanes.some((lane) => lane.inFlight < lane.capacity);
  }

  private async loop(): Promise<void> {
    while (!this.stopped) {
      this.wakePending = false;
      let claimed = 0;
      try {
        claimed = await this.claimAndRun();
      } catch (error) {
        this.options.logger.error({ err: error }, 'job claim failed');
      }
      if (this.stopped) {
        break;
      }
      if ((claimed === 0 || !this.hasRoom()) && !this.wakePending) {
        await new Promise<void>((resolve) => {
          this.wakeUp = resolve;
          this.wakeTimer = setTimeout(resolve, this.options.pollIntervalMs);
        });
        clearTimeout(this.wakeTimer);
        this.wakeUp = undefined;
      } else {
        await yieldToEventLoop();
      }
    }
  }

  private async claimAndRun(): Promise<number> {
    const wanted = this.lanes.map((lane) => Math.min(lane.batchSize, lane.capacity - lane.inFlight));
    if (wanted.every((limit) => limit <= 0)) {
      return 0;
    }
    const claimed = await claimJobLanes(this.options.database.db, {
      now: this.options.clock.now(),
      leaseMs: this.leaseMs,
      workerId: this.id,
      lanes: this.lanes.map((lane, index) => ({ queues: lane.queues, limit: wanted[index] ?? 0 })),
    });
    for (const [lane, jobs] of this.byLane(claimed)) {
      lane.inFlight += jobs.length;
      this.track(this.startJobs(jobs, lane));
    }
    return claimed.length;
  }

  private byLane(jobs: readonly ClaimedJob[]): Map<Lane, ClaimedJob[]> {
    const groups = new Map<Lane, ClaimedJob[]>();
    for (const job of jobs) {
      const lane = this.lanes.find((candidate) => candidate.queues.includes(job.queue));
      if (!lane) {
        continue;
      }
      const group = groups.get(lane) ?? [];
      group.push(job);
      groups.set(lane, group);
    }
    return groups;
  }

  private track(run: Promise<void>): void {
    const tracked = run.finally(() => {
      this.running.delete(tracked);
    });
    this.running.add(tracked);
  }

  /** Starts claimed jobs: a batch queue's as one batch, the others one by one. Frees lane room as each finishes. */
  private startJobs(jobs: ClaimedJob[], lane: Lane | undefined): Promise<void> {
    const release = (count: number) => {
      if (lane) {
        lane.inFlight -= count;
        this.wake();
      }
    };
    const runs: Promise<void>[] = [];
    const batches = new Map<string, ClaimedJob[]>();
    for (const job of jobs) {
      if (this.options.registry.get(job.queue)?.handleBatch) {
        const batch = batches.get(job.queue) ?? [];
        batch.push(job);
        batches.set(job.queue, batch);
      } else {
        runs.push(this.run(job).finally(() => release(1)));
      }
    }
    for (const batch of batches.values()) {
      runs.push(this.runBatch(batch, release));
    }
    return Promise.all(runs).then(() => undefined);
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
      await this.startJobs(claimed, undefined);
    }
    return total;
  }

  /**
   * Runs claimed jobs of one batch queue through `handleBatch`. `release(n)` is called as jobs
   * finish (a batch transaction commits, or the batch ends), so a slow job of the batch holds only
   * its own room in the lane.
   */
  private async runBatch(claimed: ClaimedJob[], release: (count: number) => void): Promise<void> {
    const { database, registry, clock, logger } = this.options;
    const started = Date.now();
    const queue = claimed[0]?.queue ?? '';
    const definition = registry.get(queue);
    const open = new Map(claimed.map((job) => [job.id, job]));
    const finish = (ids: readonly string[], outcome: 'succeeded' | 'retry' | 'dead' | undefined) => {
      let count = 0;
      for (const id of ids) {
        if (open.delete(id)) {
          count += 1;
          if (outcome) {
            this.options.onJobFinished?.(queue, outcome, Date.now() - started);
          }
        }
      }
      if (count > 0) {
        release(count);
      }
    };
    const lost = (ids: readonly string[]) => {
      if (ids.length > 0) {
        logger.warn({ jobIds: ids, queue }, 'job lease lost; another worker owns it now');
      }
      finish(ids, undefined);
    };
    const context: BatchContext = {
      now: clock.now(),
      transaction: async (jobs, work) => {
        const { result, completed, missing } = await database.transaction(async (tx, afterCommit) => {
          const wanted = jobs.filter((job) => open.has(job.id)).map((job) => job.id);
          const done = new Set(await completeJobs(tx, wanted, this.id, clock.now()));
          const held = jobs.filter((job) => done.has(job.id));
          return { result: await work(tx, held, afterCommit), completed: [...done], missing: wanted.filter((id) => !done.has(id)) };
        });
        finish(completed, 'succeeded');
        lost(missing);
        return result;
      },
    };
    try {
      if (!definition?.handleBatch) {
        throw new Error(`no batch handler for queue ${queue}`);
      }
      await definition.handleBatch(
        claimed.map((job) => ({ id: job.id, payload: job.payload, attempt: job.attempts })),
        context,
      );
      const rest = [...open.keys()];
      if (rest.length > 0) {
        const done = new Set(await completeJobs(database.db, rest, this.id, clock.now()));
        finish([...done], 'succeeded');
        lost(rest.filter((id) => !done.has(id)));
      }
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      for (const job of [...open.values()]) {
        const retryAt = new Date(clock.now().getTime() + (definition?.backoff ?? defaultBackoff)(job.attempts));
        const outcome = await failJob(database.db, job, this.id, clock.now(), message, definition ? retryAt : null, attemptLimit(job, definition?.maxAttempts)).catch(() => 'retry' as const);
        const log = outcome === 'dead' ? logger.error.bind(logger) : logger.warn.bind(logger);
        log({ jobId: job.id, queue, attempt: job.attempts, outcome, err: error }, 'job failed');
        finish([job.id], outcome);
      }
    } finally {
      // Whatever is still open (a failJob that threw) gives its room back; its lease runs out.
      finish([...open.keys()], undefined);
    }
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
        await this.completions.complete(job.id);
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
