/**
 * `npm run lint:openapi`: lints the document the app serves at `/openapi.json` (built on a
 * throw-away database) with `@redocly/cli lint` and the committed `redocly.yaml` (the recommended
 * ruleset). Fails on any error *or warning*: Redocly itself only fails on errors.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { fetchServedDocument } from './openapi-document.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const directory = fs.mkdtempSync(path.join(os.tmpdir(), 'paysail-openapi-'));
const file = path.join(directory, 'openapi.json');
fs.writeFileSync(file, await fetchServedDocument());

function redocly(format: 'json' | 'stylish'): { status: number | null; stdout: string; stderr: string } {
  const result = spawnSync('redocly', ['lint', '--config', path.join(root, 'redocly.yaml'), `--format=${format}`, file], {
    cwd: root,
    encoding: 'utf8',
    shell: false,
    // No usage report and no update check: CI and developers' runs stay offline.
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
  });
  if (result.error) {
    throw result.error;
  }
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

try {
  const json = redocly('json');
  const report = JSON.parse(json.stdout) as { totals?: { errors: number; warnings: number } };
  const totals = report.totals ?? { errors: Number.NaN, warnings: Number.NaN };
  if (totals.errors === 0 && totals.warnings === 0) {
    process.stdout.write('OpenAPI document (served /openapi.json): redocly lint, recommended ruleset — 0 errors, 0 warnings\n');
  } else {
    const stylish = redocly('stylish');
    process.stderr.write(`${stylish.stdout}${stylish.stderr}\nOpenAPI document: ${totals.errors} errors, ${totals.warnings} warnings (redocly lint, recommended); none are allowed\n`);
    process.exitCode = 1;
  }
} finally {
  fs.rmSync(directory, { recursive: true, force: true });
}
