import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { createTestContext, json } from '../helpers/context.ts';
import { guideEntries, guideFile, guidesFolder } from '../../src/modules/docs/guides.ts';
import { configDocumentation } from '../../src/config/index.ts';
import { sandboxTestCards } from '../../src/modules/card-processor/sandbox.ts';
import { sandboxBinTable } from '../../src/modules/card-processor/bin-table.ts';
import { extractExamples, readGuideSources } from './doc-examples.ts';

/** The documentation site: every guide renders, every link on it resolves, the reference answers. */

const context = await createTestContext();
after(async () => context.close());

function decodeEntities(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function hrefsOf(html: string): string[] {
  return [...html.matchAll(/\shref="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? ''));
}

function idsOf(html: string): Set<string> {
  return new Set([...html.matchAll(/\sid="([^"]*)"/g)].map((match) => decodeEntities(match[1] ?? '')));
}

async function get(url: string) {
  return context.app.inject({ method: 'GET', url });
}

describe('documentation at /docs', () => {
  test('every listed guide exists (docs/guides, and docs/cli.md)', () => {
    for (const entry of guideEntries) {
      assert.ok(fs.existsSync(guideFile(entry)), `${path.relative(path.resolve(guidesFolder, '../..'), guideFile(entry))} exists`);
    }
    assert.ok(guideEntries.some((entry) => entry.slug === 'cli' && guideFile(entry) === path.resolve(guidesFolder, '../cli.md')), 'the CLI reference is served as a guide');
  });

  test('/docs is an HTML index of every guide and the API reference, under the pages’ strict CSP', async () => {
    const response = await get('/docs');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
    const hrefs = hrefsOf(response.body);
    for (const entry of guideEntries) {
      assert.ok(hrefs.includes(`/docs/guides/${entry.slug}`), `the index links ${entry.slug}`);
    }
    assert.ok(hrefs.includes('/docs/reference'), 'the index links the API reference');
    assert.ok(hrefs.includes('/openapi.json'), 'the index links the OpenAPI document');
  });

  test('every guide renders, and every link on the site resolves (pages and anchors)', async () => {
    const pages = new Map<string, string>();
    const index = await get('/docs');
    pages.set('/docs', index.body);
    for (const entry of guideEntries) {
      const url = `/docs/guides/${entry.slug}`;
      const response = await get(url);
      assert.equal(response.statusCode, 200, url);
      assert.match(response.body, /<h1 id="[^"]+">/, `${url} has a title`);
      assert.doesNotMatch(response.body, /<!--|-->/, `${url} shows no HTML comments`);
      pages.set(url, response.body);
    }
    const checked = new Set<string>();
    for (const [page, html] of pages) {
      for (const href of hrefsOf(html)) {
        if (/^(https?:|mailto:)/.test(href)) {
          continue;
        }
        const [target = '', fragment] = href.split('#');
        const pathname = target === '' ? page : target;
        assert.ok(pathname.startsWith('/'), `${page}: link ${href} is absolute on this site`);
        let body = pages.get(pathname);
        if (body === undefined && !checked.has(pathname)) {
          const response = await get(pathname);
          assert.equal(response.statusCode, 200, `${page}: link ${href} answers 200`);
          checked.add(pathname);
          body = response.body;
        }
        if (fragment && body !== undefined && pages.has(pathname)) {
          assert.ok(idsOf(body).has(fragment), `${page}: anchor #${fragment} exists on ${pathname}`);
        }
      }
    }
  });

  test('an unknown guide is an HTML 404 page', async () => {
    const response = await get('/docs/guides/no-such-guide');
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^text\/html/);
  });

  test('the API reference is at /docs/reference and the OpenAPI document at /openapi.json', async () => {
    const reference = await get('/docs/reference');
    assert.equal(reference.statusCode, 200);
    assert.match(String(reference.headers['content-type']), /^text\/html/);
    assert.match(reference.body, /swagger/i);
    const document = await get('/openapi.json');
    assert.equal(document.statusCode, 200);
    assert.ok(json<{ paths: Record<string, unknown> }>(document).paths['/v1/payout_pages'], 'the document lists the API');
    const uiDocument = await get('/docs/reference/json');
    assert.equal(uiDocument.statusCode, 200, 'Swagger UI loads the same document');
    assert.deepEqual(Object.keys(json<{ paths: Record<string, unknown> }>(uiDocument).paths), Object.keys(json<{ paths: Record<string, unknown> }>(document).paths));
  });
});

describe('the guides match the code', () => {
  const read = (slug: string) => fs.readFileSync(path.join(guidesFolder, `${slug}.md`), 'utf8');

  test('the sandbox guide lists every test card and every BIN range', () => {
    const sandbox = read('sandbox');
    for (const [number, behaviour] of Object.entries(sandboxTestCards)) {
      assert.ok(sandbox.includes(`\`${number}\``), `test card ${number}`);
      if (behaviour.outcome === 'decline') {
        assert.ok(sandbox.includes(`\`${number}\` | declined: \`${behaviour.declineReason}\``), `${number} declines with ${behaviour.declineReason}`);
      }
    }
    for (const entry of sandboxBinTable) {
      const [low, high] = entry.range;
      const row = sandbox.split('\n').find((line) => line.startsWith('|') && (low === high ? line.includes(`\`${low}\``) : line.includes(`\`${low}\`–\`${high}\``)));
      assert.ok(row, `BIN ${low}${low === high ? '' : `–${high}`} is listed`);
      assert.ok(row.includes(entry.scheme) && row.includes(entry.cardType) && row.includes(entry.issuer), `BIN ${low}: ${entry.scheme} ${entry.cardType} ${entry.issuer}`);
    }
  });

  test('the configuration guide names every variable the configuration reads', () => {
    const guide = read('configuration');
    const source = fs.readFileSync(path.resolve(guidesFolder, '../../src/config/index.ts'), 'utf8');
    const read_ = new Set([...source.matchAll(/\benv(?:\.|, ')([A-Z][A-Z0-9_]+)/g)].map((match) => match[1] ?? ''));
    for (const entry of configDocumentation) {
      read_.add(entry.name);
    }
    assert.ok(read_.size >= 20, `found the variables (${[...read_].join(', ')})`);
    for (const name of read_) {
      assert.ok(guide.includes(`| \`${name}\` |`), `${name} has a row in docs/guides/configuration.md`);
    }
  });

  test('every shell and TypeScript block is run as an example, or says why not', () => {
    for (const { guide, source } of readGuideSources(guidesFolder)) {
      for (const block of extractExamples(guide, source).unmarked) {
        if (['sh', 'bash', 'shell', 'ts', 'typescript', 'js'].includes(block.language)) {
          assert.ok(block.notExecutedReason, `${guide}.md:${block.line}: a ${block.language} block is marked \`example\` or preceded by <!-- not-executed: why -->`);
        }
      }
    }
  });
});
