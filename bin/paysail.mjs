#!/usr/bin/env node
// `npx paysail …`: the operator CLI (src/cli.ts) from the bundle in dist/server/, as `npm start` runs
// the server (scripts/launch.mjs: rebuilt first when src/ changed since the last build). Through
// tsx each command compiled every module it loads first: about 2 CPU-seconds before any work.
import { launch } from '../scripts/launch.mjs';

await launch('cli.js');
