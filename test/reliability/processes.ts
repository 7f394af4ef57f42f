import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/**
 * Real Paysail processes for the reliability harnesses: what `npm start` runs (`node
 * scripts/start.mjs`: the esbuild bundle in dist/, decision 0044) with its own environment (nothing
 * of the test runner's leaks in), readiness by `/readyz` (API) or the start banner (worker),
 * SIGKILL / SIGTERM, restart with the same settings and port, and the tail of each process's output
 * for failure messages. The bundle, not `--import tsx src/main.ts`: the harnesses start processes
 * dozens of times (every kill is followed by a start), and a start through tsx cost about 2.7
 * CPU-seconds against 0.5 for the bundle.
 */

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

let serverBuild: Promise<void> | undefined;

/**
 * dist/ as `npm start` would run it: built by `npm install`, rebuilt here first when src/ changed
 * since (scripts/start.mjs would otherwise rebuild it in every process it starts, side by side). One
 * builder at a time across test processes: a lock directory in dist/ (a stale one, older than two
 * minutes, is taken over).
 */
export function ensureServerBuild(): Promise<void> {
  serverBuild ??= (async () => {
    const { ensureBuilt } = (await import(pathToFileURL(path.join(repositoryRoot, 'scripts', 'build.mjs')).href)) as { ensureBuilt: (options?: { announce?: boolean }) => Promise<void> };
    await ensureBuilt({ announce: false });
  })();
  return serverBuild;
}

export type Role = 'api' | 'worker' | 'all';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How much of a process's output is kept (the tail), so a long run cannot grow without bound. */
const outputLimit = 64 * 1024;

/** The child gets its own configuration: only these variables of the runner's are passed on. */
const inheritedVariables = ['PATH', 'HOME', 'TMPDIR', 'LANG', 'NODE_OPTIONS'];

export function childEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) {
    if (value !== undefined && inheritedVariables.includes(name)) {
      env[name] = value;
    }
  }
  return { ...env, NODE_ENV: 'test', LOG_LEVEL: 'warn', HOST: '127.0.0.1', ...extra };
}

export async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!address || typeof address !== 'object') {
    throw new Error('no port');
  }
  return address.port;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** One service process (restartable: `start()` again after it exited). */
export class ServiceProcess {
  child: ChildProcess | undefined;
  private output = '';
  /** The beginning of the current start's output (where the banner is). */
  private startOutput = '';
  private exitPromise: Promise<ProcessExit> = Promise.resolve({ code: null, signal: null });
  starts = 0;
  kills = 0;
  /** True from the moment it answered ready until it is stopped or exits. */
  ready = false;
  /** Set by `abandon()`: no further starts (the harness is tearing down). */
  private abandoned = false;

  constructor(
    readonly name: string,
    readonly role: Role,
    private readonly env: Record<string, string>,
    /** The port of an API process (kept across restarts, so a proxy can find it again). */
    readonly port: number | undefined,
  ) {}

  get url(): string {
    if (this.port === undefined) {
      throw new Error(`${this.name} has no HTTP port`);
    }
    return `http://127.0.0.1:${this.port}`;
  }

