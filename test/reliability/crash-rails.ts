import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import { increaseSandboxRailName } from '../../src/modules/payout-pages/rails/increase/index.ts';
import { startIncreaseReplica, type IncreaseReplica, type SignedWebhook } from '../providers/increase/replica.ts';
import { sleep } from './processes.ts';

/**
 * The crash harness's money movements beyond the built-in sandbox rail (crash.ts drives them):
 *
 * - **Bank payouts through Increase**: the Increase replica stands in for Increase's sandbox
 *   (`INCREASE_SANDBOX_*` point the processes at it), so every sandbox bank payout is an ACH
 *   transfer created over HTTP by a worker that may be killed at any moment. `CrashBank` plays the
 *   bank: once our attempt is SUBMITTED it settles the transfer and delivers the signed webhook
 *   through the proxy until an API process acknowledges it (retrying across kills), and now and then
 *   drops the answer to a creation (the package retries it with the same Idempotency-Key).
 * - **Kills around submissions**: `SubmissionGate` lets the killer catch a creation at the replica
 *   — the transfer exists, the worker that asked has not heard back — and SIGKILL that worker
 *   (found by the job it holds, `submittingWorkerPid`).
 * - **End checks**: exactly one transfer per bank payout page at the replica, of the page's amount,
 *   settled for every processed page, none our database does not know; each acknowledged refund
 *   applied exactly once (one refund row of its amount, SUCCEEDED, one ledger posting, the payment's
 *   refunded amount equal to it).
 */

/** Holds one creation's answer while the killer acts (see `around`). */
export class SubmissionGate {
  private armed: { arrived: (idempotencyKey: string) => void; released: Promise<void> } | null = null;
  /** Kills of the worker that asked, made while its creation's answer was held. */
  caught = 0;

  /** The replica's hook: when armed, tells the killer a creation is here and waits until it acted. */
  async reached(idempotencyKey: string): Promise<void> {
    const armed = this.armed;
    if (!armed) {
      return;
    }
    this.armed = null;
    armed.arrived(idempotencyKey);
    await armed.released;
  }

  /**
   * Waits for the next transfer creation and runs `act` with its Idempotency-Key (our payout attempt
   * id) while its answer is held (the transfer exists at the replica, the worker that asked has not
   * heard back); runs `act(undefined)` once `giveUp()` holds (checked every 20 ms) or after
   * `maxWaitMs`. `act` answers whether it killed the worker that asked; those kills are `caught`.
   */
  async around(giveUp: () => boolean, maxWaitMs: number, act: (heldKey: string | undefined) => Promise<boolean>): Promise<boolean> {
    let release = (): void => undefined;
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    let arrived = (_idempotencyKey: string): void => undefined;
    const arrival = new Promise<string>((resolve) => {
      arrived = resolve;
    });
    this.armed = { arrived, released };
    const until = Date.now() + maxWaitMs;
    const patience = (async () => {
      while (!giveUp() && Date.now() < until) {
        await sleep(20);
      }
      return undefined;
    })();
    const heldKey = await Promise.race([arrival, patience]);
    if (heldKey === undefined) {
      this.armed = null;
    }
    let killedAsker = false;
    try {
      killedAsker = await act(heldKey);
    } finally {
      release();
    }
    if (heldKey !== undefined && killedAsker) {
      this.caught += 1;
    }
    return heldKey !== undefined && killedAsker;
  }
}

/**
 * The pid of the worker whose running job submits payout attempt `payoutId` (the one waiting for the
 * held answer): jobs are locked by `hostname:pid:token`.
 */
export async function submittingWorkerPid(database: Database, payoutId: string): Promise<string | undefined> {
  const rows = await queryRows<{ lockedBy: string | null }>(
    database.db,
    sql`select locked_by as "lockedBy" from jobs where status = 'running' and payload->>'payoutId' = ${payoutId} order by updated_at desc limit 1`,
  );
  return rows[0]?.lockedBy?.split(':')[1];
}

