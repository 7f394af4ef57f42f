// `npm run bench`: runs every bench listed below, one after the other, and prints one table each.
//
//   npm run bench                  every bench
//   npm run bench -- customers     only the named ones
//   BENCH_DURATION=8 BENCH_CONNECTIONS=20 BENCH_WARMUP=1 npm run bench
//
// Exit code 1 when a listed bench is missing or fails, or (BENCH_STRICT=1) misses a target.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { formatReport, stopLoadGenerator, verdict, type BenchModule, type BenchOptions } from './harness.ts';
import { intSetting } from './settings.ts';

/** The benches, in order. Adding one is one line: the file must export `run(options)` (see harness.ts). */
const benches = [
  'customers.ts',
  'payment-pages.ts',
  'webhooks.ts',
  'payout-pages.ts',
  'refunds.ts',
  'jobs.ts',
  'webhooks-tenants.ts',
  'webhooks-attack.ts',
];

const options: BenchOptions = {
  durationSeconds: intSetting('BENCH_DURATION', 6, 1, 120),
  warmupSeconds: intSetting('BENCH_WARMUP', 1, 0, 60),
  connections: intSetting('BENCH_CONNECTIONS', 10, 1, 200),
};
const strict = process.env.BENCH_STRICT === '1';
const only = process.argv.slice(2).map((name) => name.replace(/\.ts$/, ''));
const directory = path.dirname(fileURLToPath(import.meta.url));

for (const name of only) {
  if (!benches.some((file) => file.replace(/\.ts$/, '') === name)) {
    console.log(`bench: "${name}" is not listed in bench/run.ts (listed: ${benches.join(', ')})`);
    process.exitCode = 1;
  }
}

const load = () => os.loadavg().map((value) => value.toFixed(2)).join(' ');
console.log(
  `bench: ${options.durationSeconds} s measured per side and scenario (after ${options.warmupSeconds} s warm-up), ${options.connections} connections; ` +
    `Node ${process.version}, ${os.availableParallelism()} CPUs, load average ${load()}`,
);
const started = Date.now();
for (const file of benches) {
  const name = file.replace(/\.ts$/, '');
  if (only.length > 0 && !only.includes(name)) {
    console.log(`\nbench/${file}: not selected`);
    continue;
  }
  if (!fs.existsSync(path.join(directory, file))) {
    console.log(`\nbench/${file}: MISSING — listed in bench/run.ts but the file does not exist; not run`);
    process.exitCode = 1;
    continue;
  }
  const benchStarted = Date.now();
  try {
    const module = (await import(`./${file}`)) as Partial<BenchModule>;
    if (typeof module.run !== 'function') {
      throw new Error('does not export run(options)');
    }
    const report = await module.run(options);
    console.log(`\n${formatReport(report)}`);
    console.log(`  (bench/${file} took ${((Date.now() - benchStarted) / 1000).toFixed(1)} s)`);
    const verdicts = report.rows.map(verdict);
    if (report.rows.some((row) => row.failed) || verdicts.some((row) => row.problems.length > 0)) {
      process.exitCode = 1;
    }
    if (strict && verdicts.some((row) => row.met === false)) {
      process.exitCode = 1;
    }
  } catch (error) {
    console.log(`\nbench/${file}: FAILED — ${(error as Error).stack ?? String(error)}`);
    process.exitCode = 1;
  }
}
await stopLoadGenerator();
console.log(`\nbench: done in ${((Date.now() - started) / 1000).toFixed(1)} s; load average ${load()}`);
