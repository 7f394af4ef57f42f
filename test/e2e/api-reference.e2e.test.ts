import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { closeBrowserTest, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { staticPageContentSecurityPolicy } from '../../src/web/security.ts';

const artifacts = path.resolve('test-artifacts', 'docs');

/**
 * The API reference (Swagger UI, static files that cannot carry a nonce) is served under the same
 * strict policy as every other page, with 'self' in place of the nonce, and still works: in
 * chromium it renders the document and no script is refused. (Swagger UI sets one inline style, a
 * focus outline on its main element; the policy refuses it, as intended, and nothing else depends on it.)
 */
describe('API reference under the pages’ CSP', { timeout: 120_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
  });
  after(async () => {
    await closeBrowserTest({ browser, context });
  });

  test('every response of /docs/reference carries the CSP, frame-ancestors none and X-Frame-Options DENY', async () => {
    for (const url of ['/docs/reference', '/docs/reference/', '/docs/reference/static/swagger-initializer.js', '/docs/reference/static/swagger-ui.css', '/docs/reference/json']) {
      const response = await context.app.inject({ method: 'GET', url });
      assert.ok(response.statusCode < 400, `${url}: ${response.statusCode}`);
      assert.equal(response.headers['content-security-policy'], staticPageContentSecurityPolicy, url);
      assert.match(String(response.headers['content-security-policy']), /frame-ancestors 'none'/);
      assert.doesNotMatch(String(response.headers['content-security-policy']), /unsafe-inline|unsafe-eval/);
      assert.equal(response.headers['x-frame-options'], 'DENY', url);
      assert.equal(response.headers['x-content-type-options'], 'nosniff', url);
    }
    const docs = await context.app.inject({ method: 'GET', url: '/docs' });
    assert.match(String(docs.headers['content-security-policy']), /frame-ancestors 'none'/);
    assert.equal(docs.headers['x-frame-options'], 'DENY');
  });

  test('in chromium the reference renders the API; no script or resource is refused (desktop and phone)', async () => {
    for (const viewport of [{ width: 1440, height: 900 }, { width: 390, height: 844 }]) {
      const page = await browser.newPage({ viewport });
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text()) && !/^Applying inline style violates/.test(message.text())) {
          violations.push(message.text());
        }
      });
      await page.goto(`${base}/docs/reference`);
      await page.locator('.swagger-ui .info .title').waitFor({ timeout: 30_000 });
      assert.match((await page.locator('.swagger-ui .info .title').textContent()) ?? '', /Paysail API/);
      await page.locator('.opblock-summary-path', { hasText: '/v1/customers' }).first().waitFor({ timeout: 30_000 });
      await page.screenshot({ path: path.join(artifacts, `reference-${viewport.width}.png`), fullPage: false });
      assert.deepEqual(violations, [], `no script or resource refused at ${viewport.width} px`);
      await page.close();
    }
  });
});