export interface CrashBankStats {
  settled: number;
  webhookAttempts: number;
  lostCreateAnswers: number;
}

export interface CrashBank {
  readonly replica: IncreaseReplica;
  /** The settings that point the processes' sandbox bank rail at the replica. */
  readonly env: Record<string, string>;
  readonly stats: CrashBankStats;
  /** Starts settling submitted transfers, delivering webhooks to `baseUrl`. */
  start(baseUrl: string): void;
  /** True when every submitted transfer is settled and its webhook acknowledged. */
  idle(): boolean;
  close(): Promise<void>;
}

export async function startCrashBank(database: Database, merchantId: () => string | undefined, gate: SubmissionGate): Promise<CrashBank> {
  const replica = await startIncreaseReplica({ apiKey: 'crash_increase_sandbox_key', webhookSecret: 'crash-increase-secret', beforeCreateAnswer: (transfer) => gate.reached(String(transfer.idempotency_key ?? '')) });
  const stats: CrashBankStats = { settled: 0, webhookAttempts: 0, lostCreateAnswers: 0 };
  const undelivered: SignedWebhook[] = [];
  const settledTransfers = new Set<string>();
  let stopped = false;
  let loop: Promise<void> = Promise.resolve();
  let nextLoss = 3;
  let submittedWaiting = 0;

  const deliver = async (url: string, webhook: SignedWebhook): Promise<boolean> => {
    stats.webhookAttempts += 1;
    try {
      const response = await fetch(url, { method: 'POST', headers: webhook.headers, body: webhook.body, signal: AbortSignal.timeout(10_000) });
      await response.arrayBuffer();
      assert.ok(response.status === 200 || response.status >= 500, `the sandbox Increase endpoint acknowledges a verified webhook (got ${response.status})`);
      return response.status === 200;
    } catch (error) {
      if (error instanceof assert.AssertionError) {
        throw error;
      }
      return false;
    }
  };

  const tick = async (url: string): Promise<void> => {
    const merchant = merchantId();
    if (merchant === undefined) {
      return;
    }
    const submitted = await queryRows<{ id: string }>(
      database.db,
      sql`select id from payout_attempts where merchant_id = ${merchant} and rail = ${increaseSandboxRailName} and status = 'SUBMITTED'`,
    );
    submittedWaiting = submitted.length;
    for (const { id } of submitted) {
      const transfer = replica.transfers().find((candidate) => candidate.idempotency_key === id);
      if (transfer && !settledTransfers.has(transfer.id)) {
        settledTransfers.add(transfer.id);
        undelivered.push(replica.settle(transfer.id));
        stats.settled += 1;
      }
    }
    while (undelivered.length > 0) {
      const [webhook] = undelivered;
      if (!webhook || !(await deliver(url, webhook))) {
        break; // an API process is down: again on the next round
      }
      undelivered.shift();
    }
    if (replica.transfers().length >= nextLoss) {
      replica.loseCreateAnswers(1);
      stats.lostCreateAnswers += 1;
      nextLoss += 7;
    }
  };

  return {
    replica,
    stats,
    env: {
      INCREASE_SANDBOX_API_KEY: replica.apiKey,
      INCREASE_SANDBOX_ACCOUNT_ID: replica.accountId,
      INCREASE_SANDBOX_WEBHOOK_SECRET: replica.webhookSecret,
      INCREASE_SANDBOX_BASE_URL: replica.baseURL,
    },
    start(baseUrl) {
      const url = `${baseUrl}/providers/increase-sandbox/webhooks`;
      loop = (async () => {
        while (!stopped) {
          await tick(url);
          await sleep(200);
        }
      })();
    },
    idle: () => undelivered.length === 0 && submittedWaiting === 0,
    async close() {
      stopped = true;
      await loop.catch(() => undefined);
      await replica.close();
    },
  };
}

