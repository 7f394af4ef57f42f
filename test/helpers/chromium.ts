import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import path from 'node:path';
import { assertNoSeriousAxeViolations, assertServedHtmlHasNoSeriousAxeViolations } from './axe.ts';
import { createTestContext, type TestContext, type TestContextOptions, type TestMerchant } from './context.ts';

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

/** Signs `merchant`'s dashboard user in through the sign-in form; lands on the sandbox overview. */
export async function signInToDashboard(page: Page, base: string, merchant: TestMerchant): Promise<void> {
  await page.goto(`${base}/dashboard`);
  await page.getByLabel('E-mail').fill(merchant.dashboardUser.email);
  await page.getByLabel('Password').fill(merchant.dashboardUser.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${base}/dashboard/sandbox`);
}

/**
 * A screenshot of `page` into `artifacts` as `name`.png, then axe-core: no serious or critical
 * violation in the page, or, for a page shown without JavaScript, in its HTML as `served`.
 */
export async function shootAndCheckAxe(browser: Browser, page: Page, artifacts: string, name: string, served?: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: options.fullPage ?? false });
  if (served === undefined) {
    await assertNoSeriousAxeViolations(page, name);
  } else {
    await assertServedHtmlHasNoSeriousAxeViolations(browser, page, served, name);
  }
}
