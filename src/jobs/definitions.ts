import type { Executor } from '../db/client.ts';

/** What a job handler is given and may return, and the registry of queues (the worker runs them). */

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

/** One job of a batch (see `JobDefinition.handleBatch`). */
export interface BatchJob<P = unknown> {
  readonly id: string;
  readonly payload: P;
  /** 1-based attempt of the job itself. */
  readonly attempt: number;
}

export interface BatchContext<P = unknown> {
  readonly now: Date;
  /**
   * One transaction that marks `jobs` done and runs `work` for them: their effects and their
   * completions commit together, as with `JobContext.transaction`. The completion comes first, so
   * `work` receives only the jobs this worker still holds (a job whose lease another worker took
   * over is left out, and logged); their rows stay locked until the commit. Jobs finished already
   * (by an earlier call) are left out too.
   */
  transaction<T>(jobs: readonly BatchJob<P>[], work: (tx: Executor, held: BatchJob<P>[], afterCommit: (callback: () => void) => void) => Promise<T>): Promise<T>;
}

export interface JobDefinition<P = unknown> {
  readonly queue: string;
  /** Attempts before the job is `dead` (default 10); an enqueue may override it per job. */
  readonly maxAttempts?: number;
  /** Delay in ms before attempt `attempt + 1` after a failure; default exponential with jitter. */
  readonly backoff?: (attempt: number) => number;
  /**
   * Jobs of this queue in flight at once per worker, in a lane of their own (claimed in the same
   * round trip as the others, but never waiting behind them nor holding them up). Default: the
   * queue shares the worker's `concurrency` with every other queue that sets none.
   */
  readonly concurrency?: number;
  /**
   * At most this many jobs of the queue are claimed in one round trip (default `concurrency`); with
   * `handleBatch` they are handed over together. Below `concurrency`, the next claim is under way
   * while the jobs of the previous one finish.
   */
  readonly batchSize?: number;
  handle(payload: P, context: JobContext): Promise<JobOutcome>;
  /**
   * Optional: runs several claimed jobs of this queue together (the worker then never calls
   * `handle`), so their reads and writes can be one statement each. Jobs it does not complete
   * through `context.transaction` are completed when it returns; when it throws, those are retried
   * (or dead) like a failed `handle`.
   */
  handleBatch?(jobs: BatchJob<P>[], context: BatchContext<P>): Promise<void>;
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
