#!/usr/bin/env node
// `npm start`: the server from the compiled JavaScript in dist/ (tsx compiles every module at each
// start, which cost about a second). dist/ is built by `npm install` (`prepare`); when a file under
// src/ (or a tsconfig) is newer than the last build — after an edit, a pull or a branch switch — it is
// rebuilt first, so `npm start` never runs stale code. The check stats the source tree (milliseconds).
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { build, isBuildCurrent } from './build.mjs';

if (!isBuildCurrent()) {
  process.stderr.write('paysail: compiling src/ to dist/ (changed since the last build) …\n');
  try {
    await build();
  } catch (error) {
    process.stderr.write(`paysail: ${error.message}\n`);
    process.exit(1);
  }
}
const { main } = await import(pathToFileURL(path.resolve(import.meta.dirname, '../dist/src/main.js')).href);
await main();
