// `npm run soak`: the long versions of the issue-9 harnesses (CI runs the short ones in
// `npm test`). `npm run soak -- --only ledger-model,overload` runs a subset; `--list` names them.
// Prints a summary table; exits 1 when any harness fails. Run it on a quiet machine: the overload
// thresholds (p99 ≤ 3× unloaded, RSS growth < 10 %) are asserted here, not in CI.
// The crash and PostgreSQL-stop harnesses need PostgreSQL: SOAK_DATABASE_URL, else DATABASE_URL,
// else postgres://postgres@127.0.0.1:5432/test (a server URL; each harness makes its own database).
import { createPostgresTestDatabase } from '../helpers/database.ts';
import { runLedgerModel } from './ledger-model.ts';
import { runOverload } from './overload.ts';
import { runFuzz } from './fuzz.ts';
import { runCrashHarness } from './crash.ts';
import { runPgStopHarness } from './pg-stop.ts';

interface Harness {
  name: string;
  what: string;
  run(log: (line: string) => void): Promise<string>;
}

const postgresUrl = process.env.SOAK_DATABASE_URL ?? process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

function check(condition: boolean, message: string): void {
  if (!condition) {
    throw new Error(message);
  }
}

const harnesses: Harness[] = [
  {
    name: 'ledger-model',
    what: 'fast-check model check, 200,000 steps',
    async run(log) {
      const summary = await runLedgerModel({ steps: 200_000, log });
      check(summary.comparisons.state >= summary.steps + summary.runs, `the state was compared ${summary.comparisons.state} times for ${summary.steps} steps and ${summary.runs} runs`);
      return `${summary.steps} steps, ${summary.runs} runs, seed ${summary.seed}, ${summary.comparisons.state} state + ${summary.comparisons.api} API comparisons with the model (a divergence fails the run), ${summary.invariantChecks} invariant checks, ${Math.round(summary.durationMs / 1000)} s`;
    },
  },
  {
    name: 'overload',
    what: '2× capacity for 60 s: 429/503 envelopes only, admitted p99 ≤ 3× unloaded',
    async run(log) {
      const summary = await runOverload({ measureSeconds: 10, overloadSeconds: 60, log });
      check(summary.violations.length === 0, `bad answers: ${summary.violations.join('; ')}`);
      check(summary.p99Ratio <= 3, `admitted p99 ${summary.overload.p99Ms} ms is ${summary.p99Ratio}× the unloaded ${summary.unloaded.p99Ms} ms (limit 3×)`);
      return `capacity ${summary.capacity.admittedPerSecond} req/s; at ${summary.overload.offeredRate} req/s: ${summary.refused.shed} × 503, ${summary.refused.rateLimited} × 429; p99 ${summary.overload.p99Ms} ms = ${summary.p99Ratio}× unloaded`;
    },
  },
  {
    name: 'overload-memory',
    what: '2× capacity for 10 minutes: server RSS growth < 10 %',
    async run(log) {
      const summary = await runOverload({ measureSeconds: 10, overloadSeconds: 600, log });
      check(summary.violations.length === 0, `bad answers: ${summary.violations.join('; ')}`);
      check(summary.rss.growthPercent < 10, `RSS grew ${summary.rss.growthPercent} % (${summary.rss.firstMb} → ${summary.rss.lastMb} MB; limit 10 %)`);
      return `RSS ${summary.rss.firstMb} → ${summary.rss.lastMb} MB (${summary.rss.growthPercent} %, max ${summary.rss.maxMb} MB); p99 ${summary.p99Ratio}× unloaded`;
    },
  },
  {
    name: 'fuzz',
    what: 'schema-driven fuzzer, 200,000 requests',
    async run(log) {
      const summary = await runFuzz({ runs: 200_000, progressEvery: 20_000, onProgress: (done) => log(`  fuzz: ${done} requests`) });
      check(summary.failureCount === 0, `${summary.failureCount} failures, first: ${JSON.stringify(summary.failures.slice(0, 3))}`);
      return `${summary.requests} requests, seed ${summary.seed}, 0 failures, ${summary.operationsCovered}/${summary.operationsTotal} operations, ${Math.round(summary.durationMs / 1000)} s`;
    },
  },
  {
    name: 'crash',
    what: '200 SIGKILLs over 1,000 operations (PostgreSQL)',
    async run(log) {
      const database = await createPostgresTestDatabase(postgresUrl);
      try {
        const result = await runCrashHarness({ databaseUrl: database.url, operations: 1_000, kills: 200, log, timeoutMs: 60 * 60 * 1000 });
        // The same checks as CI's short version (crash.test.ts), at the long version's size.
        check(result.operations >= 1_000, `only ${result.operations} of 1,000 operations were issued before the deadline`);
        check(result.acknowledged === result.operations, `${result.operations - result.acknowledged} operations not acknowledged`);
        check(result.kills.api + result.kills.worker === 200, `${result.kills.api + result.kills.worker} of 200 kills happened`);
        check(result.kills.api > 0 && result.kills.worker > 0, 'both API and worker processes were killed');
        check(result.events > 0 && result.emails > 0, 'the run produced events and e-mails');
        check(result.killsAroundSubmissions > 0, 'some worker kills hit the worker that asked for a transfer while its answer was held');
        // Events, e-mails, renewals and fundings are checked inside the harness against the acknowledged operations.
        return `${result.operations} operations, ${result.kills.api} API + ${result.kills.worker} worker kills, seed ${result.seed}, ${result.events} events (${result.webhookDuplicates} duplicate requests), ${result.emails} e-mails (${result.emailDuplicates} duplicate copies), ${result.renewals} renewals and ${result.fundings} fundings each posted once, ${result.committedBeforeTheCrash} committed before a crash, ${result.killsAroundSubmissions} kills around a held transfer answer, ${Math.round(result.durationMs / 1000)} s`;
      } finally {
        await database.drop();
      }
    },
  },
  {
    name: 'pg-stop',
    what: 'PostgreSQL stopped abruptly 10 times under load',
    async run(log) {
      const result = await runPgStopHarness({ stops: 10, log });
      check(result.lost === 0 && result.hangs === 0, `lost ${result.lost}, hangs ${result.hangs}`);
      return `${result.stops} stops, ${result.acknowledged} acknowledged writes, 0 lost, ${result.duringOutage.serviceUnavailable}/${result.duringOutage.answers} outage answers were 503, slowest ${result.duringOutage.slowestMs} ms`;
    },
  },
];

