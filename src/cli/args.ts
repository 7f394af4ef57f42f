import { parseArgs as tokenize } from 'node:util';
import { UsageError } from './io.ts';

/**
 * Command-line arguments, split by `node:util` `parseArgs` (its tokens) and checked against a
 * command's spec here: positionals, `--flag`, `--flag=value`, `--flag value`, `--no-flag` and
 * `--flag=true|false` for booleans, allowed values, `--` to end options. Every mistake is a
 * UsageError naming the option (exit 2 with the command's usage).
 */
export interface FlagSpec {
  type: 'string' | 'boolean';
  description: string;
  /** Shown in help: `--network NETWORK`. */
  valueName?: string;
  /** Allowed values of a string flag. */
  choices?: readonly string[];
}

export interface PositionalSpec {
  name: string;
  optional?: boolean;
}

export interface ParsedArgs {
  positionals: string[];
  flags: Record<string, string | boolean | undefined>;
}

function parseBoolean(command: string, name: string, raw: string): boolean {
  if (['true', '1', 'yes'].includes(raw.toLowerCase())) {
    return true;
  }
  if (['false', '0', 'no'].includes(raw.toLowerCase())) {
    return false;
  }
  throw new UsageError(`--${name} must be true or false, got "${raw}"`, command);
}

export function parseArgs(command: string, argv: readonly string[], spec: { positionals: readonly PositionalSpec[]; flags: Readonly<Record<string, FlagSpec>> }): ParsedArgs {
  const { tokens } = tokenize({
    args: [...argv],
    options: Object.fromEntries(Object.entries(spec.flags).map(([name, flag]) => [name, { type: flag.type }])),
    // Not strict: the checks below give our own messages (and --flag=false for booleans).
    strict: false,
    allowPositionals: true,
    tokens: true,
  });
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | undefined> = {};
  const shortSeen = new Set<number>();
  for (const token of tokens) {
    if (token.kind === 'positional') {
      positionals.push(token.value);
      continue;
    }
    if (token.kind === 'option-terminator') {
      continue;
    }
    if (!token.rawName.startsWith('--')) {
      // There are no short options: `-` words (`-5`, `-x`, `-abc`) are positionals.
      if (!shortSeen.has(token.index)) {
        shortSeen.add(token.index);
        positionals.push(argv[token.index] ?? '');
      }
      continue;
    }
    let name = token.name;
    let value = token.value;
    let flag = spec.flags[name];
    if (!flag && name.startsWith('no-') && spec.flags[name.slice(3)]?.type === 'boolean' && value === undefined) {
      name = name.slice(3);
      flag = spec.flags[name];
      value = 'false';
    }
    if (!flag) {
      throw new UsageError(`unknown option --${name}`, command);
    }
    if (flag.type === 'boolean') {
      flags[name] = value === undefined ? true : parseBoolean(command, name, value);
      continue;
    }
    if (value === undefined || (!token.inlineValue && value.startsWith('--'))) {
      throw new UsageError(`--${name} needs a value${flag.valueName ? ` (${flag.valueName})` : ''}`, command);
    }
    if (flag.choices && !flag.choices.includes(value)) {
      throw new UsageError(`--${name} must be one of ${flag.choices.join(', ')}, got "${value}"`, command);
    }
    flags[name] = value;
  }
  const required = spec.positionals.filter((positional) => !positional.optional);
  if (positionals.length < required.length) {
    const missing = required.slice(positionals.length).map((positional) => positional.name);
    throw new UsageError(`missing ${missing.join(' and ')}`, command);
  }
  if (positionals.length > spec.positionals.length) {
    throw new UsageError(`unexpected argument "${positionals[spec.positionals.length]}"`, command);
  }
  return { positionals, flags };
}

export function stringFlag(parsed: ParsedArgs, name: string): string | undefined {
  const value = parsed.flags[name];
  return typeof value === 'string' ? value : undefined;
}

export function booleanFlag(parsed: ParsedArgs, name: string): boolean | undefined {
  const value = parsed.flags[name];
  return typeof value === 'boolean' ? value : undefined;
}

/** A positive integer option (poll intervals, page sizes), checked here so a typo is a usage error. */
export function integerFlag(command: string, parsed: ParsedArgs, name: string, fallback: number, range: { min: number; max: number }): number {
  const raw = stringFlag(parsed, name);
  if (raw === undefined) {
    return fallback;
  }
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < range.min || value > range.max) {
    throw new UsageError(`--${name} must be an integer from ${range.min} to ${range.max}, got "${raw}"`, command);
  }
  return value;
}
