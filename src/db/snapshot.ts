import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
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
 * A first start on an empty DATA_DIR unpacks it instead of running initdb and every migration,
 * which took most of the first start (seconds).
 */
export function builtSnapshotFile(): string | null {
  const version = pgliteVersion();
  return version ? path.join(packageRoot, 'dist', `pglite-${version}-${migrationsHash()}.tar.gz`) : null;
}

/** The built snapshot for a PGlite data directory that holds no database yet, if there is one. */
export function builtSnapshotFor(pgliteDataDir: string): Blob | undefined {
  if (fs.existsSync(path.join(pgliteDataDir, 'PG_VERSION'))) {
    return undefined;
  }
  const file = builtSnapshotFile();
  if (!file || !fs.existsSync(file)) {
    return undefined;
  }
  return new Blob([fs.readFileSync(file)], { type: 'application/x-gzip' });
}
