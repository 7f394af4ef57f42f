/**
 * `npm test`: every `*.test.ts` file under test/, src/ and packages/, through node:test, a few files
 * per process (decision 0007).
 *
 * `node --test` on Node 20 runs each file in its own process, and each process pays the same fixed
 * cost before its first test: loading the server's modules through tsx, an embedded database from
 * the migrated snapshot and the HTTP app's compiled schemas — about 7 CPU-seconds, measured, against
 * 1–3 for the tests of a typical file. Files of one folder (test/http's, test/integration's and
 * test/providers' as one folder each, decision 0066) therefore share a process (up to `groupSize`),
 * each still building its own context in its own `before`: what they share is the loaded modules,
 * the compiled WebAssembly and schemas and an emptied embedded database, never data. A file runs alone when it
 * starts processes or browsers of its own (test/reliability, test/e2e, test/docs, test/cli) or has
 * hooks at its top level (they would apply to its neighbours' tests too); on PostgreSQL, where the
 * browser and doc-example files are reported as skipped, those share one process.
 *
 *   npm test                                   the whole suite
 *   npm test -- test/http/refunds              the files under a folder (or given files)
 *   npm test -- --test-name-pattern=cursor     any other argument goes to `node --test`
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

/** Files a process runs at the most (decision 0066 raised it to 10, decision 0057's last amendment to 20). */
export const groupSize = 20;
const roots = ['test', 'src', 'packages'];
const runsAlone = /^test\/(reliability|e2e|docs|cli)\//;
const topLevelHook = /^(before|after|beforeEach|afterEach)\(/m;
/** A file that the PostgreSQL run reports as skipped (`{ skip: onEmbeddedRunOnly }`, test/helpers/database.ts). */
const embeddedRunOnly = /skip: onEmbeddedRunOnly\b/;
/**
 * The longest files, longest first, from CI's per-file durations (2-CPU machine, both passes side by
 * side): the ledger model (10,000 steps on PostgreSQL), the fuzzer (10,000 requests on PGlite), the
 * webhook and API/worker crash harnesses (PostgreSQL), the dashboard's browser test, the embedded
 * backup, the status watch and the executed doc examples. A file that a pass skips ends at once there.
 */
const longestFirst = [
  'test/reliability/ledger-model.test.ts',
  'test/reliability/fuzz.test.ts',
  'test/e2e/webhooks/crash.test.ts',
  'test/reliability/crash.test.ts',
  'test/e2e/dashboard.e2e.test.ts',
  'test/cli/backup.test.ts',
  'test/e2e/status-watch.e2e.test.ts',
  'test/docs/examples.test.ts',
];

/**
 * V8 flags of every test process (`node --test` passes them on to the file processes it starts):
 * PGlite's WebAssembly stays in V8's baseline code (decision 0071). With V8's defaults a test process
 * spent a seventh to a fifth of its CPU in background threads optimising PostgreSQL's functions,
 * for processes too short-lived to gain from it. The servers the tests start as `npm start` does keep
 * `npm start`'s own setting (decision 0051).
 */
export const testV8Flags = ['--liftoff-only'];

function testFiles(directory: string): string[] {
  if (!fs.existsSync(directory)) {
    return [];
  }
  if (fs.statSync(directory).isFile()) {
    return directory.endsWith('.test.ts') ? [directory] : [];
  }
  return fs.readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const child = path.join(directory, entry.name);
    if (entry.isDirectory()) {
      return entry.name === 'node_modules' || entry.name === '.scratch' ? [] : testFiles(child);
    }
    return entry.name.endsWith('.test.ts') ? [child] : [];
  });
}

/**
 * Files that share a process: test/http's, test/integration's and test/providers' across their
 * module folders, src/ and each package's tests as one folder each, any other folder's own.
 */
function groupKey(file: string): string {
  const parts = file.split(path.sep);
  if (parts[0] === 'src') {
    return 'src';
  }
  if (parts[0] === 'packages' || (parts[0] === 'test' && ['http', 'integration', 'providers'].includes(parts[1] ?? ''))) {
    return parts.slice(0, 2).join('/');
  }
  return path.dirname(file);
}

/**
 * The processes to run, in the order `node --test` starts them. On PostgreSQL (`onPostgres`) the
 * files that run on PGlite only are skipped there: they start no browser or process of their own,
 * so they share one process (each alone would load the server's modules only to report a skip).
 */
export function planProcesses(files: readonly string[], read: (file: string) => string = (file) => fs.readFileSync(file, 'utf8'), onPostgres = false): string[][] {
  const units: string[][] = [];
  const groups = new Map<string, string[]>();
  const skipped: string[] = [];
  for (const file of files) {
    const text = read(file);
    if (topLevelHook.test(text)) {
      units.push([file]);
      continue;
    }
    if (onPostgres && embeddedRunOnly.test(text)) {
      skipped.push(file);
      continue;
    }
    if (runsAlone.test(file.split(path.sep).join('/'))) {
      units.push([file]);
      continue;
    }
    const key = groupKey(file);
    const group = groups.get(key) ?? [];
    if (group.length === groupSize) {
      units.push(group);
      groups.set(key, [file]);
    } else {
      group.push(file);
      groups.set(key, group);
    }
  }
  units.push(...groups.values());
  if (skipped.length > 0) {
    units.push(skipped);
  }
  // The files known to take longest start first, longest first (so the last process to start is a
  // short one and the two slots finish together); the rest in reverse order of their first file
  // (test/reliability, test/e2e and test/docs before the many short folders of test/http and src).
  const rank = (unit: string[]) => {
    const index = longestFirst.indexOf((unit[0] ?? '').split(path.sep).join('/'));
    return index === -1 ? longestFirst.length : index;
  };
  return units.sort((a, b) => rank(a) - rank(b) || ((b[0] ?? '') < (a[0] ?? '') ? -1 : (b[0] ?? '') > (a[0] ?? '') ? 1 : 0));
}

async function main(): Promise<void> {
  // dist/ current before any test starts: the tests that start the server or the CLI as processes
  // run the bundle (`npm start`, `npx paysail`), which would otherwise be rebuilt by the first of them.
  const { ensureBuilt } = (await import(new URL('../scripts/build.mjs', import.meta.url).href)) as { ensureBuilt: () => Promise<void> };
  await ensureBuilt();
  const args = process.argv.slice(2);
  const paths = args.filter((arg) => !arg.startsWith('-') && fs.existsSync(arg));
  const flags = args.filter((arg) => !paths.includes(arg));
  const files = [...new Set((paths.length > 0 ? paths : roots).flatMap((root) => testFiles(path.normalize(root))))].sort();
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-tests-'));
  const entries = planProcesses(files, undefined, Boolean(process.env.DATABASE_URL)).map((unit, index) => {
    const name = unit.length === 1 ? path.basename(unit[0] ?? '', '.test.ts') : `${groupKey(unit[0] ?? '').replaceAll('/', '-')}-${unit.length}-files`;
    const entry = path.join(directory, `${String(index).padStart(3, '0')}-${name}.test.mjs`);
    fs.writeFileSync(entry, unit.map((file) => `import ${JSON.stringify(pathToFileURL(path.resolve(file)).href)};\n`).join(''));
    return entry;
  });
  const child = spawn(process.execPath, ['--import', 'tsx', ...testV8Flags, '--test', '--test-concurrency=2', ...flags, ...entries], { stdio: 'inherit' });
  child.on('exit', (code, signal) => {
    fs.rmSync(directory, { recursive: true, force: true });
    process.exit(code ?? (signal ? 1 : 0));
  });
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  await main();
}
