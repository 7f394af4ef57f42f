import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserTest, shootAndCheckAxe, signInToDashboard, startBrowserTest } from '../helpers/chromium.ts';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { lockByWrongCodes } from '../helpers/payout-pages.ts';
import { createCustomer, createPayoutPage } from '../http/dashboard/fixtures.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard-reissue-erase');

/**
 * Issue 16 item 8 for Reissue (a payout page locked after too many wrong codes) and Erase customer,
 * in a real browser (Debian chromium through playwright-core), desktop and phone: with JavaScript the
 * dialog names what will happen, Escape and Cancel change nothing and return the focus, Confirm does
 * it; without JavaScript the confirmation page does the same. axe-core: no serious or critical
 * violation on any state.
 */
describe('dashboard Reissue and Erase customer through the confirmation dialog in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
  });
  after(() => closeBrowserTest({ browser, context }));

  const check = (page: Page, name: string, served?: string) => shootAndCheckAxe(browser, page, artifacts, name, served);

  const signIn = (page: Page) => signInToDashboard(page, base, merchant);

  async function lockedAt(id: string): Promise<unknown> {
    return json<{ data: { lockedAt?: number } }>(await context.request({ method: 'GET', url: `/v1/payout_pages/${id}`, apiKey: merchant.apiKey })).data.lockedAt;
  }

  async function erasedAt(id: string): Promise<unknown> {
    return json<{ data: { erasedAt?: number } }>(await context.request({ method: 'GET', url: `/v1/customers/${id}`, apiKey: merchant.apiKey })).data.erasedAt;
  }

  /** A payout page locked by ten wrong codes (before signing in: locking moves the test clock by hours). */
  async function lockedPayout(): Promise<{ id: string; says: RegExp }> {
    const page = await createPayoutPage(context, merchant, { amount: 4_200, customer: { referenceId: `locked-${Date.now()}`, email: 'locked@example.com' } });
    await lockByWrongCodes(context, page.id);
    assert.equal(typeof (await lockedAt(page.id)), 'number');
    return { id: page.id, says: /^The page of the payout of 42\.00 USDC to locked@example\.com .*is unlocked and the customer is e-mailed the link again; earlier codes stop working/ };
  }

  async function customer(): Promise<{ id: string; says: RegExp }> {
    const created = await createCustomer(context, merchant, { email: 'erase-me@example.com' });
    return { id: created.id, says: new RegExp(`^The personal data of customer ${created.referenceId} — name, .* Erasure cannot be undone\\.$`) };
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}, with JavaScript: Reissue and Erase ask in a dialog; Escape and Cancel change nothing; Confirm does it`, async () => {
      const payout = await lockedPayout();
      const person = await customer();
      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await signIn(page);

      const payoutUrl = `${base}/dashboard/sandbox/payout-pages/${payout.id}`;
      await page.goto(payoutUrl);
      const reissue = page.getByRole('button', { name: 'Reissue payout page' });
      await reissue.click();
      const reissueDialog = page.getByRole('dialog', { name: 'Reissue this payout page?' });
      await reissueDialog.waitFor();
      assert.match((await reissueDialog.locator('p').innerText()).trim(), payout.says);
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Cancel', 'the safe choice has the focus');
      assert.equal(await page.evaluate(`document.querySelector('dialog[open]').matches(':modal')`), true);
      await check(page, `${device}-1-reissue-dialog`);
      await page.keyboard.press('Escape');
      await reissueDialog.waitFor({ state: 'hidden' });
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Reissue payout page', 'focus returns to the button');
      await reissue.click();
      await reissueDialog.getByRole('button', { name: 'Cancel' }).click();
      await reissueDialog.waitFor({ state: 'hidden' });
      assert.equal(page.url(), payoutUrl, 'nothing was posted');
      assert.equal(typeof (await lockedAt(payout.id)), 'number', 'still locked');
      await reissue.click();
      await reissueDialog.getByRole('button', { name: 'Reissue payout page' }).click();
      await page.waitForURL(/notice=reissued/);
      assert.match(await page.getByRole('status').first().innerText(), /The payout page was reissued/);
      assert.equal(await lockedAt(payout.id), undefined, 'unlocked');
      assert.equal(await page.getByRole('button', { name: 'Reissue payout page' }).count(), 0, 'no Reissue once unlocked');
      await check(page, `${device}-2-reissued`);

      const customerUrl = `${base}/dashboard/sandbox/customers/${person.id}`;
      await page.goto(customerUrl);
      const erase = page.getByRole('button', { name: 'Erase customer' });
      await erase.click();
      const eraseDialog = page.getByRole('dialog', { name: 'Erase this customer?' });
      await eraseDialog.waitFor();
      assert.match((await eraseDialog.locator('p').innerText()).trim(), person.says);
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Cancel');
      await check(page, `${device}-3-erase-dialog`);
      await page.keyboard.press('Escape');
      await eraseDialog.waitFor({ state: 'hidden' });
      assert.equal(await page.evaluate('document.activeElement.textContent.trim()'), 'Erase customer', 'focus returns to the button');
      await erase.click();
      await eraseDialog.getByRole('button', { name: 'Cancel' }).click();
      await eraseDialog.waitFor({ state: 'hidden' });
      assert.equal(page.url(), customerUrl);
      assert.equal(await erasedAt(person.id), undefined, 'not erased');
      await erase.click();
      await eraseDialog.getByRole('button', { name: 'Erase customer' }).click();
      await page.waitForURL(/notice=customer-erased/);
      assert.match(await page.getByRole('status').first().innerText(), /The customer's personal data was erased/);
      assert.equal(typeof (await erasedAt(person.id)), 'number', 'erased');
      assert.equal(await page.getByRole('button', { name: 'Erase customer' }).count(), 0, 'no Erase once erased');
      await check(page, `${device}-4-erased`);
      await page.context().close();
    });

    test(`${device}, without JavaScript: the confirmation pages say the same; Cancel goes back; Confirm does it`, async () => {
      const payout = await lockedPayout();
      const person = await customer();
      const page = await (await browser.newContext({ viewport, locale: 'en-US', javaScriptEnabled: false })).newPage();
      page.setDefaultTimeout(15_000);
      await signIn(page);

      for (const [name, url, button, title, says, done] of [
        ['reissue', `${base}/dashboard/sandbox/payout-pages/${payout.id}`, 'Reissue payout page', 'Reissue this payout page?', payout.says, /notice=reissued/],
        ['erase', `${base}/dashboard/sandbox/customers/${person.id}`, 'Erase customer', 'Erase this customer?', person.says, /notice=customer-erased/],
      ] as const) {
        await page.goto(url);
        const action = `${url}/${name}`;
        const served = page.waitForResponse((response) => response.url() === action && response.request().method() === 'POST');
        await page.getByRole('button', { name: button }).click();
        await page.waitForURL(action);
        const html = await (await served).text();
        assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), title);
        assert.match((await page.locator('#confirm-text').innerText()).trim(), says);
        assert.equal(await page.locator('dialog').count(), 0, 'a page, not a dialog');
        await check(page, `${device}-5-no-js-${name}-page`, html);
        await page.getByRole('link', { name: 'Cancel' }).click();
        await page.waitForURL(url);
        await page.getByRole('button', { name: button }).click();
        await page.waitForURL(action);
        await page.getByRole('button', { name: button }).click();
        await page.waitForURL(done);
      }
      assert.equal(await lockedAt(payout.id), undefined, 'reissued without JavaScript');
      assert.equal(typeof (await erasedAt(person.id)), 'number', 'erased without JavaScript');
      await page.context().close();
    });
  }
});
