#!/usr/bin/env node
// `npx paysail …`: the operator CLI (src/cli.ts), run through tsx so no build step is needed.
import { register } from 'tsx/esm/api';

register();
await import('../src/cli.ts');
