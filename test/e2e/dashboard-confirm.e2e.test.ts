import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserTest, shootAndCheckAxe, signInToDashboard, startBrowserTest } from '../helpers/chromium.ts';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { payoutAwaitingRelease } from '../http/dashboard/fixtures.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard-confirm');

/**
 * Issue 16 item 8 in a real browser (Debian chromium through playwright-core): releasing a payout
 * asks first. With JavaScript a modal dialog names the amount, the payee and the account (Escape and
 * Cancel change nothing, focus returns to the button, Confirm releases); without JavaScript the form
 * posts to the confirmation page, which does the same. axe-core: no serious or critical violation.
 */
describe('dashboard confirmation dialog and page in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
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

  /** The payout page's status and sub-status as the API answers them. */
  async function subStatus(id: string): Promise<string> {
    const response = await context.request({ method: 'GET', url: `/v1/payout_pages/${id}`, apiKey: merchant.apiKey });
    const { data } = json<{ data: { status: string; 'sub-status': string } }>(response);
    return data.status === 'PENDING' ? data['sub-status'] : data.status;
  }

  const check = (page: Page, name: string, served?: string) => shootAndCheckAxe(browser, page, artifacts, name, served);

  const signIn = (page: Page) => signInToDashboard(page, base, merchant);

  const says = /^123\.45 USDC will be paid to payee@example\.com \(customer \S+\) by bank transfer to account …6789\. Once released, the payout cannot be stopped or undone\.$/;

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}, with JavaScript: the dialog names the amount and the payee; Escape and Cancel change nothing; Confirm releases`, async () => {
      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await signIn(page);
      const payout = await payoutAwaitingRelease(context, merchant);
      const url = `${base}/dashboard/sandbox/payout-pages/${payout.id}`;
      await page.goto(url);
      const release = page.getByRole('button', { name: 'Release payout' });
      assert.equal(await page.getByRole('dialog').count(), 0, 'no dialog until asked');

      await release.click();
      const dialog = page.getByRole('dialog', { name: 'Release this payout?' });
      await dialog.waitFor();
      assert.match((await dialog.locator('p').innerText()).trim(), says);
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Cancel', 'the safe choice has the focus');
      assert.equal(await page.evaluate(`document.querySelector('dialog[open]').matches(':modal')`), true, 'modal: the page behind is inert');
      assert.equal(page.url(), url, 'nothing was posted');
      await check(page, `${device}-1-dialog`);

      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Release payout', 'focus returns to the button');
      assert.equal(await subStatus(payout.id), 'AWAITING_RELEASE');

      await release.click();
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      assert.equal(page.url(), url);
      assert.equal(await subStatus(payout.id), 'AWAITING_RELEASE');

      await release.click();
      await dialog.getByRole('button', { name: 'Release 123.45 USDC' }).click();
      await page.waitForURL(/notice=released/);
      assert.match(await page.getByRole('status').first().innerText(), /The payout was released and is being processed/);
      assert.equal(await subStatus(payout.id), 'PROCESSING');
      await page.context().close();
    });

    test(`${device}, without JavaScript: the confirmation page says the same; Cancel goes back; Confirm releases`, async () => {
      const page = await (await browser.newContext({ viewport, locale: 'en-US', javaScriptEnabled: false })).newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page);
      const payout = await payoutAwaitingRelease(context, merchant);
      const url = `${base}/dashboard/sandbox/payout-pages/${payout.id}`;
      await page.goto(url);
      const served = page.waitForResponse((response) => response.url() === `${url}/release` && response.request().method() === 'POST');
      await page.getByRole('button', { name: 'Release payout' }).click();
      await page.waitForURL(`${url}/release`);
      const html = await (await served).text();
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Release this payout?');
      assert.match((await page.locator('#confirm-text').innerText()).trim(), says);
      assert.equal(await subStatus(payout.id), 'AWAITING_RELEASE', 'the first post changed nothing');
      assert.equal(await page.locator('dialog').count(), 0, 'a page, not a dialog');
      await check(page, `${device}-2-no-js-page`, html);

      await page.getByRole('link', { name: 'Cancel' }).click();
      await page.waitForURL(url);
      assert.equal(await subStatus(payout.id), 'AWAITING_RELEASE');

      await page.getByRole('button', { name: 'Release payout' }).click();
      await page.getByRole('button', { name: 'Release 123.45 USDC' }).click();
      await page.waitForURL(/notice=released/);
      assert.match(await page.getByRole('status').first().innerText(), /The payout was released and is being processed/);
      assert.equal(await subStatus(payout.id), 'PROCESSING');
      await page.context().close();
    });
  }
});
