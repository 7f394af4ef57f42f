#!/usr/bin/env node
// `npm start`: the server from the bundle in dist/server/ (scripts/build.mjs, decision 0044; tsx
// compiled every module at each start, and loading about 850 separate modules cost most of the rest).
// dist/ is built by `npm install` (`prepare`); when a file under src/ (or a tsconfig, package.json or
// the build script) is newer than the last build — after an edit, a pull or a branch switch — it is
// rebuilt first, so `npm start` never runs stale code (scripts/launch.mjs).
import { launch } from './launch.mjs';

const { main } = await launch('main.js');
await main();
