import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../package-root.ts';
import { parseArgs } from './args.ts';
import type { Command } from './command.ts';
import { backupCommands } from './backup.ts';
import { balanceCommands } from './balance.ts';
import { cryptoCommands } from './crypto.ts';
import { customerCommands } from './customers.ts';
import { fraudCommands } from './fraud.ts';
import { CommandError, UsageError, exitCodes, writeLine, type CliIo } from './io.ts';
import { keyCommands } from './keys.ts';
import { listenCommands } from './listen.ts';
import { merchantCommands } from './merchants.ts';
import { defaultDeps, type CliDeps } from './platform.ts';
import { providerCommands } from './providers.ts';
import { payoutCommands } from './payouts.ts';
import { retentionCommands } from './retention.ts';
import { serverCommands } from './server.ts';

export const commands: readonly Command[] = [
  ...serverCommands,
  ...merchantCommands,
  ...keyCommands,
  ...customerCommands,
  ...balanceCommands,
  ...fraudCommands,
  ...cryptoCommands,
  ...listenCommands,
  ...providerCommands,
  ...payoutCommands,
  ...retentionCommands,
  ...backupCommands,
];

const exitCodeHelp = ['Exit codes:', '  0  success', '  1  the command failed (message on stderr)', '  2  usage error: unknown command or option, missing or bad argument'];

function usageLine(command: Command): string {
  const positionals = command.positionals.map((positional) => (positional.optional ? `[${positional.name}]` : positional.name));
  const options = Object.keys(command.flags).length > 0 ? ['[options]'] : [];
  return ['paysail', command.name, ...positionals, ...options].join(' ');
}

export function programHelp(): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Paysail operator CLI',
    '',
    'Usage: paysail <command> [arguments] [options]     (in the repository: npx paysail …, npm run cli -- …)',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '  help [COMMAND]'.padEnd(width + 2) + '  show help for the program or a command',
    '',
    'Options: --help (-h) on any command shows its help; --version prints the version.',
    'Database commands read the same environment as the server (DATA_DIR, DATABASE_URL, ENCRYPTION_KEYS, …).',
    '',
    ...exitCodeHelp,
    '',
    'Run "paysail <command> --help" for a command\'s arguments, options and examples. Docs: docs/cli.md (served at /docs/guides/cli).',
  ].join('\n');
}

export function commandHelp(command: Command): string {
  const flags = Object.entries(command.flags).map(([name, flag]) => {
    const left = `--${name}${flag.type === 'string' ? ` ${flag.valueName ?? 'VALUE'}` : ''}`;
    return { left, description: flag.description };
  });
  const width = Math.max(0, ...flags.map((flag) => flag.left.length));
  return [
    `Usage: ${usageLine(command)}`,
    '',
    `${command.summary.charAt(0).toUpperCase()}${command.summary.slice(1)}.`,
    ...(command.details ? ['', ...command.details] : []),
    ...(flags.length > 0 ? ['', 'Options:', ...flags.map((flag) => `  ${flag.left.padEnd(width)}  ${flag.description}`)] : []),
    ...(command.examples ? ['', 'Examples:', ...command.examples.map((example) => `  ${example}`)] : []),
    '',
    ...exitCodeHelp,
  ].join('\n');
}

/** The command named by the first one or two words, and the arguments after its name. */
function findCommand(argv: readonly string[]): { command: Command; rest: string[] } | null {
  const [first, second] = argv;
  const two = commands.find((command) => command.name === `${first} ${second}`);
  if (two) {
    return { command: two, rest: argv.slice(2) };
  }
  const one = commands.find((command) => command.name === first);
  return one ? { command: one, rest: argv.slice(1) } : null;
}

function groupCommands(group: string | undefined): Command[] {
  return commands.filter((command) => group !== undefined && command.name.startsWith(`${group} `));
}

function packageVersion(): string {
  const text = fs.readFileSync(path.join(packageRoot, 'package.json'), 'utf8');
  return (JSON.parse(text) as { version?: string }).version ?? 'unknown';
}

