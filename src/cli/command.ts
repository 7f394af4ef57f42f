import type { FlagSpec, ParsedArgs, PositionalSpec } from './args.ts';
import type { CliIo } from './io.ts';
import type { CliDeps } from './platform.ts';

export interface CommandContext {
  io: CliIo;
  deps: CliDeps;
  args: ParsedArgs;
}

/** One command: its help (name, arguments, options, notes, examples) and what it does. */
export interface Command {
  /** One or two words: `migrate`, `keys create`. */
  name: string;
  summary: string;
  positionals: readonly PositionalSpec[];
  flags: Readonly<Record<string, FlagSpec>>;
  /** Extra help paragraphs (lines). */
  details?: readonly string[];
  examples?: readonly string[];
  /**
   * Set on commands that change state: the audit log records each run as the operator's (actor
   * `operator`, address `cli`), under `action` (the admin API operation that does the same), with the
   * positional argument named `target` as its target and `MERCHANT_ID`, when there is one, as its merchant.
   */
  audit?: { action: string; target?: string };
  /** Resolves to the exit code. Long-running commands (`serve`) resolve once started. */
  run(context: CommandContext): Promise<number>;
}

export const jsonFlag: FlagSpec = { type: 'boolean', description: 'print JSON instead of text' };
