import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli } from '../../src/cli/program.ts';
import type { CliIo } from '../../src/cli/io.ts';
import type { Platform } from '../../src/platform.ts';

export const repositoryRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const binary = path.join(repositoryRoot, 'bin/paysail.mjs');

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs one command in this process against `platform` (a test context's real platform and
 * database), capturing what it writes. `tty` makes stderr look like a terminal (progress bars).
 */
export async function runInProcess(platform: Platform, argv: string[], options: { env?: Record<string, string>; tty?: boolean } = {}): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    env: options.env ?? {},
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text), isTTY: options.tty ?? false },
  };
  const code = await runCli(argv, io, { openPlatform: async () => ({ platform, close: async () => undefined }) });
  return { code, stdout, stderr };
}

/** The environment of a spawned CLI: the given variables over a clean base (no inherited database or Redis). */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { ...process.env, DATABASE_URL: '', REDIS_URL: '', ENCRYPTION_KEYS: '', NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env };
}

/** A running `node bin/paysail.mjs …` with its output so far. */
export class CliProcess {
  stdout = '';
  stderr = '';
  /** The signal that ended the process, when one did (then `exited` resolves to 128). */
  signal: NodeJS.Signals | null = null;
  readonly exited: Promise<number>;
  private readonly child: ChildProcess;
  private readonly waiters = new Set<() => void>();

  constructor(args: string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [binary, ...args], { cwd: repositoryRoot, env: childEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
      this.notify();
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
      this.notify();
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.signal = signal;
        resolve(code ?? (signal ? 128 : 1));
        this.notify();
      });
    });
  }

  private notify(): void {
    for (const waiter of [...this.waiters]) {
      waiter();
    }
  }

  /** Resolves with the first match of `pattern` in stdout; rejects if the process exits first. */
  async waitForOutput(pattern: RegExp): Promise<RegExpMatchArray> {
    let match: RegExpMatchArray | null = null;
    await this.waitUntil(() => {
      match = pattern.exec(this.stdout);
      return match !== null;
    }, `printing ${pattern}`);
    return match as unknown as RegExpMatchArray;
  }

  /** Resolves once `condition` holds (checked on every output); rejects if the process exits first. */
  waitUntil(condition: () => boolean, what = 'the condition held'): Promise<void> {
    return new Promise((resolve, reject) => {
      let exited = false;
      void this.exited.then(() => {
        exited = true;
      });
      const check = () => {
        if (condition()) {
          this.waiters.delete(check);
          resolve();
        } else if (exited || this.child.exitCode !== null) {
          this.waiters.delete(check);
          reject(new Error(`exited before ${what}\nstdout: ${this.stdout}\nstderr: ${this.stderr}`));
        }
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Sends `signal` and resolves with the exit code. */
  async stop(signal: NodeJS.Signals): Promise<number> {
    this.child.kill(signal);
    return this.exited;
  }
}

export async function runProcess(args: string[], env: Record<string, string>): Promise<CliResult> {
  const child = new CliProcess(args, env);
  const code = await child.exited;
  return { code, stdout: child.stdout, stderr: child.stderr };
}

/**
 * A long-running command (`listen`) in this process: its output so far, a wait on that output, and
 * `stop()` in place of Ctrl-C.
 */
export function startInProcess(platform: Platform, argv: string[], env: Record<string, string>) {
  const output = { stdout: '', stderr: '' };
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) {
      waiter();
    }
  };
  let stopCommand: (() => void) | undefined;
  const io: CliIo = {
    env,
    stdout: { write: (text: string) => ((output.stdout += text), notify()) },
    stderr: { write: (text: string) => ((output.stderr += text), notify()) },
    onStopSignal(stop) {
      stopCommand = stop;
      return () => undefined;
    },
  };
  let finished = false;
  const exited = runCli(argv, io, { openPlatform: async () => ({ platform, close: async () => undefined }) }).finally(() => {
    finished = true;
    notify();
  });
  return {
    output,
    exited,
    /** Resolves once `condition` holds (checked on every write); rejects if the command ends first. */
    waitUntil(condition: () => boolean): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (condition()) {
            waiters.delete(check);
            resolve();
          } else if (finished) {
            waiters.delete(check);
            reject(new Error(`the command ended first\nstdout: ${output.stdout}\nstderr: ${output.stderr}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    stop(): Promise<number> {
      stopCommand?.();
      return exited;
    },
  };
}
