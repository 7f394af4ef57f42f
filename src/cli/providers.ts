import { booleanFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';

interface CheckOutcome {
  provider: string;
  environment: 'live' | 'test';
  ok: boolean;
  detail: string;
}

const check: Command = {
  name: 'providers check',
  summary: "verify each configured provider's credentials with a harmless read",
  positionals: [],
  flags: { json: jsonFlag },
  details: [
    'For every provider configured in the environment (Stripe, Onfido, Increase, Circle; live keys and',
    'the optional test-environment keys that back sandbox mode), makes one read-only call with its',
    'credentials and prints what it saw. Exits 1 when any check fails. Nothing is created or moved.',
    'With no provider configured it says so and exits 0: sandbox mode needs none.',
  ],
  examples: ['paysail providers check', 'paysail providers check --json'],
  async run({ io, deps, args }) {
    const outcomes = await withPlatform(io, deps, async (platform) => {
      const results: CheckOutcome[] = [];
      for (const providerCheck of platform.providerChecks) {
        try {
          results.push({ provider: providerCheck.provider, environment: providerCheck.environment, ok: true, detail: await providerCheck.check() });
        } catch (error) {
          results.push({ provider: providerCheck.provider, environment: providerCheck.environment, ok: false, detail: error instanceof Error ? error.message : String(error) });
        }
      }
      return results;
    });
    const failed = outcomes.some((outcome) => !outcome.ok);
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify({ providers: outcomes }, null, 2));
      return failed ? exitCodes.failure : exitCodes.ok;
    }
    if (outcomes.length === 0) {
      writeLine(io.stdout, 'No live provider is configured: sandbox mode uses the built-in sandbox providers (see docs/guides/going-live.md).');
      return exitCodes.ok;
    }
    for (const outcome of outcomes) {
      writeLine(io.stdout, `${outcome.ok ? 'ok    ' : 'FAILED'} ${outcome.provider} (${outcome.environment}): ${outcome.detail}`);
    }
    return failed ? exitCodes.failure : exitCodes.ok;
  },
};

export const providerCommands: readonly Command[] = [check];
