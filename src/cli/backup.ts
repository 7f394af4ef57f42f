import path from 'node:path';
import { booleanFlag, stringFlag } from './args.ts';
import { jsonFlag, type Command } from './command.ts';
import { CommandError, exitCodes, writeLine, type CliIo } from './io.ts';
import type { Config } from '../config/index.ts';
import type * as BackupModule from '../backup/index.ts';
import type { BackupManifest, Inspection } from '../backup/index.ts';

const postgresAdvice = 'this installation runs on PostgreSQL (DATABASE_URL): back it up with pg_dump, or base backups and WAL archiving (docs/guides/deployment.md, Backups)';

/** The configuration (DATA_DIR, ENCRYPTION_KEYS) and the backup module, loaded on use so `--help` stays quick. */
async function load(io: CliIo, refusePostgres: boolean): Promise<{ config: Config; backup: typeof BackupModule }> {
  const [{ loadConfig }, backup] = await Promise.all([import('../config/index.ts'), import('../backup/index.ts')]);
  const config = loadConfig(io.env, []);
  if (refusePostgres && config.databaseUrl) {
    throw new CommandError(postgresAdvice);
  }
  return { config, backup };
}

/** The backup module's refusals are the operator's to act on: their message, exit 1. */
async function operatorErrors<T>(work: () => Promise<T>): Promise<T> {
  const { BackupError } = await import('../backup/index.ts');
  try {
    return await work();
  } catch (error) {
    throw error instanceof BackupError ? new CommandError(error.message) : error;
  }
}

function describe(manifest: BackupManifest, inspection: Inspection): string[] {
  const rows = Object.values(inspection.tables).reduce((sum, count) => sum + count, 0);
  const level = inspection.migrations;
  const pending = level.status === 'older' ? `; ${level.pending} newer migration${level.pending === 1 ? '' : 's'} will run at the next start` : '';
  return [
    `  taken:      ${manifest.createdAt} from the ${manifest.takenFrom} (Paysail ${manifest.paysailVersion}, PGlite ${manifest.pgliteVersion})`,
    `  migrations: ${level.applied} applied, newest ${level.newest ?? 'none'}${pending}`,
    `  rows:       ${rows} in ${Object.keys(inspection.tables).length} tables (${Object.entries(inspection.tables)
      .filter(([, count]) => count > 0)
      .map(([table, count]) => `${table} ${count}`)
      .join(', ')})`,
    `  ledger:     ${inspection.ledger.transactions} transactions, ${inspection.ledger.entries} entries, ${inspection.ledger.problems.length === 0 ? 'balanced' : 'NOT balanced'}`,
    `  keys:       ${manifest.keys.keyIds.join(', ')} (${
      manifest.keys.location === 'included' ? 'key file inside the backup' : manifest.keys.location === 'separate' ? 'key file written apart' : 'from ENCRYPTION_KEYS, not in the backup'
    })`,
  ];
}

function reportProblems(io: CliIo, heading: string, problems: readonly string[]): void {
  writeLine(io.stderr, `paysail: ${heading}:`);
  for (const problem of problems) {
    writeLine(io.stderr, `  ${problem}`);
  }
}

const create: Command = {
  name: 'backup create',
  summary: 'write a consistent backup of the embedded database (PGlite) and its key file to FILE',
  positionals: [{ name: 'FILE' }],
  flags: {
    'key-file-out': { type: 'string', valueName: 'PATH', description: 'write the key file to PATH instead of into the backup (the backup then restores only with it)' },
    json: jsonFlag,
  },
  details: [
    'With the server running, the snapshot is taken by the server itself (its socket in DATA_DIR), at a',
    'moment between two transactions: writers wait for it (0.8 s for a 40 MB data directory). With no server',
    'running, the data directory is opened here. Either way the snapshot is opened before it is written:',
    'row counts, migration level and the ledger check go into the manifest, and a ledger that does not',
    'balance is reported (exit 1; the file is still written).',
    'The backup holds the key file (DATA_DIR/encryption-keys) unless --key-file-out writes it apart: a',
    'backup with its key file is as sensitive as the data itself. With ENCRYPTION_KEYS, no key goes with it.',
    'FILE must not exist. PostgreSQL (DATABASE_URL): see docs/guides/deployment.md, Backups.',
  ],
  examples: ['paysail backup create backups/paysail-$(date +%F).backup', 'paysail backup create nightly.backup --key-file-out /secure/paysail-keys'],
  async run({ io, args }) {
    const [file] = args.positionals as [string];
    const keyFileOut = stringFlag(args, 'key-file-out');
    const { config, backup } = await load(io, true);
    const created = await operatorErrors(() =>
      backup.createBackup({ dataDir: config.dataDir, encryptionKeys: config.encryptionKeys, file: path.resolve(file), ...(keyFileOut ? { keyFileOut: path.resolve(keyFileOut) } : {}), now: new Date() }),
    );
    if (booleanFlag(args, 'json')) {
      writeLine(io.stdout, JSON.stringify({ file: path.resolve(file), manifest: created.manifest, problems: created.problems }, null, 2));
    } else {
      writeLine(io.stdout, `Backup written to ${path.resolve(file)}`);
      for (const line of describe(created.manifest, created.inspection)) {
        writeLine(io.stdout, line);
      }
    }
    const { location } = created.manifest.keys;
    if (location === 'included') {
      writeLine(io.stderr, `paysail: warning: ${file} holds the encryption key file: whoever has it can read every customer's personal data. Keep it as safe as the key itself (encrypted storage, restricted access), or use --key-file-out.`);
    } else if (location === 'separate') {
      writeLine(io.stderr, `paysail: warning: the key file was written apart to ${keyFileOut ?? ''}: ${file} cannot be restored without it. Keep it safe, apart from the backup, and in your recovery plan.`);
    } else {
      writeLine(io.stderr, `paysail: note: the keys come from ENCRYPTION_KEYS and are not in the backup: it restores only with them (${created.manifest.keys.keyIds.join(', ')}).`);
    }
    if (created.problems.length > 0) {
      reportProblems(io, `the backup was written, but what it holds is not sound`, created.problems);
      return exitCodes.failure;
    }
    return exitCodes.ok;
  },
};