  get running(): boolean {
    return this.child !== undefined && this.child.exitCode === null && this.child.signalCode === null;
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** The last part of everything the process (all its starts) printed. */
  logs(): string {
    return this.output;
  }

  private append(chunk: Buffer): void {
    const text = chunk.toString('utf8');
    this.output += text;
    if (this.startOutput.length < outputLimit) {
      this.startOutput += text;
    }
    if (this.output.length > outputLimit * 2) {
      this.output = this.output.slice(-outputLimit);
    }
  }

  /** Spawns the process and resolves once it is ready (API: `/readyz` answers 200; worker: its banner). */
  async start(options: { readyTimeoutMs?: number } = {}): Promise<void> {
    if (this.running) {
      throw new Error(`${this.name} is already running`);
    }
    if (this.abandoned) {
      throw new Error(`${this.name} was abandoned`);
    }
    const env = { ...this.env, ...(this.port !== undefined ? { PORT: String(this.port), PUBLIC_URL: this.env.PUBLIC_URL ?? `http://127.0.0.1:${this.port}` } : {}) };
    await ensureServerBuild();
    const child = spawn(process.execPath, ['scripts/start.mjs', `--role=${this.role}`], { cwd: repositoryRoot, env, stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    this.starts += 1;
    this.startOutput = '';
    child.stdout?.on('data', (chunk: Buffer) => this.append(chunk));
    child.stderr?.on('data', (chunk: Buffer) => this.append(chunk));
    this.exitPromise = new Promise<ProcessExit>((resolve) =>
      child.once('exit', (code, signal) => {
        this.ready = false;
        resolve({ code, signal });
      }),
    );
    const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${this.name} exited (${String(child.exitCode ?? child.signalCode)}) before it was ready:\n${this.output.slice(-4000)}`);
      }
      if (await this.isReady()) {
        if (this.child !== child || !this.running) {
          continue;
        }
        this.ready = true;
        return;
      }
      if (Date.now() > deadline) {
        throw new Error(`${this.name} was not ready in time:\n${this.output.slice(-4000)}`);
      }
      await sleep(50);
    }
  }

  private async isReady(): Promise<boolean> {
    if (this.role === 'worker') {
      return this.startOutput.includes('Paysail worker');
    }
    try {
      const response = await fetch(`${this.url}/readyz`, { signal: AbortSignal.timeout(2_000) });
      await response.arrayBuffer();
      return response.status === 200;
    } catch {
      return false;
    }
  }

  /** Sends `signal` and waits for the exit (SIGKILL: no cleanup at all, like a power cut). */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit> {
    if (!this.running || !this.child) {
      return this.exitPromise;
    }
    if (signal === 'SIGKILL') {
      this.kills += 1;
    }
    this.ready = false;
    this.child.kill(signal);
    return this.exitPromise;
  }

  /** SIGKILL now (if running) and refuse further starts. */
  abandon(): void {
    this.abandoned = true;
    this.ready = false;
    if (this.running) {
      this.child?.kill('SIGKILL');
    }
  }

  async restart(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.stop(signal);
    await this.start();
  }
}

/** A set of API and worker processes sharing one configuration. */
export class ProcessGroup {
  readonly processes: ServiceProcess[] = [];

  constructor(private env: Record<string, string>) {}

  /** Adds settings for the processes added from now on. */
  extendEnv(extra: Record<string, string>): void {
    this.env = { ...this.env, ...extra };
  }

  async add(role: Role, count: number): Promise<ServiceProcess[]> {
    const added: ServiceProcess[] = [];
    for (let index = 0; index < count; index += 1) {
      const port = role === 'worker' ? undefined : await freePort();
      const name = `${role}-${this.processes.filter((candidate) => candidate.role === role).length + 1}`;
      const service = new ServiceProcess(name, role, childEnv(this.env), port);
      this.processes.push(service);
      added.push(service);
    }
    return added;
  }

  byRole(role: Role): ServiceProcess[] {
    return this.processes.filter((service) => service.role === role);
  }

  /**
   * Starts every process that is not running. The first one alone (it applies the migrations, under
   * the advisory lock either way), then the rest together.
   */
  async startAll(): Promise<void> {
    const stopped = this.processes.filter((service) => !service.running);
    const [first, ...rest] = stopped;
    if (first) {
      await first.start();
    }
    await Promise.all(rest.map((service) => service.start()));
  }

  async stopAll(signal: NodeJS.Signals = 'SIGTERM'): Promise<ProcessExit[]> {
    return Promise.all(this.processes.map((service) => service.stop(signal)));
  }

  /** For `after()` hooks: whatever is still running gets SIGKILL, without waiting. */
  killAllNow(): void {
    for (const service of this.processes) {
      service.abandon();
    }
  }

  logs(): string {
    return this.processes.map((service) => `--- ${service.name} (pid ${String(service.pid)}, ${service.starts} starts)\n${service.logs().slice(-3000)}`).join('\n');
  }
}
