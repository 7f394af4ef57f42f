#!/usr/bin/env node
// `npm run build` (run by `npm install` as `prepare`, and by `npm start` when src/ changed since):
// bundles src/ with esbuild into dist/server/ (decision 0044), then makes the migrated PGlite data
// directory a first start copies (src/db/snapshot.ts) unless this migration set already has one.
// Type checking is `npm run typecheck` (tsc), as in development: the bundle only strips the types.
import fs from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';

const root = path.resolve(import.meta.dirname, '..');
const dist = path.join(root, 'dist');

/** The bundle `npm start` runs: main.js, the entry points below and their shared chunks. */
export const serverDir = path.join(dist, 'server');

/** Touched after a successful build: `npm start` rebuilds when a source is newer (scripts/start.mjs). */
export const buildStamp = path.join(dist, '.build-stamp');

function newestSourceChange() {
  let newest = 0;
  for (const file of [path.join(root, 'tsconfig.json'), path.join(root, 'package.json'), path.join(import.meta.dirname, 'build.mjs')]) {
    newest = Math.max(newest, fs.statSync(file).mtimeMs);
  }
  // One listing per directory (with the entries' types) and one stat per entry, the paths joined as
  // strings: a restart runs this, and the recursive `readdirSync` with `path.join` per entry cost
  // about four times the CPU (about 550 entries).
  const walk = (directory) => {
    // Directories too: a deleted or renamed file changes its directory's time.
    newest = Math.max(newest, fs.statSync(directory).mtimeMs);
    for (const entry of fs.readdirSync(directory, { withFileTypes: true })) {
      const entryPath = `${directory}${path.sep}${entry.name}`;
      if (entry.isDirectory()) {
        walk(entryPath);
      } else {
        newest = Math.max(newest, fs.statSync(entryPath).mtimeMs);
      }
    }
  };
  walk(path.join(root, 'src'));
  return newest;
}

/** Whether dist/ was built after the last change under src/ (a stat of each file: milliseconds). */
export function isBuildCurrent() {
  return fs.existsSync(buildStamp) && fs.statSync(buildStamp).mtimeMs >= newestSourceChange();
}

/**
 * Packages left out of the bundle and loaded from node_modules as before: PGlite finds its
 * WebAssembly and data files next to its own modules, argon2 is a native addon.
 */
// jsdom reads files next to itself at run time (and is loaded only on an SVG logo upload): left in node_modules with DOMPurify.
const external = ['@electric-sql/pglite', '@node-rs/argon2', 'jsdom', 'dompurify'];

/**
 * A bundled CommonJS file that reads files next to itself (`__dirname`: @fastify/swagger-ui's
 * static files, @fastify/swagger's package.json, pino's transport workers) gets its own directory
 * in node_modules back, found from the bundle's location at run time.
 */
