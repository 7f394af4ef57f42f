// Issue 19: how long `npm start` takes to be healthy (GET /readyz answers 200) on an empty data
// directory (first start) and on the same directory again (restart), beside what no server can beat
// in the same run: `node -e 0` (Node itself) and a bare PGlite open of a migrated data directory.
// Targets: first start ≤ 2 s, restart ≤ 1 s (on an idle machine; the load average is printed).
//
//   npx tsx bench/start.ts                 (BENCH_RUNS=5 by default; the median and the fastest run)
//   BENCH_RUNS=3 BENCH_TSX=1 npx tsx bench/start.ts     adds the server through tsx (`npm run dev`'s way)
//
// Standalone (not in bench/run.ts: it measures processes, not requests). dist/ is built first when
// src/ changed since the last build, so the build is never part of a measurement. Every run gets its
// own empty DATA_DIR (kept until the bench ends, see below) and port; the server is stopped with
// SIGTERM after each run.
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { defaultPgliteSharedBuffersMb } from '../src/config/index.ts';

const root = path.resolve(import.meta.dirname, '..');
const runs = Number(process.env.BENCH_RUNS ?? 5);
const withTsx = process.env.BENCH_TSX === '1';

interface Command {
  file: string;
  args: string[];
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') {
    throw new Error('no port');
  }
  return address.port;
}

