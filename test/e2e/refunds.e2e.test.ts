import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { assertNoAxeViolations } from '../helpers/axe.ts';
import { closeBrowserTest, elementsWiderThanViewport, signInToDashboard, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { paidPage, readPage, settleSandboxRefunds } from '../helpers/refunds.ts';

const artifacts = path.resolve('test-artifacts', 'refunds');

/** The refund form of the dashboard in a real browser, desktop and phone: screenshots, axe-core, no sideways scrolling. */
describe('dashboard refunds in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
  });
  after(async () => {
    await closeBrowserTest({ browser, context });
  });

  async function check(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(artifacts, `${name}.png`), fullPage: true });
    await assertNoAxeViolations(page, name);
    assert.deepEqual(await elementsWiderThanViewport(page), [], `${name}: nothing wider than the viewport`);
  }

  const signIn = (page: Page) => signInToDashboard(page, base, merchant);

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