function dirnamePlugin(outdir) {
  return {
    name: 'paysail-dirname',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/].*\.c?js$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        if (!/\b__(?:dirname|filename)\b/.test(text)) {
          return undefined;
        }
        const directory = JSON.stringify(path.relative(outdir, path.dirname(args.path)));
        const prefix = `var __dirname = __paysailPackageDir(${directory}), __filename = __paysailJoin(__dirname, ${JSON.stringify(path.basename(args.path))});`;
        return { contents: prefix + text, loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

/**
 * @fastify/cookie (CommonJS) loads `cookie` with `await import('cookie')`. In a split ESM bundle that
 * import becomes a chunk whose only export is `default` (the CommonJS `module.exports`), so
 * `cookieModule.stringifySetCookie` was undefined and every answer that sets a cookie (the
 * dashboard's sign-in page first) failed with a 500 under `npm start` only; tsx loads the package
 * as Node does. Bundled, it is a `require` of the same file. A version of the package that no longer
 * has that line fails the build, so the rewrite cannot silently stop applying.
 */
function cookieImportPlugin() {
  return {
    name: 'paysail-cookie-import',
    setup(build) {
      build.onLoad({ filter: /[\\/]node_modules[\\/]@fastify[\\/]cookie[\\/]index\.js$/ }, async (args) => {
        const text = await fs.promises.readFile(args.path, 'utf8');
        const dynamicImport = "cookieModule = await import('cookie')";
        if (!text.includes(dynamicImport)) {
          throw new Error(`${args.path}: "${dynamicImport}" not found; check how this version loads cookie`);
        }
        return { contents: text.replace(dynamicImport, "cookieModule = require('cookie')"), loader: 'js', resolveDir: path.dirname(args.path) };
      });
    },
  };
}

// In every output file: `require` for the bundled CommonJS packages' own `require` of Node's
// modules and of the packages loaded lazily (createRequire in src/), and the helper above.
const banner = [
  "import { createRequire as __paysailCreateRequire } from 'node:module';",
  "import { dirname as __paysailDirname, join as __paysailJoin, resolve as __paysailResolve } from 'node:path';",
  "import { fileURLToPath as __paysailFileURLToPath } from 'node:url';",
  'const require = __paysailCreateRequire(import.meta.url);',
  'const __paysailPackageDir = (relative) => __paysailResolve(__paysailDirname(__paysailFileURLToPath(import.meta.url)), relative);',
].join(' ');

async function bundle() {
  const esbuild = await import('esbuild');
  const outdir = serverDir;
  await fs.promises.rm(outdir, { recursive: true, force: true });
  await esbuild.build({
    absWorkingDir: root,
    // main: the server; cli: the operator CLI (bin/paysail.mjs). database and snapshot: what this build needs for the migrated data directory.
    entryPoints: { main: 'src/main.ts', cli: 'src/cli.ts', database: 'src/db/client.ts', snapshot: 'src/db/snapshot.ts' },
    outdir,
    bundle: true,
    // The modules main.ts imports only when needed (the app beside the database open, the backup
    // socket, PGlite's migrator) stay separate files, loaded as before.
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    external,
    plugins: [cookieImportPlugin(), dirnamePlugin(outdir)],
    banner: { js: banner },
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

export async function build() {
  await bundle();
  const { builtDataDir, compactWal, pruneWal } = await import(pathToFileURL(path.join(serverDir, 'snapshot.js')).href);
  const target = builtDataDir();
  if (target && !fs.existsSync(path.join(target, 'PG_VERSION'))) {
    const { migrateDatabase, openPglite } = await import(pathToFileURL(path.join(serverDir, 'database.js')).href);
    const work = path.join(dist, `.pglite-build-${process.pid}`);
    const database = await openPglite({ dataDir: work });
    await migrateDatabase(database);
    const segment = await compactWal(database.client);
    await database.close();
    await pruneWal(path.join(work, 'pglite'), segment);
    // Those of older migration sets go; the new one appears whole (rename) or not at all.
    for (const old of fs.readdirSync(dist).filter((name) => name.startsWith('pglite-'))) {
      fs.rmSync(path.join(dist, old), { recursive: true, force: true });
    }
    fs.renameSync(path.join(work, 'pglite'), target);
    fs.rmSync(work, { recursive: true, force: true });
  }
  // What tsc's build left (before the bundle): nothing runs it any more.
  for (const old of ['src', '.tsbuildinfo']) {
    fs.rmSync(path.join(dist, old), { recursive: true, force: true });
  }
  const now = new Date();
  fs.writeFileSync(buildStamp, '');
  fs.utimesSync(buildStamp, now, now);
}

/** A build lock older than this was left by a killed build and is taken over. */
const staleLockMs = 120_000;

/**
 * Rebuilds dist/ when it is older than src/, one builder at a time: processes started together (a
 * server and CLI commands, the test suite's processes) wait for the one that builds instead of
 * rewriting dist/ under each other.
 */
export async function ensureBuilt({ announce = true } = {}) {
  const lock = path.join(path.dirname(serverDir), '.build-lock');
  while (!isBuildCurrent()) {
    fs.mkdirSync(path.dirname(lock), { recursive: true });
    try {
      fs.mkdirSync(lock);
    } catch {
      if (Date.now() - (fs.statSync(lock, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > staleLockMs) {
        fs.rmSync(lock, { recursive: true, force: true });
      }
      await sleep(250);
      continue;
    }
    try {
      if (!isBuildCurrent()) {
        if (announce) {
          process.stderr.write('paysail: building dist/ (src/ changed since the last build) …\n');
        }
        await build();
      }
    } finally {
      fs.rmSync(lock, { recursive: true, force: true });
    }
  }
}

if (import.meta.url === pathToFileURL(path.resolve(process.argv[1] ?? '')).href) {
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paysail build: ${error.message}\n`);
    process.exit(1);
  }
}