/** Milliseconds from spawn to exit (status 0 required). */
async function timeToExit(command: Command): Promise<number> {
  const started = performance.now();
  const child = spawn(command.file, command.args, { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
  if (code !== 0) {
    throw new Error(`${command.file} ${command.args.join(' ')} exited with ${code}`);
  }
  return performance.now() - started;
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); null elsewhere. */
function cpuSeconds(pid: number): number | null {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return null;
  }
}

interface Timing {
  ms: number;
  /** The spawned process's CPU seconds until healthy (for `npm start`, npm's own: the server is its child). */
  cpu: number | null;
}

/** Resolves once no process of the group `pgid` is left (polls: kill(-pgid, 0) fails with ESRCH). */
async function groupGone(pgid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(-pgid, 0);
    } catch {
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Milliseconds from spawn to the first 200 from /readyz; then SIGTERM and wait for the exit. */
async function timeToHealthy(command: Command, dataDir: string): Promise<Timing> {
  const port = await freePort();
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' };
  const started = performance.now();
  const child = spawn(command.file, command.args, { cwd: root, env, stdio: ['ignore', 'pipe', 'inherit'], detached: true });
  child.stdout?.resume();
  let exited = false;
  const exit = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  void exit.then(() => (exited = true));
  try {
    for (;;) {
      if (exited) {
        throw new Error(`${command.args.join(' ')} exited before it was healthy`);
      }
      const healthy = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status === 200,
        () => false,
      );
      if (healthy) {
        const ms = performance.now() - started;
        return { ms, cpu: child.pid === undefined ? null : cpuSeconds(child.pid) };
      }
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  } finally {
    // The process group: `npm start` runs the server as a child of npm.
    if (!exited && child.pid !== undefined) {
      process.kill(-child.pid, 'SIGTERM');
    }
    await exit;
    // npm may exit before the server it runs: wait until the whole group is gone (the data
    // directory's lock is released only then, and the restart would find it held).
    if (child.pid !== undefined) {
      await groupGone(child.pid);
    }
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] ?? Number.NaN) : ((sorted[middle - 1] ?? 0) + (sorted[middle] ?? 0)) / 2;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const cpuOf = (values: number[] | undefined) => (values ? `; CPU ${seconds(median(values))}` : '');
const load = () =>
  os
    .loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

interface Row {
  what: string;
  first: number[];
  restart: number[];
  firstCpu?: number[];
  restartCpu?: number[];
  firstTarget?: number;
  restartTarget?: number;
}

async function serverRow(what: string, command: Command, targets: { first?: number; restart?: number } = {}): Promise<Row> {
  const row: Row = { what, first: [], restart: [], ...(targets.first ? { firstTarget: targets.first } : {}), ...(targets.restart ? { restartTarget: targets.restart } : {}) };
  const firstCpu: number[] = [];
  const restartCpu: number[] = [];
  const measureCpu = command.file === process.execPath;
  for (let run = 0; run < runs; run += 1) {
    const dataDir = fs.mkdtempSync(path.join(scratch, 'run-'));
    const first = await timeToHealthy(command, dataDir);
    const restart = await timeToHealthy(command, dataDir);
    row.first.push(first.ms);
    row.restart.push(restart.ms);
    if (measureCpu && first.cpu !== null && restart.cpu !== null) {
      firstCpu.push(first.cpu * 1000);
      restartCpu.push(restart.cpu * 1000);
    }
  }
  return firstCpu.length === runs ? { ...row, firstCpu, restartCpu } : row;
}

// The V8 flag scripts/start.mjs sets for PGlite (decision 0051) and the server's shared_buffers
// (decision 0067): the bare open gets them too, so it stays the floor the server's start is compared with.
const startFlags = ['--wasm-tiering-budget=180000000'];

const bareOpen = `
const { PGlite } = await import('@electric-sql/pglite');
const db = await PGlite.create({ dataDir: process.argv[1], startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=${defaultPgliteSharedBuffersMb}MB'] });
await db.query('select 1');
await db.close();
`;

function verdictOf(values: number[], target: number | undefined): string {
  if (target === undefined) {
    return '';
  }
  return median(values) <= target ? ` (≤ ${seconds(target)}: met)` : ` (≤ ${seconds(target)}: NOT met)`;
}

const { isBuildCurrent } = (await import(path.join(root, 'scripts/build.mjs'))) as { isBuildCurrent: () => boolean };
if (!isBuildCurrent()) {
  console.log('bench/start: building dist/ first (npm run build) …');
  const built = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) {
    process.exit(1);
  }
}

// Every run's data directory stays until the bench exits: a first start creates about 1,250 files,
// and on ext4 without a journal (this machine's disk) a file created within a minute or more of
// deleting many others in the same block group is slowed by the search past each deleted inode
// (`recently_deleted` in the kernel). Deleting one run's directory before the next run's first start
// made that start 0.9–1.2 s slower (1.6 CPU-s of kernel time, docs/BENCHMARKS.md); a first start
// on a newcomer's machine follows no such deletion.
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-bench-start-'));
process.on('exit', () => fs.rmSync(scratch, { recursive: true, force: true }));

const loadBefore = load();
console.log(`bench/start: ${runs} runs per row; Node ${process.version}, ${os.availableParallelism()} CPUs, load average ${loadBefore}`);

const rows: Row[] = [];
const node = { first: [] as number[], restart: [] as number[] };
const bare = { first: [] as number[], restart: [] as number[] };
const migrated = fs.mkdtempSync(path.join(scratch, 'migrated-'));
// A migrated data directory for the bare opens: made by one server start (then stopped).
await timeToHealthy({ file: process.execPath, args: ['scripts/start.mjs'] }, migrated);
for (let run = 0; run < runs; run += 1) {
  node.first.push(await timeToExit({ file: process.execPath, args: ['-e', '0'] }));
  bare.first.push(await timeToExit({ file: process.execPath, args: [...startFlags, '--input-type=module', '-e', bareOpen, path.join(migrated, 'pglite')] }));
}
rows.push({ what: '`node -e 0`', first: node.first, restart: node.first });
rows.push({ what: 'bare PGlite open (import, open a migrated data directory, `select 1`, close)', first: bare.first, restart: bare.first });
rows.push(await serverRow('`npm start` (the bundle: node scripts/start.mjs → dist/server/main.js)', { file: 'npm', args: ['start', '--silent'] }, { first: 2000, restart: 1000 }));
rows.push(await serverRow('`node scripts/start.mjs` (the same without npm)', { file: process.execPath, args: ['scripts/start.mjs'] }));
if (withTsx) {
  rows.push(await serverRow('`node --import tsx src/main.ts` (the same code through tsx, as `npm run dev`)', { file: process.execPath, args: ['--import', 'tsx', 'src/main.ts'] }));
}

console.log('\n| | first start (empty DATA_DIR): median / fastest wall time; median CPU | restart (same DATA_DIR): the same |');
console.log('|---|---|---|');
for (const row of rows) {
  console.log(
    `| ${row.what} | ${seconds(median(row.first))} / ${seconds(Math.min(...row.first))}${cpuOf(row.firstCpu)}${verdictOf(row.first, row.firstTarget)} | ${seconds(median(row.restart))} / ${seconds(Math.min(...row.restart))}${cpuOf(row.restartCpu)}${verdictOf(row.restart, row.restartTarget)} |`,
  );
}
console.log(`\nload average before ${loadBefore}, after ${load()}; node -e 0 and the bare open have no first/restart difference (one figure twice).`);
