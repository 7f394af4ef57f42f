import { AsyncLocalStorage } from 'node:async_hooks';
import type { Executor } from './client.ts';

/**
 * A statement that must commit together with whatever a piece of work writes: `Database.transaction`
 * runs the guard of the current async context as the last step of every transaction, before COMMIT.
 * If the guard throws, the transaction rolls back.
 *
 * The HTTP layer uses it to mark an Idempotency-Key as used in the same transaction as the request's
 * effects (see http/idempotency.ts and docs/decisions/0004-idempotency-commits-with-the-work.md).
 */
export interface CommitGuard {
  beforeCommit(tx: Executor): Promise<void>;
}

const guards = new AsyncLocalStorage<CommitGuard | undefined>();

/** Runs `continuation` (and everything it starts) with `guard` in force. */
export function runWithCommitGuard(guard: CommitGuard, continuation: () => void): void {
  guards.run(guard, continuation);
}

export function currentCommitGuard(): CommitGuard | undefined {
  return guards.getStore();
}

/**
 * Runs `work` with no commit guard. For a transaction that only *reserves* (a claim that another
 * path settles or undoes, like a card payment's claim before the processor is called): the request's
 * effect is the later settlement, so the key is marked there, and a crash between the two leaves the
 * key free for a retry, which the reservation makes safe to run again.
 */
export function withoutCommitGuard<T>(work: () => Promise<T>): Promise<T> {
  // `run(undefined)`, not `exit`: on Node 20 `exit` disables the storage while `work` runs
  // synchronously, so a function bound to a request's context (`AsyncResource.bind`) and called from
  // there would see no guard either, and commit that request's effects without its key's mark.
  return guards.run(undefined, work);
}
