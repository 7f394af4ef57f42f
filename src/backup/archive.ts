import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import * as tar from 'tar';
import { databaseEntry, keyFileEntry, manifestEntry, parseManifest, type BackupManifest, type FileDigest } from './manifest.ts';

/** A backup file that cannot be used, and why (for the operator; exit 1). */
export class BackupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BackupError';
  }
}

export function digestOf(bytes: Buffer | string): FileDigest {
  return { bytes: Buffer.byteLength(bytes), sha256: createHash('sha256').update(bytes).digest('hex') };
}

export const gzip = promisify(zlib.gzip);
const gunzip = promisify(zlib.gunzip);

async function withStaging<T>(work: (staging: string) => Promise<T>): Promise<T> {
  // mkdtemp creates the directory with mode 0700: the key file never sits where others can read it.
  const staging = await fs.promises.mkdtemp(path.join(os.tmpdir(), 'paysail-backup-'));
  try {
    return await work(staging);
  } finally {
    await fs.promises.rm(staging, { recursive: true, force: true });
  }
}

/**
 * Writes the backup file: a tar (node-tar) of the manifest, the compressed database and, when it
 * goes with the backup, the key file. Mode 0600, written under another name and renamed, so an
 * interrupted run never leaves a file that looks like a backup.
 */
export async function writeBackupArchive(file: string, parts: { manifest: BackupManifest; compressedDatabase: Buffer; keyFile: string | null }): Promise<void> {
  await withStaging(async (staging) => {
    const names = [manifestEntry, databaseEntry];
    await fs.promises.writeFile(path.join(staging, manifestEntry), `${JSON.stringify(parts.manifest, null, 2)}\n`, { mode: 0o600 });
    await fs.promises.writeFile(path.join(staging, databaseEntry), parts.compressedDatabase, { mode: 0o600 });
    if (parts.keyFile !== null) {
      await fs.promises.writeFile(path.join(staging, keyFileEntry), parts.keyFile, { mode: 0o600 });
      names.push(keyFileEntry);
    }
    const partial = `${file}.partial`;
    try {
      await pipeline(tar.create({ cwd: staging, portable: true }, names), fs.createWriteStream(partial, { mode: 0o600 }));
      await fs.promises.rename(partial, file);
    } catch (error) {
      await fs.promises.rm(partial, { force: true });
      throw error;
    }
  });
}

export interface OpenedBackup {
  manifest: BackupManifest;
  /** PGlite's data directory as an uncompressed tar (what `loadDataDir` takes). */
  database: Buffer;
  /** The key file's text when the archive holds it. */
  keyFile: string | null;
}

/**
 * Reads a backup file and checks it against its manifest (sizes and SHA-256 of each part): a
 * damaged or altered file is refused here, before anything opens it.
 */
export async function readBackupArchive(file: string): Promise<OpenedBackup> {
  if (!fs.existsSync(file)) {
    throw new BackupError(`${file} does not exist`);
  }
  return withStaging(async (staging) => {
    try {
      // strict: a damaged archive fails instead of being read as far as it goes; node-tar keeps
      // every entry inside `cwd` (no absolute paths, no `..`), and only our three names are taken.
      await tar.extract({ file, cwd: staging, strict: true, filter: (entry) => [manifestEntry, databaseEntry, keyFileEntry].includes(entry) });
    } catch (error) {
      throw new BackupError(`${file} is not a readable Paysail backup (${(error as Error).message})`);
    }
    const read = (name: string) => {
      const entry = path.join(staging, name);
      return fs.existsSync(entry) ? fs.readFileSync(entry) : null;
    };
    const manifestText = read(manifestEntry);
    const manifest = manifestText ? parseManifest(manifestText.toString('utf8')) : null;
    if (!manifest) {
      throw new BackupError(`${file} is not a Paysail backup: ${manifestText ? `its ${manifestEntry} is not a backup manifest of a version this Paysail reads` : `no ${manifestEntry}`}`);
    }
    const compressed = read(databaseEntry);
    if (!compressed) {
      throw new BackupError(`${file} holds no ${databaseEntry}: the file is incomplete`);
    }
    assertDigest(databaseEntry, compressed, manifest.database);
    const keyBytes = read(keyFileEntry);
    if (manifest.keys.location === 'included') {
      if (!keyBytes || !manifest.keys.keyFile) {
        throw new BackupError(`${file} should hold the key file (${keyFileEntry}) but does not: the file is incomplete`);
      }
      assertDigest(keyFileEntry, keyBytes, manifest.keys.keyFile);
    }
    let database: Buffer;
    try {
      database = await gunzip(compressed);
    } catch (error) {
      throw new BackupError(`${databaseEntry} in ${file} does not decompress: ${(error as Error).message}`);
    }
    return { manifest, database, keyFile: manifest.keys.location === 'included' && keyBytes ? keyBytes.toString('utf8') : null };
  });
}

export function assertDigest(name: string, bytes: Buffer | string, expected: FileDigest): void {
  const actual = digestOf(bytes);
  if (actual.bytes !== expected.bytes || actual.sha256 !== expected.sha256) {
    throw new BackupError(`${name} does not match the manifest (${actual.bytes} bytes, sha256 ${actual.sha256.slice(0, 12)}…; expected ${expected.bytes} bytes, ${expected.sha256.slice(0, 12)}…): the file is damaged or was altered`);
  }
}
