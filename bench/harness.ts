// Shared pieces of the benches: the module contract run.ts relies on, the load runner (autocannon
// in a child process), the ours-vs-baseline comparison and the report table. Not a bench itself.
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import autocannon, { type RawResult } from 'autocannon';

export interface BenchOptions {
  /** Measured seconds per side and scenario (split into alternating rounds, see `compare`). */
  durationSeconds: number;
  /** Seconds of unmeasured load before each measurement (JIT, pools, caches). */
  warmupSeconds: number;
  /** Concurrent connections of each load. */
  connections: number;
}

export interface Measurement {
  /** Completed requests ÷ measured seconds. */
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  requests: number;
  ok: number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodes: Record<string, number>;
  /**
   * CPU time of the bench process (the servers under test, PGlite included; not the load generator,
   * not a PostgreSQL server) per completed request; null when not measured.
   */
  cpuMsPerRequest: number | null;
}

export interface ComparisonRow {
  scenario: string;
  backend: string;
  ours: Measurement | null;
  baseline: Measurement | null;
  /** Minimum ours/baseline req/s ratio; null when the row has no target. */
  target: number | null;
  /** Why a side is missing (skipped backend, failed run). */
  note?: string;
  /** The row could not be measured because something broke (run.ts then exits 1); a skip is not a failure. */
  failed?: boolean;
  /** A target on ours alone (e.g. "≥ 1,000/s", "p99 ≤ 250 ms"), judged by the bench, instead of a ratio. */
  absolute?: { target: string; met: boolean };
}

export interface BenchReport {
  title: string;
  rows: ComparisonRow[];
  notes: string[];
}

/** What every file listed in bench/run.ts exports. */
export interface BenchModule {
  run(options: BenchOptions): Promise<BenchReport>;
}

/** One load: requests cycle through `paths` (and `variants`); a body gets `uniqueField` (and `uniqueFields`) set to `<uniquePrefix>-<n>`. */
export interface LoadSpec {
  origin: string;
  method: 'GET' | 'POST';
  paths: string[];
  headers: Record<string, string>;
  body?: Record<string, unknown>;
  uniqueField?: string;
  /** More fields set to the same unique value; a dotted path reaches into nested objects (`customer.referenceId`). */
  uniqueFields?: string[];
  uniquePrefix?: string;
  /**
   * Requests cycle through these too (request n takes variant n mod length): headers added to
   * `headers`, fields merged into `body` (e.g. one API key and payment page per variant).
   */
  variants?: Array<{ headers?: Record<string, string>; body?: Record<string, unknown> }>;
  connections: number;
  durationSeconds: number;
}

const workerScript = fileURLToPath(new URL('./load-worker.ts', import.meta.url));

interface LoadReply {
  kind?: string;
  id?: number;
  raw?: RawResult;
  error?: string;
}

let loadWorker: ChildProcess | undefined;
let nextLoadId = 0;
const pendingLoads = new Map<number, { resolve: (raw: RawResult) => void; reject: (error: Error) => void }>();

function failPending(error: Error): void {
  for (const pending of pendingLoads.values()) {
    pending.reject(error);
  }
  pendingLoads.clear();
  loadWorker = undefined;
}

