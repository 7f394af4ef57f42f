// What `npm start` (scripts/start.mjs) and the operator CLI (bin/paysail.mjs) do before running
// their entry point from the bundle in dist/server/ (decision 0044): V8's compile cache, PGlite's
// WebAssembly tiering budget, and a rebuild first when src/ changed since the last build.
import module from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { ensureBuilt, serverDir } from './build.mjs';

// Node 22.1+: V8's compiled code of the bundle is kept on disk (in the system's temporary directory)
// and reused by the next start; Node 20 has no such cache and skips this.
module.enableCompileCache?.();

// PGlite's WebAssembly (9 MB of PostgreSQL) starts in V8's baseline compiler and a function is
// recompiled by the optimising one once it has run for this budget (about bytes executed; V8's
// default 1,800,000). With the default, the functions PostgreSQL's own start runs were optimised at
// once: about 0.4 CPU-s of compilation (in background threads) during every start. A hundred times
// the budget leaves them to the baseline code; what stays hot in service is still optimised
// (decision 0051). Set before PGlite compiles its module.
v8.setFlagsFromString('--wasm-tiering-budget=180000000');

/** Builds if needed, then imports `entry` (a file of dist/server/); exits with a message if the build fails. */
export async function launch(entry) {
  try {
    await ensureBuilt();
  } catch (error) {
    process.stderr.write(`paysail: ${error.message}\n`);
    process.exit(1);
  }
  return import(pathToFileURL(path.join(serverDir, entry)).href);
}
