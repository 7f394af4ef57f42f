import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import type { AxeResults, Result } from 'axe-core';
import type { Browser, Page } from 'playwright-core';

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's violations in the page, each as `rule (impact): elements`, those `counts` keeps (all
 * by default). axe is evaluated through the DevTools protocol, which the page's CSP does not govern
 * (an injected <script> would be refused: every script needs the response's nonce).
 */
export async function axeViolations(page: Page, counts: (violation: Result) => boolean = () => true): Promise<string[]> {
  await page.evaluate(axeSource);
  const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResults;
  return results.violations.filter(counts).map((violation) => `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/** Fails on any axe-core violation, whatever its impact, but those of the `allowed` rules. */
export async function assertNoAxeViolations(page: Page, name: string, allowed: ReadonlyMap<string, string> = new Map()): Promise<void> {
  assert.deepEqual(await axeViolations(page, (violation) => !allowed.has(violation.id)), [], `accessibility of ${name}`);
}

/** Fails on any serious or critical axe-core violation, naming the rule and the elements. */
export async function assertNoSeriousAxeViolations(page: Page, name: string): Promise<void> {
  assert.deepEqual(await axeViolations(page, (violation) => violation.impact === 'serious' || violation.impact === 'critical'), [], `accessibility of ${name}`);
}

/**
 * The same for a page as served without JavaScript (axe cannot run there): its HTML is checked in a
 * new page of `browser` with `page`'s viewport, which can.
 */
export async function assertServedHtmlHasNoSeriousAxeViolations(browser: Browser, page: Page, served: string, name: string): Promise<void> {
  const probe = await browser.newPage({ viewport: page.viewportSize() ?? { width: 1440, height: 900 } });
  try {
    await probe.setContent(served);
    await assertNoSeriousAxeViolations(probe, name);
  } finally {
    await probe.close();
  }
}
