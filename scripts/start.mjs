#!/usr/bin/env node
// `npm start`: the server from the compiled JavaScript in dist/ (tsx compiles every module at each
// start, which cost about a second). dist/ is built by `npm install` (`prepare`); when a file under
// src/ (or a tsconfig) is newer than the last build — after an edit, a pull or a branch switch — it is
// rebuilt first, so `npm start` never runs stale code. The check stats the source tree (milliseconds).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build, buildStamp } from './build.mjs';

const root = path.resolve(import.meta.dirname, '..');

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

const built = fs.existsSync(buildStamp) ? fs.statSync(buildStamp).mtimeMs : 0;
if (built < newestSourceChange()) {
  process.stderr.write('paysail: compiling src/ to dist/ (changed since the last build) …\n');
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paysail: ${error.message}\n`);
    process.exit(1);
  }
}
const { main } = await import(pathToFileURL(path.join(root, 'dist/src/main.js')).href);
await main();
