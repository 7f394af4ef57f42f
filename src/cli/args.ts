import { UsageError } from './io.ts';

/**
 * A tiny argument parser (no dependency): positionals, `--flag`, `--flag=value`, `--flag value`,
 * `--no-flag` for booleans, and `--` to end options.
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
  const positionals: string[] = [];
  const flags: Record<string, string | boolean | undefined> = {};
  let index = 0;
  let optionsEnded = false;
  while (index < argv.length) {
    const argument = argv[index] as string;
    index += 1;
    if (optionsEnded || !argument.startsWith('--') || argument === '--') {
      if (argument === '--' && !optionsEnded) {
        optionsEnded = true;
      } else {
        positionals.push(argument);
      }
      continue;
    }
    const equals = argument.indexOf('=');
    let name = equals === -1 ? argument.slice(2) : argument.slice(2, equals);
    let inline = equals === -1 ? undefined : argument.slice(equals + 1);
    let flag = spec.flags[name];
    if (!flag && name.startsWith('no-') && spec.flags[name.slice(3)]?.type === 'boolean' && inline === undefined) {
      name = name.slice(3);
      flag = spec.flags[name];
      inline = 'false';
    }
    if (!flag) {
      throw new UsageError(`unknown option --${name}`, command);
    }
    if (flag.type === 'boolean') {
      flags[name] = inline === undefined ? true : parseBoolean(command, name, inline);
      continue;
    }
    let value = inline;
    if (value === undefined) {
      const next = argv[index];
      if (next === undefined || next.startsWith('--')) {
        throw new UsageError(`--${name} needs a value${flag.valueName ? ` (${flag.valueName})` : ''}`, command);
      }
      value = next;
      index += 1;
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
