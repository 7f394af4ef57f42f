import { parseArgs } from 'node:util';
import { runFuzz, type FuzzSummary } from './fuzz.ts';

/**
 * `npm run fuzz -- --runs 200000 [--seed N]`: the long fuzz run on demand (PGlite by default,
 * PostgreSQL with DATABASE_URL). Prints progress, the summary and the first failures; exits 1 on
 * any failure. The same seed replays the same requests.
 */

const { values } = parseArgs({ options: { runs: { type: 'string', default: '200000' }, seed: { type: 'string' } } });
const runs = Number(values.runs);
const seed = values.seed === undefined ? Date.now() % 2 ** 31 : Number(values.seed);
if (!Number.isInteger(runs) || runs < 1 || !Number.isInteger(seed)) {
  process.stderr.write('usage: npm run fuzz -- [--runs N] [--seed N]\n');
  process.exit(2);
}

process.stdout.write(`fuzz: ${runs} requests, seed ${seed} (replay with --seed ${seed}), database ${process.env.DATABASE_URL ? 'PostgreSQL' : 'PGlite'}\n`);
const progress = (done: number, summary: FuzzSummary) => {
  process.stdout.write(`  ${done} requests, ${Math.round(summary.durationMs / 1000)} s, ${summary.failureCount} failures\n`);
};
const summary = await runFuzz({ runs, seed, onProgress: progress, progressEvery: Math.max(1000, Math.round(runs / 20)) });
const { failures, ...totals } = summary;
process.stdout.write(`${JSON.stringify(totals, null, 2)}\n`);
for (const failure of failures) {
  process.stdout.write(`FAIL [${failure.category}] ${failure.request} → ${failure.status}: ${failure.problem}\n  ${failure.body}\n`);
}
process.exit(summary.failureCount === 0 ? 0 : 1);
