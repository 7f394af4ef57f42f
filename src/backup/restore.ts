import fs from 'node:fs';
import path from 'node:path';
import { openPglite } from '../db/client.ts';
import { assertDigest, BackupError, readBackupArchive, type OpenedBackup } from './archive.ts';
import { keyFileName, keyIdsOf, problemsOf } from './create.ts';
import type { BackupManifest } from './manifest.ts';
import { inspectDatabase, inspectDump, type Inspection } from './snapshot.ts';

export interface KeyOptions {
  /** `--key-file PATH`: the key file written apart at create (`--key-file-out`). */
  keyFilePath?: string;
  /** ENCRYPTION_KEYS, for a backup of an installation that ran with it. */
  encryptionKeys?: string;
}

/** The key file (text) and key ids that go with a backup, or null ids when none was given to check. */
function keysFor(opened: OpenedBackup, options: KeyOptions): { keyFile: string | null; keyIds: string[] | null } {
  const { keys } = opened.manifest;
  if (keys.location === 'included') {
    return { keyFile: opened.keyFile, keyIds: keyIdsOf(opened.keyFile ?? '', 'the key file in the backup') };
  }
  if (keys.location === 'separate' && options.keyFilePath !== undefined) {
    if (!fs.existsSync(options.keyFilePath)) {
      throw new BackupError(`--key-file ${options.keyFilePath} does not exist`);
    }
    const keyFile = fs.readFileSync(options.keyFilePath, 'utf8');
    if (keys.keyFile) {
      assertDigest(`--key-file ${options.keyFilePath}`, keyFile, keys.keyFile);
    }
    return { keyFile, keyIds: keyIdsOf(keyFile, options.keyFilePath) };
  }
  if (keys.location === 'environment' && options.encryptionKeys) {
    return { keyFile: null, keyIds: keyIdsOf(options.encryptionKeys, 'ENCRYPTION_KEYS') };
  }
  return { keyFile: null, keyIds: null };
}

/** Where what was opened differs from what the manifest promised (row counts, ledger size). */
function differences(manifest: BackupManifest, inspection: Inspection): string[] {
  const tables = [...new Set([...Object.keys(manifest.tables), ...Object.keys(inspection.tables)])].sort();
  const found = tables
    .filter((table) => manifest.tables[table] !== inspection.tables[table])
    .map((table) => `table ${table} has ${inspection.tables[table] ?? 'no'} rows; the manifest says ${manifest.tables[table] ?? 'none'}`);
  if (manifest.ledger.transactions !== inspection.ledger.transactions || manifest.ledger.entries !== inspection.ledger.entries) {
    found.push(`the ledger has ${inspection.ledger.transactions} transactions and ${inspection.ledger.entries} entries; the manifest says ${manifest.ledger.transactions} and ${manifest.ledger.entries}`);
  }
  return found;
}

export interface VerifiedBackup {
  manifest: BackupManifest;
  inspection: Inspection;
  /** Whether the keys were at hand to check that they open every sealed value's key id. */
  keysChecked: boolean;
  /** Empty: sound. */
  problems: string[];
  keyFile: string | null;
  database: Buffer;
}

/**
 * `paysail backup verify`: the file matches its manifest (checksums), the database opens in a
 * temporary PGlite, its migration level is one this Paysail runs, its ledger balances, its row counts
 * are the manifest's, and the keys (when at hand) cover every sealed value.
 */
export async function verifyBackup(file: string, options: KeyOptions = {}): Promise<VerifiedBackup> {
  const opened = await readBackupArchive(file);
  const keys = keysFor(opened, options);
  let inspection: Inspection;
  try {
    inspection = await inspectDump(opened.database);
  } catch (error) {
    throw new BackupError(`the database in ${file} does not open: ${(error as Error).message}`);
  }
  return {
    manifest: opened.manifest,
    inspection,
    keysChecked: keys.keyIds !== null,
    problems: [...differences(opened.manifest, inspection), ...problemsOf(inspection, keys.keyIds)],
    keyFile: keys.keyFile,
    database: opened.database,
  };
}

/** Refuses anything but a missing or empty directory: a restore never mixes with or replaces data. */
export function assertEmptyDataDir(dataDir: string): void {
  if (!fs.existsSync(dataDir)) {
    return;
  }
  if (!fs.statSync(dataDir).isDirectory()) {
    throw new BackupError(`DATA_DIR ${dataDir} is a file, not a directory`);
  }
  const entries = fs.readdirSync(dataDir);
  if (entries.length > 0) {
    const shown = entries.slice(0, 5).join(', ') + (entries.length > 5 ? ', …' : '');
    throw new BackupError(
      `DATA_DIR ${dataDir} is not empty (${shown}): a restore writes only into an empty or new directory. ` +
        'Stop the server, move the directory aside (keep it until the restored one runs), and run the restore again, or set DATA_DIR to a new directory.',
    );
  }
}

/**
 * `paysail backup restore`: into an empty DATA_DIR only, from a backup that verifies. PGlite loads
 * the data directory from the dump itself (`loadDataDir`), under the data directory's lock; the key
 * file is written beside it with mode 0600; then the restored files are counted against the manifest.
 */
export async function restoreBackup(file: string, options: KeyOptions & { dataDir: string }): Promise<VerifiedBackup> {
  assertEmptyDataDir(options.dataDir);
  const verified = await verifyBackup(file, options);
  if (verified.manifest.keys.location === 'separate' && verified.keyFile === null) {
    throw new BackupError(`the key file of ${file} was written apart (backup create --key-file-out): pass it with --key-file PATH`);
  }
  if (verified.problems.length > 0) {
    throw new BackupError(`${file} does not verify; nothing was restored:\n  ${verified.problems.join('\n  ')}`);
  }
  const existed = fs.existsSync(options.dataDir);
  try {
    const database = await openPglite({ dataDir: options.dataDir, snapshot: new Blob([new Uint8Array(verified.database)]) });
    let restored: Inspection;
    try {
      restored = await inspectDatabase(database);
    } finally {
      await database.close();
    }
    const found = differences(verified.manifest, restored);
    if (found.length > 0) {
      throw new BackupError(`the restored database differs from the backup:\n  ${found.join('\n  ')}`);
    }
    if (verified.keyFile !== null) {
      fs.writeFileSync(path.join(options.dataDir, keyFileName), verified.keyFile, { mode: 0o600, flag: 'wx' });
    }
  } catch (error) {
    // Leave the directory as it was found (missing or empty), so the operator can simply run it again.
    if (existed) {
      for (const entry of fs.readdirSync(options.dataDir)) {
        fs.rmSync(path.join(options.dataDir, entry), { recursive: true, force: true });
      }
    } else {
      fs.rmSync(options.dataDir, { recursive: true, force: true });
    }
    throw error;
  }
  return verified;
}
