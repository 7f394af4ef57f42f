#!/usr/bin/env node
// `npm start`: the server from the bundle in dist/server/ (scripts/build.mjs, decision 0044; tsx
// compiled every module at each start, and loading about 850 separate modules cost most of the rest).
// dist/ is built by `npm install` (`prepare`); when a file under src/ (or a tsconfig, package.json or
// the build script) is newer than the last build — after an edit, a pull or a branch switch — it is
// rebuilt first, so `npm start` never runs stale code. The check stats the source tree (milliseconds).
import module from 'node:module';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import v8 from 'node:v8';
import { build, isBuildCurrent, serverDir } from './build.mjs';

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

if (!isBuildCurrent()) {
  process.stderr.write('paysail: building dist/ (src/ changed since the last build) …\n');
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paysail: ${error.message}\n`);
    process.exit(1);
  }
}
const { main } = await import(pathToFileURL(path.join(serverDir, 'main.js')).href);
await main();
