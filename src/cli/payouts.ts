import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';
import { parseReportDate } from '../modules/payout-pages/index.ts';
import { AppError } from '../http/errors.ts';

const reconcile: Command = {
  name: 'payouts reconcile',
  summary: "compare a day's payouts in our ledger with each payout rail's records and list the differences",
  positionals: [],
  flags: {
    date: { type: 'string', valueName: 'YYYY-MM-DD', description: 'the UTC day to reconcile; default: yesterday' },
    json: jsonFlag,
  },
  details: [
    'For the sandbox rail and every configured live rail (Increase, Circle), lists our payout attempts',
    "of the day next to the rail's own records of it (read through the rail) and prints each difference:",
    'MISSING_AT_PROVIDER, UNKNOWN_AT_PROVIDER, AMOUNT_MISMATCH, STATUS_MISMATCH. Like',
    'GET /admin/v1/reconciliation/payouts?date=…. Read-only. Exits 1 when there is any difference.',
  ],
  examples: ['paysail payouts reconcile --date 2026-11-24', 'paysail payouts reconcile --json'],
  async run({ io, deps, args }) {
    const report = await withPlatform(io, deps, async (platform) => {
      const now = platform.clock.now();
      const raw = stringFlag(args, 'date') ?? new Date(now.getTime() - 86_400_000).toISOString().slice(0, 10);
      let date: string;
      try {
        date = parseReportDate(raw, now);
      } catch (error) {
        throw error instanceof AppError ? new UsageError(`--date ${error.message.replace(/^date /, '')}, got "${raw}"`, 'payouts reconcile') : error;
      }
      return platform.services.payoutPages.reconcilePayouts(date);
    });
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(report, null, 2));
      return report.differences > 0 ? exitCodes.failure : exitCodes.ok;
    }
    writeLine(io.stdout, `Payout reconciliation for ${report.date} (UTC): ${report.differences === 0 ? 'no difference' : `${report.differences} difference${report.differences === 1 ? '' : 's'}`}`);
    for (const rail of report.rails) {
      writeLine(io.stdout, `  ${rail.rail} (${rail.livemode ? 'live' : 'sandbox'}): ${rail.ours} ours, ${rail.provider} at the rail, ${rail.matched} matched`);
      for (const difference of rail.differences) {
        const ours = difference.ours ? `ours ${difference.ours.amount} ${difference.ours.status}` : 'not ours';
        const provider = difference.provider ? `rail ${difference.provider.amount} ${difference.provider.status}` : 'not at the rail';
        writeLine(io.stdout, `    ${difference.kind} ${difference.payoutId ?? '-'} (${difference.reference ?? 'no reference'}): ${ours}; ${provider}${difference.payoutPageId ? ` [${difference.payoutPageId}]` : ''}`);
      }
    }
    return report.differences > 0 ? exitCodes.failure : exitCodes.ok;
  },
};

export const payoutCommands: readonly Command[] = [reconcile];
