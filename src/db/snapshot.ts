import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { packageRoot } from '../package-root.ts';

/** The SQL migrations (drizzle-kit's files and journal): read at run time, never compiled. */
export const migrationsFolder = path.join(packageRoot, 'src', 'db', 'migrations');

/** Names one migration set: the files and the journal that says in which order they apply. */
export function migrationsHash(): string {
  const hash = createHash('sha256');
  for (const file of fs.readdirSync(migrationsFolder).filter((name) => name.endsWith('.sql')).sort()) {
    hash.update(file).update(fs.readFileSync(path.join(migrationsFolder, file)));
  }
  const journal = path.join(migrationsFolder, 'meta', '_journal.json');
  if (fs.existsSync(journal)) {
    hash.update(fs.readFileSync(journal));
  }
  return hash.digest('hex').slice(0, 16);
}

/** The journal time (`when`) of the newest migration: drizzle records it as that row's `created_at`. */
export function newestMigrationMillis(): number | null {
  const journal = JSON.parse(fs.readFileSync(path.join(migrationsFolder, 'meta', '_journal.json'), 'utf8')) as { entries?: Array<{ when?: number }> };
  return journal.entries?.at(-1)?.when ?? null;
}

function pgliteVersion(): string | null {
  try {
    // The package's entry point is <package>/dist/index.cjs; its exports do not list package.json.
    const entry = createRequire(import.meta.url).resolve('@electric-sql/pglite');
    const manifest = JSON.parse(fs.readFileSync(path.resolve(path.dirname(entry), '..', 'package.json'), 'utf8')) as { name?: string; version?: string };
    return manifest.name === '@electric-sql/pglite' && manifest.version ? manifest.version : null;
  } catch {
    return null;
  }
}

/**
 * Where the build (`npm run build`, run by `npm install`) keeps a migrated, empty PGlite data
 * directory for this migration set and PGlite version, or null when the version is unknown.
 */
export function builtDataDir(): string | null {
  const version = pgliteVersion();
  return version ? path.join(packageRoot, 'dist', `pglite-${version}-${migrations()}`) : null;
}

let hashed: string | undefined;
function migrations(): string {
  hashed ??= migrationsHash();
  return hashed;
}

/** PostgreSQL's WAL segment files: 24 hexadecimal digits (timeline, log, segment). */
const walSegmentName = /^[0-9A-F]{24}$/;
/** Pages of 8 kB: what PostgreSQL reads and writes. */
const pageBytes = 8192;
const zeroPage = Buffer.alloc(pageBytes);

/**
 * Run by the build on the migrated database before it closes: the WAL moves to a fresh segment whose
 * only record is the checkpoint (initdb and the migrations filled about 9 MB of the first one), so a
 * first start copies the 16 MB segment as a few pages (`copySparse`). Returns that segment's name.
 */
export async function compactWal(client: Pick<PGlite, 'query'>): Promise<string> {
  await client.query('checkpoint');
  await client.query('select pg_switch_wal()');
  await client.query('checkpoint');
  const current = await client.query<{ name: string }>('select pg_walfile_name(pg_current_wal_lsn()) as name');
  const name = current.rows[0]?.name;
  if (!name) {
    throw new Error('no current WAL segment');
  }
  return name;
}

/**
 * After the build's database closed: the segments after the current one are old ones PostgreSQL
 * recycled for later use (their old records, 16 MB each); they go (PostgreSQL makes a segment when it
 * needs one), and the current one is rewritten sparse, its zero pages as holes.
 */
export async function pruneWal(pgliteDataDir: string, current: string): Promise<void> {
  const wal = path.join(pgliteDataDir, 'pg_wal');
  for (const name of await fs.promises.readdir(wal)) {
    if (walSegmentName.test(name) && name > current) {
      await fs.promises.rm(path.join(wal, name));
    }
  }
  const segment = path.join(wal, current);
  await copySparse(segment, `${segment}.sparse`);
  await fs.promises.rename(`${segment}.sparse`, segment);
}

