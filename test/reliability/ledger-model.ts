import assert from 'node:assert/strict';
import fc from 'fast-check';
import { maxPayoutAmount } from '../../src/modules/payout-pages/schemas.ts';
import { createTestContext, type TestContext } from '../helpers/context.ts';
import { assertLedgerInvariants, createLedgerWatch } from '../helpers/ledger.ts';
import { createTestWorker } from '../helpers/jobs.ts';
import type { JobDefinition } from '../../src/jobs/worker.ts';
import { currencies, openStates, railDelayMs, type Currency, type LedgerModel, type ModelBalance, type Real } from './ledger-model-rules.ts';
import { count, readAccounts, readApiBalances, verify, type LedgerModelStats } from './ledger-model-verify.ts';
import { Advance, PageAction, commandArbitrary, foreignMerchants, type Env } from './ledger-model-commands.ts';

/**
 * Ledger model check (issue 9, item 7): fast-check drives random sequences of payout page
 * commands — fund, create (including overdrafts), confirm with every sandbox destination and KYC
 * outcome, KYC submission, release, cancel, decline, time passing (expiry, KYC decisions, the
 * sandbox rail's outcomes) — against the real platform (HTTP inject on the real database, the real
 * job worker) and against a small in-memory model of the state table and the four ledger
 * accounts. After every command the model's page states and balances must equal the API's
 * answer (`GET /v1/balance`) and the ledger's tables; no non-external balance may go below zero;
 * the SQL invariants of `test/helpers/ledger.ts` are checked every `invariantsEvery` steps and at
 * the end of every run (incrementally: `createLedgerWatch`), and in full once at the end. Each
 * fast-check run uses a fresh merchant, so its model starts from the known sandbox opening balance;
 * a run ends by cancelling what is open and letting the rail settle (still through checked
 * commands), so nothing of it moves during later runs.
 */


export interface LedgerModelOptions {
  /** Commands to execute in total (at least; the last fast-check round may run a few more). */
  steps: number;
  /** fast-check seed of the first round (round n uses seed + n). Default: random, printed. */
  seed?: number;
  /** Longest command sequence of one fast-check run (one merchant). */
  maxCommands?: number;
  /** Run the SQL ledger invariants every this many steps (and at the end of every run). */
  invariantsEvery?: number;
  /** Compare `GET /v1/balance` with the model every this many steps (and at the end of every run); the ledger's tables are compared after every step. */
  apiEvery?: number;
  /**
   * Outcomes (`create → 409 INSUFFICIENT_FUNDS`, `final PROCESSED/PAID`, …) the run must reach: after
   * `steps`, rounds go on until each was reached or `maxSteps` (default 4 × steps) ran, so a short run
   * whose random commands missed a corner extends itself instead of proving little.
   */
  requiredOutcomes?: readonly string[];
  maxSteps?: number;
  /** Use this context (its database and clock) instead of creating one. */
  context?: TestContext;
  log?: (line: string) => void;
}

/**
 * Whether a required outcome was reached: `a|b` is either of two, and an alternative ending in `*`
 * is any outcome that starts with it (`release → 409 from PROCESS*`: released twice, whatever the
 * sub-status); anything else is that exact outcome.
 */
export function outcomeReached(outcomes: Readonly<Record<string, number>>, required: string): boolean {
  return required.split('|').some((alternative) =>
    alternative.endsWith('*')
      ? Object.entries(outcomes).some(([outcome, count]) => count > 0 && outcome.startsWith(alternative.slice(0, -1)))
      : (outcomes[alternative] ?? 0) > 0,
  );
}

export interface LedgerModelSummary extends LedgerModelStats {
  seed: number;
  durationMs: number;
  /** Ledger transactions and entries in the database at the end. */
  ledger: { transactions: number; entries: number };
}

function newModel(now: number, balances: Record<Currency, ModelBalance>, customers: number, run: string): LedgerModel {
  return {
    now,
    balances,
    customers: Array.from({ length: customers }, (_, index) => ({ referenceId: `${run}-customer-${index}`, kyc: 'NOT_STARTED' as const })),
    pages: [],
  };
}

/** Ends a run through checked commands: cancel whatever is open, let the rail settle what is processing. */
async function quiesce(env: Env, model: LedgerModel, real: Real): Promise<void> {
  for (const [index, page] of model.pages.entries()) {
    if (openStates.has(page.state)) {
      await new PageAction(env, 'cancel', { index, targeted: false }).run(model, real);
    }
  }
  for (let round = 0; round < 4 && model.pages.some((page) => page.state === 'PROCESSING/SUBMITTED'); round += 1) {
    await new Advance(env, railDelayMs).run(model, real);
  }
  assert.deepEqual(
    model.pages.filter((page) => openStates.has(page.state) || page.state === 'PROCESSING/SUBMITTED').map((page) => page.id),
    [],
    'every page of the run reached a final state',
  );
  for (const currency of currencies) {
    assert.equal(model.balances[currency].reserved, 0, `${currency} reserved is zero once every page is final`);
    assert.equal(model.balances[currency].inFlight, 0, `${currency} in flight is zero once every page is final`);
  }
  const api = await readApiBalances(real);
  for (const currency of currencies) {
    assert.deepEqual(api[currency], { available: model.balances[currency].available, reserved: 0, inFlight: 0 }, `GET /v1/balance ${currency} at the end of the run`);
  }
  // The e-mail and event jobs the run queued (the model's drains leave them) run now, with the
  // real worker: they move no money, and the states and balances must not have moved either.
  await real.context.drainJobs();
  await verify(model, real, env.stats, { api: false, invariants: false });
  await real.checkLedger();
  env.stats.invariantChecks += 1;
}