/**
 * Exactly one transfer per bank payout page at the replica, of the page's amount; every processed
 * page's transfer settled; no transfer our database does not know. Returns the counts for the report.
 */
export async function assertOneTransferPerPayout(database: Database, merchantId: string, replica: IncreaseReplica): Promise<{ transfers: number; createRequests: number }> {
  const attempts = await queryRows<{ id: string; pageId: string; amount: number; pageStatus: string }>(
    database.db,
    sql`select a.id, a.payout_page_id as "pageId", p.amount::int as amount, p.status as "pageStatus" from payout_attempts a join payout_pages p on p.id = a.payout_page_id
        where p.merchant_id = ${merchantId} and a.rail = ${increaseSandboxRailName}`,
  );
  const byId = new Map(attempts.map((attempt) => [attempt.id, attempt]));
  const transfers = replica.transfers();
  assert.deepEqual(
    transfers.filter((transfer) => transfer.idempotency_key === null || !byId.has(transfer.idempotency_key)).map((transfer) => transfer.id),
    [],
    'every transfer at the replica is one of our attempts',
  );
  const perPage = new Map<string, string[]>();
  for (const transfer of transfers) {
    const attempt = byId.get(transfer.idempotency_key ?? '');
    if (attempt) {
      perPage.set(attempt.pageId, [...(perPage.get(attempt.pageId) ?? []), transfer.id]);
      assert.equal(transfer.amount, attempt.amount, `transfer ${transfer.id} moves its page's amount`);
    }
  }
  assert.deepEqual(
    [...perPage].filter(([, ids]) => ids.length !== 1),
    [],
    'no duplicate transfers: one per payout page',
  );
  const processed = attempts.filter((attempt) => attempt.pageStatus === 'PROCESSED');
  assert.ok(processed.length > 0, 'some bank payouts went through the Increase replica');
  for (const attempt of processed) {
    const transfer = transfers.find((candidate) => candidate.idempotency_key === attempt.id);
    assert.ok(transfer?.settlement, `processed page ${attempt.pageId} has its settled transfer`);
  }
  return { transfers: transfers.length, createRequests: replica.createRequests };
}

/**
 * Each acknowledged refund (one per refunded page, `amount` each) applied exactly once: one refund
 * row of that amount, SUCCEEDED; one `refund` ledger posting for it; the payment's refunded amount
 * equal to it; no refund the driver did not ask for.
 */
export async function assertRefundsOnce(database: Database, merchantId: string, refunded: ReadonlyMap<string, number>): Promise<number> {
  const rows = await queryRows<{ id: string; pageId: string; amount: number; status: string; postings: number; refundedAmount: number }>(
    database.db,
    sql`select r.id, r.payment_page_id as "pageId", r.amount::int as amount, r.status,
               (select count(*) from ledger_transactions t where t.reference = r.id and t.kind = 'refund')::int as postings,
               (select p.refunded_amount::int from payments p where p.id = r.payment_id) as "refundedAmount"
        from refunds r where r.merchant_id = ${merchantId}`,
  );
  assert.deepEqual(
    rows.filter((row) => !refunded.has(row.pageId)).map((row) => row.id),
    [],
    'no refund without an acknowledged refund operation',
  );
  for (const [pageId, amount] of refunded) {
    const ofPage = rows.filter((row) => row.pageId === pageId);
    assert.equal(ofPage.length, 1, `page ${pageId}: its refund applied exactly once (${JSON.stringify(ofPage)})`);
    const [refund] = ofPage;
    assert.ok(refund);
    assert.deepEqual(
      { amount: refund.amount, status: refund.status, postings: refund.postings, refundedAmount: refund.refundedAmount },
      { amount, status: 'SUCCEEDED', postings: 1, refundedAmount: amount },
      `page ${pageId}: refund ${refund.id} of ${amount}, settled, posted once`,
    );
  }
  return rows.length;
}