const keyFileFlag = { type: 'string', valueName: 'PATH', description: 'the key file written apart at create (--key-file-out)' } as const;

const verify: Command = {
  name: 'backup verify',
  summary: 'check that a backup file is intact, opens, and its ledger balances',
  positionals: [{ name: 'FILE' }],
  flags: { 'key-file': keyFileFlag, json: jsonFlag },
  details: [
    'Read-only; needs no server and no DATA_DIR. Checks the checksums of the parts, opens the database',
    'in a temporary in-memory PGlite, and checks its migration level (one this version runs), that every',
    'merchant, mode and currency ledger sums to zero (and the other ledger invariants), that each',
    "table's row count is the manifest's, and, when the keys are at hand (inside the backup, --key-file,",
    'or ENCRYPTION_KEYS), that they hold every key the sealed values are under. Exit 1 on any problem.',
  ],
  examples: ['paysail backup verify nightly.backup', 'paysail backup verify nightly.backup --key-file /secure/paysail-keys --json'],
  async run({ io, args }) {
    const [file] = args.positionals as [string];
    const keyFilePath = stringFlag(args, 'key-file');
    const { config, backup } = await load(io, false);
    const verified = await operatorErrors(() =>
      backup.verifyBackup(path.resolve(file), { ...(keyFilePath ? { keyFilePath } : {}), ...(config.encryptionKeys ? { encryptionKeys: config.encryptionKeys } : {}) }),
    );
    if (booleanFlag(args, 'json')) {
      const { manifest, inspection, keysChecked, problems } = verified;
      writeLine(io.stdout, JSON.stringify({ ok: problems.length === 0, keysChecked, problems, manifest, inspection }, null, 2));
    } else {
      writeLine(io.stdout, `${path.resolve(file)}: ${verified.problems.length === 0 ? 'verified' : 'NOT sound'}`);
      for (const line of describe(verified.manifest, verified.inspection)) {
        writeLine(io.stdout, line);
      }
      if (!verified.keysChecked) {
        writeLine(io.stdout, `  (keys not checked: ${verified.manifest.keys.location === 'separate' ? 'pass the key file with --key-file' : 'set ENCRYPTION_KEYS'} to check them)`);
      }
    }
    if (verified.problems.length > 0) {
      reportProblems(io, `${file} does not verify`, verified.problems);
      return exitCodes.failure;
    }
    return exitCodes.ok;
  },
};

const restore: Command = {
  name: 'backup restore',
  summary: 'restore a backup into an empty DATA_DIR (refused when it holds anything)',
  positionals: [{ name: 'FILE' }],
  flags: { 'key-file': keyFileFlag },
  details: [
    'Verifies the backup first (as backup verify) and restores nothing from one that fails. DATA_DIR',
    'must be missing or empty: move the old one aside rather than over it. Writes the database and the',
    'key file (mode 0600), counts the restored rows against the manifest, then start the server',
    '(paysail serve): migrations newer than the backup run at that start.',
  ],
  examples: ['DATA_DIR=./data paysail backup restore nightly.backup', 'paysail backup restore nightly.backup --key-file /secure/paysail-keys'],
  async run({ io, args }) {
    const [file] = args.positionals as [string];
    const keyFilePath = stringFlag(args, 'key-file');
    const { config, backup } = await load(io, true);
    const restored = await operatorErrors(() =>
      backup.restoreBackup(path.resolve(file), {
        dataDir: config.dataDir,
        ...(keyFilePath ? { keyFilePath } : {}),
        ...(config.encryptionKeys ? { encryptionKeys: config.encryptionKeys } : {}),
      }),
    );
    writeLine(io.stdout, `Restored ${path.resolve(file)} into ${config.dataDir}`);
    for (const line of describe(restored.manifest, restored.inspection)) {
      writeLine(io.stdout, line);
    }
    if (restored.manifest.keys.location === 'environment') {
      writeLine(io.stderr, `paysail: note: start the server with the ENCRYPTION_KEYS it ran with (${restored.manifest.keys.keyIds.join(', ')}).`);
    } else if (config.encryptionKeys) {
      writeLine(io.stderr, 'paysail: warning: ENCRYPTION_KEYS is set, so the server will use it rather than the restored key file: unset it, or make sure it holds the same keys.');
    }
    writeLine(io.stdout, 'Start the server on it: paysail serve');
    return exitCodes.ok;
  },
};

export const backupCommands: readonly Command[] = [create, verify, restore];
