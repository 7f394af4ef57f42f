import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { generateKeySpec } from '../../src/crypto/keyring.ts';
import { openPostgres, queryRows } from '../../src/db/client.ts';
import { adminApiKey } from '../helpers/context.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { ProcessGroup, sleep, type ServiceProcess } from './processes.ts';
import { assertAcknowledgedEffects } from './acknowledged-effects.ts';
import { ApiClient, assertNoDuplicates, basicAuthorization, createMerchantThrough, findDuplicates, startSmtpSink, unfinishedJobs } from './processes-support.ts';
import { startProxy } from './proxy.ts';
import { assertOneTransferPerPayout, assertRefundsOnce, startCrashBank, SubmissionGate, submittingWorkerPid } from './crash-rails.ts';
import { createOperationMix, seededRandom, type Operation } from './crash-operations.ts';
import { callUntilNotHeld, classifyAnswer, payUntilSettled } from './crash-answers.ts';
import { assertAcknowledgedWrites, assertPayoutPostings, waitUntilSettled, type Outcome } from './crash-checks.ts';

export { callUntilNotHeld, classifyAnswer, type AnswerClass } from './crash-answers.ts';

/**
 * Crash-safety harness: 2 API and 2 worker processes on PostgreSQL behind the round-robin proxy; a
 * driver issues `operations` business operations (customers, payout pages and their confirmation —
 * bank payouts through the Increase replica standing in for Increase's sandbox, wallet payouts
 * through the built-in sandbox rail —, payment pages, their payment and a partial refund,
 * subscriptions and renewals) while a killer SIGKILLs a random process `kills` times, spread over
 * the run, and restarts it; about half the worker kills first wait (a few seconds) for a transfer
 * creation and, if one comes, kill the worker that asked while its answer is held at the replica (the
 * transfer exists, the asker has not heard back; crash-rails.ts); `killsAroundSubmissions` counts
 * them. An operation that got no answer is
 * retried with the same Idempotency-Key. At the end, with every process up and the queue drained:
 * every acknowledged write is present with its effect; the events, e-mails, renewals and fundings
 * the acknowledged operations must have produced (derived from the driver's list, see
 * acknowledged-effects.ts) were each recorded exactly once, every event reached the receiver (copies
 * share the webhook-id) and every e-mail the SMTP server (copies share the Message-ID); no duplicate
 * payout postings, payments, entitlements, deliveries, customers or pages; exactly one transfer per
 * bank payout at the replica; each acknowledged refund applied once; the ledger balances. Any
 * failed check throws.
 *
 * `crash.test.ts` runs the short version in CI; `npm run soak` the long one (200 kills, 1,000 ops).
 */

export interface CrashHarnessOptions {
  /** A migrated, otherwise empty PostgreSQL database (the caller creates and drops it). */
  databaseUrl: string;
  operations: number;
  kills: number;
  /** Operations in flight at once (default 4). */
  concurrency?: number;
  /** Random seed for the operation mix and the kill schedule (default: random; reported). */
  seed?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
  /** Upper bound for the whole run before it is declared stuck (default 15 min). */
  timeoutMs?: number;
}

