#!/usr/bin/env node
// `npm run build` (run by `npm install` as `prepare`, and by `npm start` when src/ changed since):
// compiles src/ to dist/ with tsc (tsconfig.build.json), then writes the migrated PGlite data
// directory a first start unpacks (src/db/snapshot.ts) unless this migration set already has one.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

/** Touched after a successful build: `npm start` rebuilds when a source is newer (scripts/start.mjs). */
export const buildStamp = path.join(dist, '.build-stamp');

export async function build() {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const compiled = spawnSync(process.execPath, [tsc, '-p', path.join(root, 'tsconfig.build.json')], { cwd: root, stdio: 'inherit' });
  if (compiled.status !== 0) {
    throw new Error(`tsc -p tsconfig.build.json failed (exit ${compiled.status ?? compiled.signal})`);
  }
  const { builtSnapshotFile } = await import(pathToFileURL(path.join(dist, 'src/db/snapshot.js')).href);
  const file = builtSnapshotFile();
  if (file && !fs.existsSync(file)) {
    const { migrateDatabase, openPglite } = await import(pathToFileURL(path.join(dist, 'src/db/client.js')).href);
    const database = await openPglite({});
    await migrateDatabase(database);
    const dump = await database.client.dumpDataDir('gzip');
    await database.close();
    // Snapshots of older migration sets go; the new one appears whole (rename) or not at all.
    for (const old of fs.readdirSync(dist).filter((name) => /^pglite-.*\.tar\.gz$/.test(name))) {
      fs.rmSync(path.join(dist, old), { force: true });
    }
    fs.writeFileSync(`${file}.${process.pid}`, Buffer.from(await dump.arrayBuffer()));
    fs.renameSync(`${file}.${process.pid}`, file);
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