function parseOnly(argv: readonly string[]): Set<string> | null {
  const index = argv.findIndex((argument) => argument === '--only' || argument.startsWith('--only='));
  if (index === -1) {
    return null;
  }
  const argument = argv[index] ?? '';
  const value = argument.includes('=') ? argument.slice(argument.indexOf('=') + 1) : (argv[index + 1] ?? '');
  const names = new Set(value.split(',').map((name) => name.trim()).filter((name) => name !== ''));
  const unknown = [...names].filter((name) => !harnesses.some((harness) => harness.name === name));
  if (names.size === 0 || unknown.length > 0) {
    process.stderr.write(`soak: --only takes a comma-separated list of ${harnesses.map((harness) => harness.name).join(', ')}${unknown.length ? ` (unknown: ${unknown.join(', ')})` : ''}\n`);
    process.exit(2);
  }
  return names;
}

async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv.includes('--list') || argv.includes('--help')) {
    for (const harness of harnesses) {
      process.stdout.write(`${harness.name.padEnd(16)} ${harness.what}\n`);
    }
    return;
  }
  const only = parseOnly(argv);
  const selected = harnesses.filter((harness) => !only || only.has(harness.name));
  const results: Array<{ name: string; ok: boolean; seconds: number; detail: string }> = [];
  for (const harness of selected) {
    const log = (line: string) => process.stdout.write(`[${harness.name}] ${line}\n`);
    log(`start: ${harness.what}`);
    const started = Date.now();
    try {
      const detail = await harness.run(log);
      results.push({ name: harness.name, ok: true, seconds: Math.round((Date.now() - started) / 1000), detail });
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      log(`FAILED: ${message}`);
      results.push({ name: harness.name, ok: false, seconds: Math.round((Date.now() - started) / 1000), detail: (error instanceof Error ? error.message : String(error)).split('\n').slice(0, 3).join(' ') });
    }
  }
  process.stdout.write('\n| harness | result | seconds | detail |\n|---|---|---|---|\n');
  for (const result of results) {
    process.stdout.write(`| ${result.name} | ${result.ok ? 'ok' : 'FAILED'} | ${result.seconds} | ${result.detail.replace(/\|/g, '\\|')} |\n`);
  }
  process.exitCode = results.every((result) => result.ok) ? 0 : 1;
}

await main();