export interface CrashHarnessResult {
  seed: number;
  operations: number;
  acknowledged: number;
  /** Operations that needed more than one attempt (no answer the first time), by kind. */
  retried: Record<string, number>;
  /** Operations whose retry found the first, unanswered attempt had committed (409 duplicate / state). */
  committedBeforeTheCrash: number;
  /**
   * Waits on a `409 INVALID_STATE` + Retry-After (a page held by a card attempt whose API process
   * died before settling it) before asking again with a new key; see callUntilNotHeld.
   */
  heldWaits: number;
  /** The scheduled kills (`options.kills` in all). */
  kills: { api: number; worker: number };
  /**
   * Whether one more worker kill was made after them, around a bank payout's transfer the harness
   * asked for itself, because no scheduled kill caught a creation (see the killer).
   */
  extraKillAroundSubmission: boolean;
  restarts: number;
  unanswered: Record<string, number>;
  proxy: { forwarded: number; refusedAndRetried: number; failedAfterSend: number; allDown: number };
  events: number;
  webhookDuplicates: number;
  emails: number;
  emailDuplicates: number;
  ledger: { transactions: number; entries: number };
  /** Acknowledged renewals and fundings, each checked to have posted exactly once. */
  renewals: number;
  fundings: number;
  /** Transfers at the Increase replica (one per bank payout) and creation requests it got (replays included). */
  transfers: number;
  transferCreateRequests: number;
  /** Kills of the worker that asked for a transfer creation, made while the replica held its answer. */
  killsAroundSubmissions: number;
  bank: { settled: number; webhookAttempts: number; lostCreateAnswers: number };
  /** Acknowledged refunds, each checked to have applied exactly once. */
  refunds: number;
  durationMs: number;
}