/**
 * Runs fast-check model runs until `steps` commands were executed. Throws (fast-check's report:
 * seed, path and the shrunk command sequence) on the first divergence.
 */
export async function runLedgerModel(options: LedgerModelOptions): Promise<LedgerModelSummary> {
  const started = Date.now();
  const seed = options.seed ?? Math.floor(Math.random() * 0x7fffffff);
  const maxCommands = options.maxCommands ?? 60;
  const log = options.log ?? (() => undefined);
  const context = options.context ?? (await createTestContext());
  const stats: LedgerModelStats = { steps: 0, runs: 0, commands: {}, outcomes: {}, invariantChecks: 0, comparisons: { state: 0, api: 0 }, cpuMs: {} };
  const env: Env = { stats, invariantsEvery: options.invariantsEvery ?? 250, apiEvery: options.apiEvery ?? 10 };
  log(`ledger model: seed ${seed}, ${options.steps} steps, up to ${maxCommands} commands per run`);
  try {
    foreignMerchants.set(context, await context.createMerchant({ name: 'Model foreign merchant' }));
    // Runs share a merchant (creating one hashes a password: too slow to do hundreds of times):
    // a passing run ends with every page final, so the next starts from the balances it left.
    // After a failed run (fast-check then shrinks) the next run starts on a fresh merchant.
    let merchant = await context.createMerchant({ name: 'Model merchant' });
    // The model's drains run only the jobs that move pages and money (KYC decisions, expiry, rail
    // submission and settlement), through the platform's own job definitions; the e-mail and
    // webhook jobs a run queues are drained by the full worker when the run ends (quiesce).
    const { services } = context.platform;
    const { worker } = createTestWorker({
      database: context.database,
      clock: context.clock,
      definitions: [services.kyc.verifyJob(), services.payoutPages.expireJob(), services.payoutPages.submitJob(), services.payoutPages.settleJob()] as unknown as JobDefinition<never>[],
    });
    const drainModelJobs = () => worker.drain();
    // Checked hundreds of times while the ledger grows: incrementally (the last check, below, is the full one).
    const ledgerWatch = createLedgerWatch(context.database);
    const checkLedger = () => ledgerWatch.check();
    const commands = fc.commands([commandArbitrary(env)], { maxCommands, size: 'max' });
    let averageLength = maxCommands / 2;
    const required = options.requiredOutcomes ?? [];
    const maxSteps = options.maxSteps ?? options.steps * 4;
    const unreached = () => required.filter((outcome) => !outcomeReached(stats.outcomes, outcome));
    for (let round = 0; stats.steps < options.steps || (unreached().length > 0 && stats.steps < maxSteps); round += 1) {
      if (stats.steps >= options.steps) {
        log(`  not reached yet after ${stats.steps} steps: ${unreached().join(', ')}; one more round`);
      }
      const before = stats.steps;
      const runs = Math.max(1, Math.ceil((options.steps - stats.steps) / Math.max(1, averageLength)));
      let runsThisRound = 0;
      await fc.assert(
        fc.asyncProperty(commands, async (sequence) => {
          stats.runs += 1;
          runsThisRound += 1;
          const run = `model-${process.pid}-${seed}-${stats.runs}`;
          const real: Real = { context, drainModelJobs, checkLedger, merchant, prefix: `${run}-page-` };
          const model = newModel(context.clock.now().getTime(), await readAccounts(real), 3, run);
          let passed = false;
          try {
            await fc.asyncModelRun(() => ({ model, real }), sequence);
            await quiesce(env, model, real);
            passed = true;
          } finally {
            // A fresh merchant after a failed run, and once a balance has grown past the largest
            // payout (funding accumulates across runs): then no create could overdraw it any more.
            if (!passed || currencies.some((currency) => model.balances[currency].available >= maxPayoutAmount)) {
              merchant = await context.createMerchant({ name: 'Model merchant' });
            }
          }
          for (const page of model.pages) {
            count(stats.outcomes, `final ${page.state}`);
          }
        }),
        { seed: seed + round, numRuns: runs },
      );
      averageLength = Math.max(1, (stats.steps - before) / Math.max(1, runsThisRound));
      log(`  round ${round} (seed ${seed + round}): ${runsThisRound} runs, ${stats.steps - before} steps, ${stats.steps}/${options.steps}`);
    }
    const ledger = await assertLedgerInvariants(context.database);
    stats.invariantChecks += 1;
    return { ...stats, seed, durationMs: Date.now() - started, ledger };
  } finally {
    if (!options.context) {
      await context.close();
    }
  }
}
