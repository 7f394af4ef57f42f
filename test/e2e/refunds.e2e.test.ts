import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import type { AxeResults } from 'axe-core';
import { chromium, type Browser, type Page } from 'playwright-core';
import { createTestContext, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { paidPage, readPage, settleSandboxRefunds } from '../helpers/refunds.ts';

const artifacts = path.resolve('test-artifacts', 'refunds');
const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const wideElementsScript = `[...document.querySelectorAll('body *')]
  .filter((element) => !element.closest('.table-wrap, pre') && element.getBoundingClientRect().right > document.documentElement.clientWidth + 0.5)
  .map((element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : ''))`;

/** The refund form of the dashboard in a real browser, desktop and phone: screenshots, axe-core, no sideways scrolling. */
describe('dashboard refunds in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    fs.mkdirSync(artifacts, { recursive: true });
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    await context.app.listen({ port: 0, host: '127.0.0.1' });
    base = `http://127.0.0.1:${(context.app.server.address() as AddressInfo).port}`;
    browser = await chromium.launch({ executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium', headless: true, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  });
  after(async () => {
    await browser?.close();
    await context?.close();
  });

  async function check(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
    await page.evaluate(axeSource);
    const results = (await page.evaluate("axe.run(document, { resultTypes: ['violations'] })")) as AxeResults;
    assert.deepEqual(results.violations.map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`), [], `accessibility of ${name}`);
    assert.deepEqual(await page.evaluate(wideElementsScript), [], `${name}: nothing wider than the viewport`);
  }

  async function signIn(page: Page): Promise<void> {
    await page.goto(`${base}/dashboard`);
    await page.getByLabel('E-mail').fill(merchant.dashboardUser.email);
    await page.getByLabel('Password').fill(merchant.dashboardUser.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/sandbox`);
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}: refund part of a paid page, confirmed in the dialog; the refund is listed, then SUCCEEDED`, async () => {
      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await signIn(page);
      const paid = await paidPage(context, merchant, { amount: 4999, currency: 'EUR' });
      await page.goto(`${base}/dashboard/sandbox/payment-pages/${paid.id}`);
      await check(page, `${device}-1-paid-page`);
      await page.getByLabel('Amount (EUR)').fill('12.5');
      await page.getByLabel('Reason').selectOption('REQUESTED_BY_CUSTOMER');
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      // The dialog names the typed amount (as money) and the card; Escape changes nothing.
      const dialog = page.getByRole('dialog', { name: 'Refund this payment?' });
      assert.match(await dialog.innerText(), /12\.50 EUR will be sent back to the card \S+ [^.]*•••• \d{4} of \S+@\S+/);
      await check(page, `${device}-1b-refund-dialog`);
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.match(page.url(), new RegExp(`/payment-pages/${paid.id}$`), 'nothing was sent');
      assert.equal((await readPage(context, merchant, paid.id)).refundedAmount, 0);
      await page.getByRole('button', { name: 'Refund', exact: true }).click();
      await dialog.getByRole('button', { name: 'Make the refund' }).click();
      await page.waitForURL(/notice=refunded/);
      assert.match(await page.getByRole('status').first().innerText(), /The refund was made/);
      assert.equal((await readPage(context, merchant, paid.id)).refundedAmount, 1250);
      assert.equal(await page.getByLabel('Amount (EUR)').inputValue(), '37.49');
      await check(page, `${device}-2-refund-pending`);
      await settleSandboxRefunds(context);
      await page.reload();
      assert.match(await page.getByRole('region', { name: 'Refunds' }).innerText(), /Succeeded\s+12\.50 EUR/);
      await check(page, `${device}-3-refund-succeeded`);
      await page.context().close();
    });
  }
});