/**
 * Copies a file writing only its pages that hold anything: the rest stay holes (read back as zeros,
 * as PostgreSQL wrote them), at the same size.
 */
async function copySparse(from: string, to: string): Promise<void> {
  const data = await fs.promises.readFile(from);
  const target = await fs.promises.open(to, 'w');
  try {
    for (let offset = 0; offset < data.length; offset += pageBytes) {
      const page = data.subarray(offset, offset + pageBytes);
      if (!page.equals(zeroPage)) {
        await target.write(page, 0, page.length, offset);
      }
    }
    await target.truncate(data.length);
  } finally {
    await target.close();
  }
}

/** At most this many files are copied at once (libuv runs four at a time by default). */
const copyConcurrency = 16;

/**
 * Copies the built data directory (about 1,200 files): one recursive listing, the directories made
 * in order, then the files, a few at a time, each a copy-on-write clone where the file system offers
 * one. `fs.promises.cp` did the same with a stat or two per file in JavaScript, about three times
 * the CPU time. Asynchronous, so the server's modules load meanwhile (main.ts). WAL segments are
 * copied sparse (16 MB, nearly all zeros: pruneWal).
 */
async function copyDataDir(from: string, to: string): Promise<void> {
  const entries = await fs.promises.readdir(from, { recursive: true, withFileTypes: true });
  await fs.promises.mkdir(to, { recursive: true });
  const files: string[] = [];
  // A recursive listing names a directory before what is in it.
  for (const entry of entries) {
    const relative = path.relative(from, path.join(entry.parentPath, entry.name));
    if (entry.isDirectory()) {
      await fs.promises.mkdir(path.join(to, relative));
    } else if (entry.isFile()) {
      files.push(relative);
    } else {
      throw new Error(`unexpected entry in the built data directory: ${relative}`);
    }
  }
  let next = 0;
  const copyNext = async (): Promise<void> => {
    for (let index = next++; index < files.length; index = next++) {
      const relative = files[index] as string;
      const isSegment = path.basename(path.dirname(relative)) === 'pg_wal' && walSegmentName.test(path.basename(relative));
      await (isSegment ? copySparse(path.join(from, relative), path.join(to, relative)) : fs.promises.copyFile(path.join(from, relative), path.join(to, relative), fs.constants.COPYFILE_FICLONE));
    }
  };
  await Promise.all(Array.from({ length: copyConcurrency }, copyNext));
}

/**
 * A first start on an empty DATA_DIR copies the build's migrated data directory instead of running
 * initdb and every migration inside PGlite's WebAssembly, which took most of a first start (seconds;
 * a copy of the files takes a fraction of a second). Copied under another name and renamed, so an
 * interrupted copy is never taken for a database. The migrations still run after (a no-op check).
 * Without a build (or for another migration set) nothing is copied and PGlite runs initdb as before.
 * `builtDir`: the build's directory (null: none); by default the one `builtDataDir` names.
 */
export async function seedFromBuild(pgliteDataDir: string, builtDir?: string | null): Promise<boolean> {
  if (fs.existsSync(pgliteDataDir) && fs.readdirSync(pgliteDataDir).length > 0) {
    return false;
  }
  // Found only now: naming the build's directory hashes every migration file, which a restart (the
  // data directory is there) does not need.
  const built = builtDir === undefined ? builtDataDir() : builtDir;
  if (!built || !fs.existsSync(path.join(built, 'PG_VERSION'))) {
    return false;
  }
  const partial = `${pgliteDataDir}.partial`;
  await fs.promises.rm(partial, { recursive: true, force: true });
  await copyDataDir(built, partial);
  await fs.promises.rm(pgliteDataDir, { recursive: true, force: true });
  await fs.promises.rename(partial, pgliteDataDir);
  return true;
}
