import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestContext, type TestContext, type TestContextOptions } from './context.ts';

/**
 * Headless Debian chromium (`CHROMIUM_PATH`, default /usr/bin/chromium) through playwright-core:
 * no sandbox (tests run as root in CI), no GPU, nothing fetched in the background.
 */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** The app of `context` listening on a free loopback port; its base URL. */
export async function listenOnLoopback(context: TestContext): Promise<string> {
  await context.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(context.app.server.address() as AddressInfo).port}`;
}

export interface BrowserTest {
  context: TestContext;
  browser: Browser;
  /** The app's base URL on loopback. */
  base: string;
}

/**
 * What a browser test's `before` opens: its screenshots folder, a test context (`options` as
 * createTestContext's) listening on loopback, and chromium. `closeBrowserTest` in `after` closes it.
 */
export async function startBrowserTest(artifacts: string, options: TestContextOptions = {}): Promise<BrowserTest> {
  fs.mkdirSync(artifacts, { recursive: true });
  const context = await createTestContext(options);
  const base = await listenOnLoopback(context);
  return { context, base, browser: await launchChromium() };
}

/** Closes chromium, then the test context (either may be missing when `before` failed half-way). */
export async function closeBrowserTest(opened: { browser?: Browser | undefined; context?: TestContext | undefined }): Promise<void> {
  await opened.browser?.close();
  await opened.context?.close();
}

/** The merchant's own site on loopback, where a customer returns from a hosted page: every path answers a page naming it. */
export async function startShop(): Promise<{ url: string; close(): Promise<void> }> {
  const shop = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    response.end(`<!doctype html><title>Shop</title><h1 id="shop">Back at the shop: ${request.url ?? ''}</h1>`);
  });
  await new Promise<void>((resolve) => shop.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(shop.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => shop.close(() => resolve())),
  };
}

/** The elements (tag#id.class, the last eight) whose right edge passes the viewport, outside `.table-wrap` and `pre` scroll regions. */
export function elementsWiderThanViewport(page: Page): Promise<string[]> {
  return page.evaluate(`[...document.querySelectorAll('body *')]
  .filter((element) => !element.closest('.table-wrap, pre') && element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .slice(-8)
  .map((element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + (element.className && typeof element.className === 'string' ? '.' + element.className.split(' ').join('.') : ''))`) as Promise<string[]>;
}
