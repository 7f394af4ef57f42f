/**
 * What a command may touch: its environment and two output streams. `src/cli.ts` passes the real
 * process ones; tests pass their own and read what was written.
 */
export interface CliOutput {
  write(text: string): unknown;
  /** True on a terminal: progress bars redraw in place; otherwise they print plain lines. */
  readonly isTTY?: boolean;
}

export interface CliIo {
  env: Record<string, string | undefined>;
  stdout: CliOutput;
  stderr: CliOutput;
  /** Called by long-running commands (`listen`) to learn when to stop; default: SIGINT/SIGTERM. */
  onStopSignal?: (stop: () => void) => () => void;
}

/** Exit codes of every command (documented in `paysail --help` and docs/cli.md). */
export const exitCodes = { ok: 0, failure: 1, usage: 2 } as const;

/** Wrong command line: unknown command or option, missing or extra argument, bad value. Exit 2. */
export class UsageError extends Error {
  constructor(
    message: string,
    /** The command whose usage to show (its full name, e.g. `keys create`); undefined: the program. */
    readonly command?: string,
  ) {
    super(message);
    this.name = 'UsageError';
  }
}

/** The command ran and failed for a reason the operator can act on (message only, no stack). Exit 1. */
export class CommandError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CommandError';
  }
}

export function writeLine(output: CliOutput, text = ''): void {
  output.write(`${text}\n`);
}