function helpFor(io: CliIo, words: readonly string[]): number {
  if (words.length === 0) {
    writeLine(io.stdout, programHelp());
    return exitCodes.ok;
  }
  const found = findCommand(words);
  if (found && found.rest.length === 0) {
    writeLine(io.stdout, commandHelp(found.command));
    return exitCodes.ok;
  }
  const group = groupCommands(words[0]);
  if (group.length > 0 && words.length === 1) {
    writeLine(io.stdout, [`Commands of "${words[0]}":`, ...group.map((command) => `  ${usageLine(command)}\n      ${command.summary}`)].join('\n'));
    return exitCodes.ok;
  }
  throw new UsageError(`no command "${words.join(' ')}"`);
}

function reportUsageError(io: CliIo, error: UsageError): number {
  writeLine(io.stderr, `paysail: ${error.message}`);
  const command = commands.find((candidate) => candidate.name === error.command);
  if (command) {
    writeLine(io.stderr, `Usage: ${usageLine(command)}`);
    writeLine(io.stderr, `Run "paysail ${command.name} --help" for details.`);
  } else {
    writeLine(io.stderr, 'Run "paysail --help" for the list of commands.');
  }
  return exitCodes.usage;
}

/** Why a command failed, for the operator: our own errors by message, configuration and lock errors as they are. */
async function failureMessage(io: CliIo, error: unknown): Promise<string> {
  const [{ ConfigError }, { AppError }, { DatabaseLockedError }, { KeyRingError }] = await Promise.all([
    import('../config/index.ts'),
    import('../http/errors.ts'),
    import('../db/client.ts'),
    import('../crypto/keyring.ts'),
  ]);
  if (error instanceof ConfigError) {
    return `invalid configuration: ${error.message}`;
  }
  if (error instanceof KeyRingError) {
    return `invalid configuration: encryption keys: ${error.message}`;
  }
  if (error instanceof AppError || error instanceof CommandError || error instanceof DatabaseLockedError) {
    return error.message;
  }
  if (!(error instanceof Error)) {
    return `unexpected error: ${String(error)}`;
  }
  return io.env.PAYSAIL_DEBUG ? `unexpected error: ${error.stack ?? error.message}` : `unexpected error: ${error.message} (set PAYSAIL_DEBUG=1 for the stack trace)`;
}

/** Runs one command line; resolves to the exit code (0 ok, 1 failure, 2 usage error). */
export async function runCli(argv: readonly string[], io: CliIo, deps: CliDeps = defaultDeps): Promise<number> {
  try {
    const [first] = argv;
    if (first === undefined || first === '--help' || first === '-h') {
      writeLine(first === undefined ? io.stderr : io.stdout, programHelp());
      return first === undefined ? exitCodes.usage : exitCodes.ok;
    }
    if (first === 'help') {
      return helpFor(io, argv.slice(1));
    }
    if (first === '--version' || first === '-v') {
      writeLine(io.stdout, packageVersion());
      return exitCodes.ok;
    }
    const found = findCommand(argv);
    if (!found) {
      const group = groupCommands(first);
      if (group.length > 0 && argv.length === 2 && (argv[1] === '--help' || argv[1] === '-h')) {
        return helpFor(io, [first]);
      }
      if (group.length > 0) {
        const sub = argv[1];
        throw new UsageError(
          `${sub === undefined || sub.startsWith('-') ? `"${first}" needs a command` : `no command "${first} ${sub}"`}: ${group.map((command) => command.name).join(', ')}`,
        );
      }
      throw new UsageError(`unknown command "${first}"`);
    }
    const { command, rest } = found;
    const separator = rest.indexOf('--');
    const options = separator === -1 ? rest : rest.slice(0, separator);
    if (options.includes('--help') || options.includes('-h')) {
      writeLine(io.stdout, commandHelp(command));
      return exitCodes.ok;
    }
    const args = parseArgs(command.name, rest, command);
    return await command.run({ io, deps, args });
  } catch (error) {
    if (error instanceof UsageError) {
      return reportUsageError(io, error);
    }
    writeLine(io.stderr, `paysail: ${await failureMessage(io, error)}`);
    return exitCodes.failure;
  }
}
