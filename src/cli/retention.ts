import { booleanFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';

const status: Command = {
  name: 'retention status',
  summary: 'per retention category: the setting, the cutoff and how many rows are due now',
  positionals: [],
  flags: { json: jsonFlag },
  details: [
    'Read-only. Categories: kycDetails (customers with no activity since the cutoff whose identity',
    'details are still held), emailBodies, webhookDeliveryLogs, idempotencyRecords. The setting is the',
    "operator's override (POST /admin/v1/retention) or else the environment default (RETENTION_*). The",
    'hourly retention.purge job removes what is due; `retention run` does it now.',
  ],
  examples: ['paysail retention status', 'paysail retention status --json | jq ".[] | select(.due > 0)"'],
  async run({ io, deps, args }) {
    const entries = await withPlatform(io, deps, (platform) => platform.services.retention.status());
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(entries.map((entry) => ({ ...entry, cutoff: entry.cutoff.toISOString() })), null, 2));
      return exitCodes.ok;
    }
    for (const entry of entries) {
      writeLine(io.stdout, `${entry.category}\t${entry.value} ${entry.unit} (${entry.source === 'override' ? 'override' : 'environment'})\tcutoff ${entry.cutoff.toISOString()}\t${entry.due} due`);
    }
    const due = entries.reduce((sum, entry) => sum + entry.due, 0);
    writeLine(io.stdout, due === 0 ? 'nothing is due' : `${due} rows are due: the hourly retention job purges them, or run \`paysail retention run\``);
    return exitCodes.ok;
  },
};

const run: Command = {
  name: 'retention run',
  audit: { action: 'cli_retentionRun' },
  summary: 'purge now what is past its retention time (what the hourly job does)',
  positionals: [],
  flags: { json: jsonFlag },
  details: [
    'Purges every category in batches of 500 rows, each its own transaction, until nothing is due;',
    'safe beside a running worker (a batch re-checks each row as it purges it). Prints the rows purged',
    'per category. Irreversible: check `retention status` first.',
  ],
  examples: ['paysail retention run', 'paysail retention run --json'],
  async run({ io, deps, args }) {
    const results = await withPlatform(io, deps, (platform) => platform.services.retention.purgeNow());
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(results.map((result) => ({ ...result, cutoff: result.cutoff.toISOString() })), null, 2));
      return exitCodes.ok;
    }
    for (const result of results) {
      writeLine(io.stdout, `${result.category}\tcutoff ${result.cutoff.toISOString()}\t${result.purged} purged`);
    }
    return exitCodes.ok;
  },
};

export const retentionCommands: readonly Command[] = [status, run];
