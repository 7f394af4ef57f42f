import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { DatabaseLockedError, openPglite } from '../db/client.ts';
import { KeyRingError, parseKeySpec } from '../crypto/keyring.ts';
import { packageRoot } from '../package-root.ts';
import { BackupError, digestOf, gzip, writeBackupArchive } from './archive.ts';
import { backupSocketPath, requestSnapshot } from './control.ts';
import type { BackupManifest } from './manifest.ts';
import { dumpConsistently, hasEmbeddedDatabase, inspectDump, type Inspection } from './snapshot.ts';

export const keyFileName = 'encryption-keys';

export interface Keys {
  /** The key file's text, or null when the keys come from ENCRYPTION_KEYS. */
  keyFile: string | null;
  keyIds: string[];
}

export function keyIdsOf(spec: string, where: string): string[] {
  try {
    return parseKeySpec(spec).map((key) => key.id);
  } catch (error) {
    if (error instanceof KeyRingError) {
      throw new BackupError(`${where} is not a key file: ${error.message}`);
    }
    throw error;
  }
}

/** The keys the installation runs with: ENCRYPTION_KEYS, or the key file in DATA_DIR. */
function installationKeys(dataDir: string, encryptionKeys: string | undefined): Keys {
  if (encryptionKeys) {
    return { keyFile: null, keyIds: keyIdsOf(encryptionKeys, 'ENCRYPTION_KEYS') };
  }
  const file = path.join(dataDir, keyFileName);
  if (!fs.existsSync(file)) {
    throw new BackupError(`no key file at ${file} and ENCRYPTION_KEYS is unset: without its keys a backup of ${dataDir} could not be read`);
  }
  const keyFile = fs.readFileSync(file, 'utf8');
  return { keyFile, keyIds: keyIdsOf(keyFile, file) };
}

/** A running server's own snapshot through its socket, else one taken here with the data directory opened. */
async function takeSnapshot(dataDir: string): Promise<{ dump: Buffer; takenFrom: string }> {
  const socket = backupSocketPath(dataDir);
  const fromServer = socket ? await requestSnapshot(socket) : null;
  if (fromServer) {
    return { dump: fromServer, takenFrom: 'running server' };
  }
  if (!hasEmbeddedDatabase(dataDir)) {
    throw new BackupError(`no embedded database in ${dataDir} (no ${path.join(dataDir, 'pglite')}): check DATA_DIR`);
  }
  let database;
  try {
    database = await openPglite({ dataDir });
  } catch (error) {
    if (error instanceof DatabaseLockedError) {
      throw new BackupError(`${error.message} It did not answer on its backup socket${socket ? ` (${socket})` : ' (DATA_DIR is too long a path for one)'}: stop it, then run backup create again.`);
    }
    throw error;
  }
  try {
    return { dump: await dumpConsistently(database.client), takenFrom: 'data directory' };
  } finally {
    await database.close();
  }
}

function versionOf(manifestPath: string): string {
  return (JSON.parse(fs.readFileSync(manifestPath, 'utf8')) as { version?: string }).version ?? 'unknown';
}

function pgliteVersion(): string {
  // The entry point is <package>/dist/index.cjs; the package's exports do not list package.json.
  const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
  return versionOf(path.resolve(path.dirname(entry), '..', 'package.json'));
}

/** What the database needs that the key ring lacks, and the ledger's broken rules: empty when sound. */
export function problemsOf(inspection: Inspection, keyIds: readonly string[] | null): string[] {
  const problems = [...inspection.ledger.problems];
  if (inspection.migrations.status === 'newer') {
    problems.push(`the database was migrated by a newer Paysail (${inspection.migrations.newest}): restore it with that version or a later one`);
  }
  if (keyIds) {
    const missing = inspection.sealedKeyIds.filter((id) => !keyIds.includes(id));
    if (missing.length > 0) {
      problems.push(`sealed values are under key${missing.length === 1 ? '' : 's'} ${missing.join(', ')}, which the key ring (${keyIds.join(', ')}) lacks: they could not be decrypted`);
    }
  }
  return problems;
}

export interface CreatedBackup {
  manifest: BackupManifest;
  inspection: Inspection;
  /** Non-empty: the backup was written, but what it holds is not sound (exit 1). */
  problems: string[];
}

/**
 * `paysail backup create`: a consistent snapshot of the embedded database (from the running
 * server when there is one), checked by opening it (migration level, ledger, the keys it needs),
 * written with its manifest and, unless `keyFileOut` names another place, the key file.
 */
export async function createBackup(options: { dataDir: string; encryptionKeys: string | undefined; file: string; keyFileOut?: string; now: Date }): Promise<CreatedBackup> {
  for (const target of [options.file, options.keyFileOut]) {
    if (target !== undefined && fs.existsSync(target)) {
      throw new BackupError(`${target} exists: a backup never overwrites a file; choose another name`);
    }
    if (target !== undefined && !fs.existsSync(path.dirname(target))) {
      throw new BackupError(`${path.dirname(target)} does not exist: create the directory first`);
    }
  }
  if (options.keyFileOut !== undefined && path.resolve(options.keyFileOut) === path.resolve(options.file)) {
    throw new BackupError('--key-file-out must name another file than the backup');
  }
  const keys = installationKeys(options.dataDir, options.encryptionKeys);
  if (options.keyFileOut !== undefined && keys.keyFile === null) {
    throw new BackupError('--key-file-out: the keys come from ENCRYPTION_KEYS, so no key file goes with the backup; keep ENCRYPTION_KEYS safe apart instead');
  }
  const { dump, takenFrom } = await takeSnapshot(options.dataDir);
  const inspection = await inspectDump(dump);
  const compressedDatabase = await gzip(dump);
  const location = keys.keyFile === null ? 'environment' : options.keyFileOut === undefined ? 'included' : 'separate';
  const manifest: BackupManifest = {
    format: 'paysail-backup',
    formatVersion: 1,
    createdAt: options.now.toISOString(),
    paysailVersion: versionOf(path.join(packageRoot, 'package.json')),
    pgliteVersion: pgliteVersion(),
    takenFrom,
    migrations: { applied: inspection.migrations.applied, newest: inspection.migrations.newest },
    tables: inspection.tables,
    ledger: { transactions: inspection.ledger.transactions, entries: inspection.ledger.entries },
    keys: { location, keyIds: keys.keyIds, ...(keys.keyFile === null ? {} : { keyFile: digestOf(keys.keyFile) }) },
    database: digestOf(compressedDatabase),
  };
  if (options.keyFileOut !== undefined && keys.keyFile !== null) {
    fs.writeFileSync(options.keyFileOut, keys.keyFile, { mode: 0o600, flag: 'wx' });
  }
  await writeBackupArchive(options.file, { manifest, compressedDatabase, keyFile: location === 'included' ? keys.keyFile : null });
  return { manifest, inspection, problems: problemsOf(inspection, keys.keyIds) };
}
