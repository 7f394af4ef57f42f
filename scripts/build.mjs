#!/usr/bin/env node
// `npm run build` (run by `npm install` as `prepare`, and by `npm start` when src/ changed since):
// compiles src/ to dist/ with tsc (tsconfig.build.json), then makes the migrated PGlite data
// directory a first start copies (src/db/snapshot.ts) unless this migration set already has one.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

/** Touched after a successful build: `npm start` rebuilds when a source is newer (scripts/start.mjs). */
export const buildStamp = path.join(dist, '.build-stamp');

function newestSourceChange() {
  let newest = 0;
  const sources = [path.join(root, 'tsconfig.json'), path.join(root, 'tsconfig.build.json'), path.join(root, 'src')];
  for (const entry of fs.readdirSync(path.join(root, 'src'), { recursive: true })) {
    sources.push(path.join(root, 'src', String(entry)));
  }
  for (const source of sources) {
    // Directories too: a deleted or renamed file changes its directory's time.
    newest = Math.max(newest, fs.statSync(source).mtimeMs);
  }
  return newest;
}

/** Whether dist/ was built after the last change under src/ (a stat of each file: milliseconds). */
export function isBuildCurrent() {
  return fs.existsSync(buildStamp) && fs.statSync(buildStamp).mtimeMs >= newestSourceChange();
}

export async function build() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) {
    throw new Error(`tsc -p tsconfig.build.json failed (exit ${compiled.status ?? compiled.signal})`);
  }
  const { builtDataDir } = await import(pathToFileURL(path.join(dist, 'src/db/snapshot.js')).href);
  const target = builtDataDir();
  if (target && !fs.existsSync(path.join(target, 'PG_VERSION'))) {
    const { migrateDatabase, openPglite } = await import(pathToFileURL(path.join(dist, 'src/db/client.js')).href);
    const work = path.join(dist, `.pglite-build-${process.pid}`);
    const database = await openPglite({ dataDir: work });
    await migrateDatabase(database);
    await database.close();
    // Those of older migration sets go; the new one appears whole (rename) or not at all.
    for (const old of fs.readdirSync(dist).filter((name) => name.startsWith('pglite-'))) {
      fs.rmSync(path.join(dist, old), { recursive: true, force: true });
    }
    fs.renameSync(path.join(work, 'pglite'), target);
    fs.rmSync(work, { recursive: true, force: true });
  }
  const now = new Date();
  fs.writeFileSync(buildStamp, '');
  fs.utimesSync(buildStamp, now, now);
}

if (import.meta.url === pathToFileURL(path.resolve(process.argv[1] ?? '')).href) {
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paysail build: ${error.message}\n`);
    process.exit(1);
  }
}