export async function runCrashHarness(options: CrashHarnessOptions): Promise<CrashHarnessResult> {
  const started = Date.now();
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const random = seededRandom(seed);
  const log = options.log ?? (() => undefined);
  const concurrency = options.concurrency ?? 4;
  const deadline = started + (options.timeoutMs ?? 15 * 60_000);
  const cleanups: Array<() => Promise<void>> = [];
  const database = await openPostgres(options.databaseUrl, { max: 2 });
  cleanups.push(() => database.close());
  // The Increase replica as Increase's sandbox: sandbox bank payouts are real HTTP transfers.
  const gate = new SubmissionGate();
  let merchantId: string | undefined;
  const bank = await startCrashBank(database, () => merchantId, gate);
  cleanups.push(() => bank.close());
  const group = new ProcessGroup({
    DATABASE_URL: options.databaseUrl,
    ENCRYPTION_KEYS: generateKeySpec('crash1'),
    ADMIN_API_KEY: adminApiKey,
    LOG_LEVEL: 'error',
    SANDBOX_KYC_DELAY_MS: '200',
    SANDBOX_PAYOUT_DELAY_MS: '200',
    JOB_POLL_INTERVAL_MS: '200',
    WORKER_CONCURRENCY: '4',
    // Short leases so the jobs a killed worker held come back within seconds (at least
    // WEBHOOK_TIMEOUT_MS + 1 s, as the configuration requires).
    WEBHOOK_TIMEOUT_MS: '2000',
    JOB_LEASE_MS: '3000',
    WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
    RATE_LIMIT_PER_SECOND: '100000',
    RATE_LIMIT_BURST: '100000',
    ...bank.env,
  });
  try {
    const receiver = await WebhookReceiver.start();
    cleanups.push(() => receiver.close());
    const smtp = await startSmtpSink();
    cleanups.push(() => smtp.close());
    group.extendEnv({ SMTP_URL: smtp.url });
    const apis = await group.add('api', 2);
    await group.add('worker', 2);
    const proxy = await startProxy(() => apis.map((api) => api.url));
    cleanups.push(() => proxy.close());
    await group.startAll();

    const merchant = await createMerchantThrough(proxy.url, adminApiKey, 'Crash Harness');
    merchantId = merchant.id;
    bank.start(proxy.url);
    const client = new ApiClient(proxy.url, basicAuthorization(merchant.apiKey));
    const endpoint = await client.call('POST', '/v1/webhook_endpoints?livemode=false', { body: { url: receiver.url() }, idempotencyKey: randomUUID(), retryForMs: 90_000 });
    assert.equal(endpoint.status, 200, JSON.stringify(endpoint.body));
    const secret = String((endpoint.body.data as { secret: string }).secret);
    log(`seed ${seed}: ${options.operations} operations, ${options.kills} kills, merchant ${merchant.id}`);

    // --- the driver -------------------------------------------------------------------------
    const followUps: Operation[] = [];
    const outcomes: Outcome[] = [];
    let issued = 0;
    let heldWaits = 0;
    const { newOperation, newBankPayout, followUpOf } = createOperationMix(seed, random);

    /** The id of a created resource whose answer was lost: found by its natural key. */
    const findCreated = async (operation: Operation): Promise<string | undefined> => {
      const reference = operation.reference ?? '';
      const rows =
        operation.kind === 'createCustomer'
          ? await queryRows<{ id: string }>(database.db, sql`select id from customers where merchant_id = ${merchant.id} and reference_id = ${reference}`)
          : operation.kind === 'createPayoutPage'
            ? await queryRows<{ id: string }>(database.db, sql`select id from payout_pages where merchant_id = ${merchant.id} and client_reference_id = ${reference}`)
            : await queryRows<{ id: string }>(database.db, sql`select id from payment_pages where merchant_id = ${merchant.id} and client_reference_id = ${reference}`);
      return rows[0]?.id;
    };

    const perform = async (operation: Operation): Promise<void> => {
      const send = () =>
        callUntilNotHeld(
          (idempotencyKey) =>
            client.call(operation.method, operation.path, {
              ...(operation.body !== undefined ? { body: operation.body } : {}),
              idempotencyKey,
              retryForMs: Math.max(0, deadline - Date.now()),
            }),
          (ms) => {
            heldWaits += 1;
            return sleep(ms);
          },
          deadline,
        );
      // A pay's "an earlier attempt committed" is looked up on its page (crash-answers.ts, payUntilSettled).
      const pageId = String(operation.targetId);
      const answer =
        operation.kind === 'payPaymentPage' || operation.kind === 'paySubscription'
          ? await payUntilSettled(
              send,
              async () => (await queryRows<{ status: string; inProgress: boolean }>(database.db, sql`select status, attempt_payment_id is not null as "inProgress" from payment_pages where id = ${pageId}`))[0],
              sleep,
              deadline,
              (lost, state) => log(`${operation.kind} ${pageId}: ${lost.status} ${String(lost.body.errorCode)} after ${lost.attempts} attempts, the page is ${state.status}: paying again`),
            )
          : await send();
      const committedBefore = classifyAnswer(answer) === 'committedBefore';
      const outcome: Outcome = { operation, answer, acknowledged: answer.status === 200 || committedBefore, committedBefore };
      outcomes.push(outcome);
      if (!outcome.acknowledged) {
        return;
      }
      const data = answer.body.data as { id?: string; subscriptionId?: string } | undefined;
      let id = committedBefore ? operation.targetId : data?.id;
      if (committedBefore && operation.reference !== undefined) {
        id = await findCreated(operation);
        assert.ok(id, `${operation.kind} ${operation.reference}: the committed first attempt is in the database`);
      }
      if (operation.kind === 'paySubscription') {
        // The renewal needs the subscription: from the answer, or (answer lost) from its page.
        id = committedBefore
          ? (await queryRows<{ id: string }>(database.db, sql`select id from subscriptions where page_id = ${String(operation.targetId)}`))[0]?.id
          : data?.subscriptionId;
        assert.ok(id, `the paid subscription page ${String(operation.targetId)} has a subscription (answer after ${answer.attempts} attempts: ${answer.status} ${JSON.stringify(answer.body)})`);
      }
      const next = id !== undefined ? followUpOf(operation, id) : undefined;
      if (next) {
        followUps.push(next);
      }
    };

    // The kills are spread over the operations: the driver waits for the killer as much as the
    // killer waits for the driver (a killed process takes seconds to start again), so every part
    // of the run has kills in it.
    let killsDone = 0;
    let killerDone = false;
    const driver = async () => {
      while (issued < options.operations && Date.now() < deadline) {
        while (!killerDone && killsDone < Math.floor((issued * options.kills) / options.operations) - 1 && Date.now() < deadline) {
          await sleep(20);
        }
        const operation = followUps.length > 0 && random() < 0.7 ? followUps.shift() : newOperation();
        if (!operation) {
          continue;
        }
        issued += 1;
        await perform(operation);
      }
    };

    // --- the killer -------------------------------------------------------------------------
    const kills = { api: 0, worker: 0 };
    const restarts: Array<Promise<void>> = [];
    let restartCount = 0;
    /** Kills the worker that asked for the next transfer creation while its answer is held (else `victim`): the one killed. */
    const killAroundSubmission = async (victim: ServiceProcess, giveUp: () => boolean, maxWaitMs: number): Promise<ServiceProcess> => {
      let target = victim;
      await gate.around(giveUp, maxWaitMs, async (heldKey) => {
        const askerPid = heldKey ? await submittingWorkerPid(database, heldKey) : undefined;
        const asker = group.byRole('worker').find((worker) => worker.ready && askerPid !== undefined && String(worker.pid) === askerPid);
        if (asker) {
          target = asker;
        }
        await target.stop('SIGKILL');
        return asker !== undefined;
      });
      return target;
    };
    const restartAfterKill = (target: ServiceProcess): void => {
      restartCount += 1;
      const restart = target.start();
      // Observed at once (no unhandled rejection), reported after the run.
      restart.catch(() => undefined);
      restarts.push(restart);
    };
    const killer = async () => {
      for (let kill = 0; kill < options.kills && Date.now() < deadline; kill += 1) {
        const threshold = Math.floor(((kill + 1) * options.operations) / (options.kills + 1));
        while (issued < threshold && issued < options.operations && Date.now() < deadline) {
          await sleep(5);
        }
        // A random moment, then a random running process; the last API standing is spared so
        // the run keeps moving (the proxy would only answer 503 meanwhile).
        await sleep(Math.floor(random() * 60));
        let victim: ServiceProcess | undefined;
        for (let wait = 0; !victim && Date.now() < deadline; wait += 1) {
          // Only processes that finished starting: a kill during start-up is a different test
          // (and the restart loop would never let the run progress).
          const readyApis = apis.filter((api) => api.ready);
          const candidates = group.processes.filter((service) => service.ready && (service.role !== 'api' || readyApis.length > 1));
          victim = candidates[Math.floor(random() * candidates.length)];
          if (!victim) {
            await sleep(50);
          }
        }
        if (!victim) {
          break;
        }
        let target = victim;
        kills[target.role === 'api' ? 'api' : 'worker'] += 1;
        if (target.role === 'worker' && random() < 0.5) {
          // Around a rail submission: the next transfer creation to come, its answer held at the
          // replica, and the worker that asked is the one killed. The wait lasts until the driver is
          // two kills ahead (it then waits for the killer) and at least 3 s, at most 15 s.
          const driverBlocksAt = Math.ceil(((kill + 2) * options.operations) / options.kills);
          const waitedEnough = Date.now() + 3_000;
          target = await killAroundSubmission(target, () => (issued >= Math.min(driverBlocksAt, options.operations) && Date.now() >= waitedEnough) || Date.now() > deadline, 15_000);
        } else {
          await target.stop('SIGKILL');
        }
        restartAfterKill(target);
        killsDone += 1;
        log(`kill ${kill + 1}/${options.kills}: ${target.name} after ${issued} operations`);
      }
      killerDone = true;
    };

    await Promise.all([
      ...Array.from({ length: concurrency }, () => driver()),
      killer().finally(() => {
        killerDone = true;
      }),
    ]);
    // The random schedule depends on when transfer creations happen to come; on a slow machine none
    // may come while the killer waits. Then one more worker kill waits for the transfer of a bank
    // payout the harness makes itself, so every run kills a worker whose creation's answer is held.
    const spareWorker = group.byRole('worker').find((worker) => worker.ready);
    let extraKillAroundSubmission = false;
    if (gate.caught === 0 && spareWorker && Date.now() < deadline) {
      const payout = newBankPayout();
      issued += 1;
      const killing = killAroundSubmission(spareWorker, () => Date.now() > deadline, Math.max(0, deadline - Date.now()));
      const queued = followUps.length;
      await perform(payout);
      // Its confirmation (the drivers are done: the follow-up just queued is this page's).
      const confirm = followUps.length > queued ? followUps.pop() : undefined;
      if (confirm) {
        await perform(confirm);
      }
      const target = await killing;
      extraKillAroundSubmission = true;
      restartAfterKill(target);
      log(`extra kill around a submission: ${target.name}`);
    }
    const restarted = await Promise.allSettled(restarts);
    const failedRestarts = restarted.filter((result) => result.status === 'rejected').map((result) => String((result as PromiseRejectedResult).reason));
    assert.deepEqual(failedRestarts, [], 'every killed process started again');
    // Operations whose follow-ups were still queued when the budget ran out are run now, with every process up.
    while (followUps.length > 0) {
      const operation = followUps.shift();
      if (operation) {
        await perform(operation);
      }
    }
    log(`driver done after ${Math.round((Date.now() - started) / 1000)} s; draining`);

    // --- the checks -------------------------------------------------------------------------
    const unexpected = outcomes.filter((outcome) => !outcome.acknowledged).map((outcome) => ({ kind: outcome.operation.kind, status: outcome.answer.status, body: outcome.answer.body, attempts: outcome.answer.attempts }));
    assert.deepEqual(unexpected, [], 'every operation was eventually answered and acknowledged');

    const diagnose = async () => `${JSON.stringify(await unfinishedJobs(database))}\n${group.logs()}`;
    await waitUntilSettled(database, merchant.id, outcomes, { bank, deadline, diagnose });
    // Every acknowledged write is there, with its effect.
    const { acknowledged, refunded } = await assertAcknowledgedWrites(database, merchant.id, outcomes, findCreated);
    assertNoDuplicates(await findDuplicates(database));
    await assertPayoutPostings(database, merchant.id);
    const atBank = await assertOneTransferPerPayout(database, merchant.id, bank.replica);
    const refunds = await assertRefundsOnce(database, merchant.id, refunded);
    const ledger = await assertLedgerInvariants(database);
    // The events, e-mails, renewals and fundings the acknowledged operations must have produced.
    const effects = await assertAcknowledgedEffects(database, { merchantId: merchant.id, operations: acknowledged, receiver, secret, mails: smtp.received });

    const retried: Record<string, number> = {};
    for (const outcome of outcomes.filter((candidate) => candidate.answer.attempts > 1)) {
      retried[outcome.operation.kind] = (retried[outcome.operation.kind] ?? 0) + 1;
    }
    const exits = await group.stopAll('SIGTERM');
    assert.ok(
      exits.every((exit) => exit.code === 0),
      `every process shut down cleanly at the end: ${JSON.stringify(exits)}`,
    );
    return {
      seed,
      operations: outcomes.length,
      acknowledged: outcomes.filter((outcome) => outcome.acknowledged).length,
      retried,
      committedBeforeTheCrash: outcomes.filter((outcome) => outcome.committedBefore).length,
      heldWaits,
      kills,
      extraKillAroundSubmission,
      restarts: restartCount,
      unanswered: Object.fromEntries(client.unanswered),
      proxy: { ...proxy.stats },
      events: effects.events,
      webhookDuplicates: effects.webhookDuplicates,
      emails: effects.emails,
      emailDuplicates: effects.emailDuplicates,
      ledger,
      renewals: effects.renewals,
      fundings: effects.fundings,
      transfers: atBank.transfers,
      transferCreateRequests: atBank.createRequests,
      killsAroundSubmissions: gate.caught,
      bank: { ...bank.stats },
      refunds,
      durationMs: Date.now() - started,
    };
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    throw Object.assign(error instanceof Error ? error : new Error(message), { message: `${message}\n(seed ${seed})\n${group.logs().slice(-6000)}` });
  } finally {
    group.killAllNow();
    for (const cleanup of cleanups.reverse()) {
      await cleanup().catch(() => undefined);
    }
  }
}
