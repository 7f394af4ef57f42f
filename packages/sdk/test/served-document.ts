import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { renderGeneratedSources } from '../scripts/sources.ts';
import { pinServedDocument, serializeDocument } from '../scripts/openapi-document.ts';
import { documentPath, generatedDirectory } from '../scripts/paths.ts';

const regenerate = 'run `npm run generate -w @paysail/sdk` and commit the result';

/** The first JSON path where two values differ, for a readable failure instead of a 300 KB diff. */
export function firstDifference(left: unknown, right: unknown, at = '$'): string | undefined {
  if (typeof left !== typeof right || Array.isArray(left) !== Array.isArray(right) || (left === null) !== (right === null)) {
    return at;
  }
  if (typeof left !== 'object' || left === null) {
    return left === right ? undefined : at;
  }
  const a = left as Record<string, unknown>;
  const b = right as Record<string, unknown>;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const found = firstDifference(a[key], b[key], `${at}.${key}`);
    if (found) {
      return found;
    }
  }
  return undefined;
}

/**
 * The SDK cannot drift from the server at `baseUrl`: GET /openapi.json over HTTP is, byte for byte
 * once pinned, the committed `openapi.json`, and openapi-typescript (with the operation table) makes
 * of it exactly the committed `src/generated/`. `npm run typecheck` compiles the client against
 * those files, so in CI the client compiles against the document the server serves.
 */
export async function assertSdkMatchesServedDocument(baseUrl: string): Promise<void> {
  const response = await fetch(`${baseUrl}/openapi.json`);
  assert.equal(response.status, 200);
  const served = pinServedDocument(await response.json());
  const committedText = fs.readFileSync(documentPath, 'utf8');
  const difference = firstDifference(served, JSON.parse(committedText));
  assert.equal(difference, undefined, `packages/sdk/openapi.json differs from the served document at ${difference}; ${regenerate}`);
  // Member order too: the committed file is byte for byte the serialized served document.
  assert.ok(serializeDocument(served) === committedText, `packages/sdk/openapi.json is not the serialized served document; ${regenerate}`);

  const expected = await renderGeneratedSources(served);
  assert.deepEqual(fs.readdirSync(generatedDirectory).sort(), [...expected.keys()].sort(), `unexpected files in src/generated; ${regenerate}`);
  for (const [name, text] of expected) {
    assert.ok(fs.readFileSync(path.join(generatedDirectory, name), 'utf8') === text, `src/generated/${name} is not what openapi-typescript makes of the served document; ${regenerate}`);
  }
}
