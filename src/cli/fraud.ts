import fs from 'node:fs';
import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { CommandError, UsageError, exitCodes, writeLine } from './io.ts';
import { withPlatform } from './platform.ts';
import { trackProgress } from './progress.ts';
import type { FraudNetwork } from '../modules/fraud-reports/index.ts';

const importFile: Command = {
  name: 'fraud import',
  audit: { action: 'adminFraudImports_create' },
  summary: "import a card network's issuer-fraud file (CSV) as fraud reports",
  positionals: [{ name: 'FILE' }],
  flags: {
    network: { type: 'string', valueName: 'NETWORK', choices: ['visa', 'mastercard'], description: 'the layout of FILE: visa (TC40) or mastercard (SAFE); required' },
    livemode: { type: 'boolean', description: 'match live payments (default); --livemode=false matches sandbox payments' },
    json: jsonFlag,
  },
  details: [
    'Rows are matched to successful card payments by network transaction id, else by BIN + last 4 +',
    'amount + transaction date. Each matched payment gets one fraud report (and a FRAUD_REPORTED',
    'event); rows already reported are duplicates; rows matching nothing or several payments are',
    'listed and never guessed. The whole file commits in one transaction. Layouts: docs/guides/fraud-reports.md.',
    'Exit 0 when the file was imported, even with unmatched rows (they are listed); 1 when it was refused.',
  ],
  examples: ['paysail fraud import --network visa tc40-2026-11-21.csv', 'paysail fraud import --network mastercard --livemode=false safe.csv --json'],
  async run({ io, deps, args }) {
    const [file] = args.positionals as [string];
    const network = stringFlag(args, 'network') as FraudNetwork | undefined;
    if (network === undefined) {
      throw new UsageError('--network is required (visa or mastercard)', 'fraud import');
    }
    let csv: string;
    try {
      csv = fs.readFileSync(file, 'utf8');
    } catch (error) {
      throw new CommandError(`cannot read ${file}: ${(error as Error).message}`);
    }
    if (csv.trim() === '') {
      throw new CommandError(`${file} is empty; the first line must be the header row`);
    }
    const livemode = booleanFlag(args, 'livemode') ?? true;
    const progress = trackProgress(io.stderr, 'importing rows');
    const result = await withPlatform(io, deps, (platform) => platform.services.fraudReports.importNetworkFile({ network, csv, livemode }, { onProgress: progress.onProgress })).finally(() =>
      progress.finish(),
    );
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify(result, null, 2));
      return exitCodes.ok;
    }
    const summary = result.import;
    writeLine(
      io.stdout,
      `Import ${summary.id} (${summary.network}, ${summary.livemode ? 'live' : 'sandbox'}): ${summary.rows} rows, ` +
        `${summary.created} reports created, ${summary.duplicates} duplicates, ${summary.unmatched} unmatched`,
    );
    for (const row of result.createdReports) {
      writeLine(io.stdout, `  line ${row.line}: reported ${row.checkoutPaymentId}`);
    }
    for (const row of result.duplicateRows) {
      writeLine(io.stdout, `  line ${row.line}: already reported ${row.checkoutPaymentId}`);
    }
    for (const row of result.unmatchedRows) {
      const card = row.cardNumber ? ` (${row.cardNumber}, ${row.transactionDate}, ${row.transactionAmount} ${row.transactionCurrency})` : '';
      writeLine(io.stdout, `  line ${row.line}: not imported: ${row.reason}${card}`);
    }
    return exitCodes.ok;
  },
};

export const fraudCommands: readonly Command[] = [importFile];