/** The one load-generator process, forked on first use and kept until `stopLoadGenerator`. */
function loadGenerator(): ChildProcess {
  if (loadWorker) {
    return loadWorker;
  }
  const child = fork(workerScript, [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  child.on('message', (reply: LoadReply) => {
    if (reply?.kind !== 'paysail-bench-result' || reply.id === undefined) {
      return;
    }
    const pending = pendingLoads.get(reply.id);
    pendingLoads.delete(reply.id);
    if (reply.raw) {
      pending?.resolve(reply.raw);
    } else {
      pending?.reject(new Error(`load failed: ${reply.error ?? 'no result'}`));
    }
  });
  child.on('error', (error) => failPending(error));
  child.on('exit', (code, signal) => failPending(new Error(`load generator exited (${signal ?? code})`)));
  loadWorker = child;
  return child;
}

/** Runs one autocannon load against 127.0.0.1 in the load-generator thread. */
export function load(spec: LoadSpec): Promise<RawResult> {
  const origin = new URL(spec.origin);
  if (origin.hostname !== '127.0.0.1') {
    return Promise.reject(new Error(`benches only load 127.0.0.1, not ${origin.hostname}`));
  }
  const child = loadGenerator();
  const id = nextLoadId++;
  return new Promise((resolve, reject) => {
    pendingLoads.set(id, { resolve, reject });
    child.send({ kind: 'paysail-bench-load', id, spec });
  });
}

/** Merges loads of one target (latency histograms added, requests over the summed seconds). */
export function summarize(origin: string, raws: RawResult[]): Measurement {
  const result = autocannon.aggregateResult(raws, { url: origin });
  const seconds = raws.reduce((sum, raw) => sum + raw.duration, 0);
  const statusCodes: Record<string, number> = {};
  for (const raw of raws) {
    for (const [status, stats] of Object.entries(raw.statusCodeStats)) {
      statusCodes[status] = (statusCodes[status] ?? 0) + Number(stats.count);
    }
  }
  const requests = raws.reduce((sum, raw) => sum + raw.totalCompletedRequests, 0);
  return {
    requestsPerSecond: seconds > 0 ? requests / seconds : 0,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    requests,
    ok: Object.entries(statusCodes)
      .filter(([status]) => status.startsWith('2'))
      .reduce((sum, [, count]) => sum + count, 0),
    non2xx: raws.reduce((sum, raw) => sum + raw.non2xx, 0),
    errors: raws.reduce((sum, raw) => sum + raw.errors, 0),
    timeouts: raws.reduce((sum, raw) => sum + raw.timeouts, 0),
    statusCodes,
    cpuMsPerRequest: null,
  };
}

export type TargetSpec = Omit<LoadSpec, 'durationSeconds' | 'connections'>;

/**
 * Measures ours against the baseline fairly on a noisy machine: a warm-up of each, then
 * `durationSeconds` each, split into alternating rounds (baseline first, then ours first, …) so
 * a burst of outside load hits both sides alike.
 */
export async function compare(ours: TargetSpec, baseline: TargetSpec, options: BenchOptions): Promise<{ ours: Measurement; baseline: Measurement }> {
  const rounds = options.durationSeconds >= 4 ? 2 : 1;
  const slice = options.durationSeconds / rounds;
  const runs = { ours: [] as RawResult[], baseline: [] as RawResult[] };
  const cpuMicros = { ours: 0, baseline: 0 };
  if (options.warmupSeconds > 0) {
    for (const spec of [baseline, ours]) {
      await load({ ...spec, uniquePrefix: `${spec.uniquePrefix ?? 'bench'}-warmup`, connections: options.connections, durationSeconds: options.warmupSeconds });
    }
  }
  for (let round = 0; round < rounds; round += 1) {
    const order = round % 2 === 0 ? (['baseline', 'ours'] as const) : (['ours', 'baseline'] as const);
    for (const side of order) {
      const spec = side === 'ours' ? ours : baseline;
      const before = process.cpuUsage();
      runs[side].push(await load({ ...spec, uniquePrefix: `${spec.uniquePrefix ?? 'bench'}-r${round}`, connections: options.connections, durationSeconds: slice }));
      const used = process.cpuUsage(before);
      cpuMicros[side] += used.user + used.system;
    }
  }
  const measured = (side: 'ours' | 'baseline', origin: string): Measurement => {
    const measurement = summarize(origin, runs[side]);
    return { ...measurement, cpuMsPerRequest: measurement.requests > 0 ? cpuMicros[side] / 1000 / measurement.requests : null };
  };
  return { ours: measured('ours', ours.origin), baseline: measured('baseline', baseline.origin) };
}

/** Stops the load-generator process (run.ts calls this once every bench is done). */
export async function stopLoadGenerator(): Promise<void> {
  const child = loadWorker;
  loadWorker = undefined;
  if (child && child.exitCode === null && child.signalCode === null) {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.disconnect();
    await exited;
  }
}

/** Problems that make a measurement meaningless (a fast stream of 401s or 429s is not throughput). */
export function measurementProblems(measurement: Measurement): string[] {
  const problems: string[] = [];
  if (measurement.non2xx > 0) {
    const codes = Object.entries(measurement.statusCodes)
      .filter(([status]) => !status.startsWith('2'))
      .map(([status, count]) => `${count}×${status}`)
      .join(', ');
    problems.push(`${measurement.non2xx} non-2xx (${codes})`);
  }
  if (measurement.errors > 0) {
    problems.push(`${measurement.errors} errors (${measurement.timeouts} timeouts)`);
  }
  if (measurement.ok === 0) {
    problems.push('no successful response');
  }
  return problems;
}

function formatNumber(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

function cells(measurement: Measurement | null): [string, string, string] {
  if (!measurement) {
    return ['—', '—', '—'];
  }
  return [formatNumber(measurement.requestsPerSecond), `${formatNumber(measurement.p50Ms)} ms`, `${formatNumber(measurement.p99Ms)} ms`];
}

export interface RowVerdict {
  ratio: number | null;
  met: boolean | null;
  problems: string[];
}

export function verdict(row: ComparisonRow): RowVerdict {
  const problems = [...(row.ours ? measurementProblems(row.ours).map((problem) => `ours: ${problem}`) : []), ...(row.baseline ? measurementProblems(row.baseline).map((problem) => `baseline: ${problem}`) : [])];
  if (row.absolute && row.ours) {
    return { ratio: null, met: problems.length > 0 ? null : row.absolute.met, problems };
  }
  if (!row.ours || !row.baseline || row.baseline.requestsPerSecond === 0) {
    return { ratio: null, met: null, problems };
  }
  const ratio = row.ours.requestsPerSecond / row.baseline.requestsPerSecond;
  return { ratio, met: row.target === null || problems.length > 0 ? null : ratio >= row.target, problems };
}

/** Renders a report as a fixed-width table followed by its notes. */
export function formatReport(report: BenchReport): string {
  const header = ['scenario', 'backend', 'ours req/s', 'ours p50', 'ours p99', 'base req/s', 'base p50', 'base p99', 'ratio', 'target', 'result'];
  const lines: string[][] = [];
  const footnotes: string[] = [];
  const cpu: string[] = [];
  for (const row of report.rows) {
    const { ratio, met, problems } = verdict(row);
    // "skipped" only when nothing was measured; a measured row without a target is "n/a".
    const measured = row.ours !== null || row.baseline !== null;
    const result = row.failed ? 'FAILED' : problems.length > 0 ? 'INVALID' : met === null ? (measured ? 'n/a' : 'skipped') : met ? 'met' : 'MISSED';
    lines.push([
      row.scenario,
      row.backend,
      ...cells(row.ours),
      ...cells(row.baseline),
      ratio === null ? '—' : `${formatNumber(ratio * 100)} %`,
      row.absolute ? row.absolute.target : row.target === null ? '—' : `≥ ${formatNumber(row.target * 100)} %`,
      result,
    ]);
    for (const text of [...(row.note ? [row.note] : []), ...problems]) {
      footnotes.push(`  ${row.scenario} / ${row.backend}: ${text}`);
    }
    const oursCpu = row.ours?.cpuMsPerRequest;
    const baseCpu = row.baseline?.cpuMsPerRequest;
    if (typeof oursCpu === 'number' && typeof baseCpu === 'number') {
      cpu.push(`  ${row.scenario} / ${row.backend}: ours ${formatNumber(oursCpu, 2)} ms, baseline ${formatNumber(baseCpu, 2)} ms (${formatNumber(oursCpu / baseCpu, 1)}×)`);
    }
  }
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => (line[column] ?? '').length)));
  const render = (line: string[]) => line.map((cell, column) => (column < 2 ? cell.padEnd(widths[column] ?? 0) : cell.padStart(widths[column] ?? 0))).join('  ');
  return [
    `== ${report.title} ==`,
    render(header),
    render(widths.map((width) => '-'.repeat(width))),
    ...lines.map(render),
    ...(footnotes.length > 0 ? ['', ...footnotes] : []),
    ...(cpu.length > 0 ? ['', 'CPU time of the bench process (servers, PGlite included; not the load generator or a PostgreSQL server) per request:', ...cpu] : []),
    ...(report.notes.length > 0 ? ['', ...report.notes.map((note) => `  ${note}`)] : []),
  ].join('\n');
}
