import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { paymentPages } from '../../src/db/schema/index.ts';
import { FormClient } from '../helpers/browser.ts';
import { closeBrowserTest, shootAndCheckAxe, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage, fullKyc, getPage, latestCode, uniqueReference } from '../helpers/payout-pages.ts';
import { createPaymentPage } from '../http/dashboard/fixtures.ts';

const artifacts = path.resolve('test-artifacts', 'status-watch');

/**
 * Issue 16: the hosted pages that wait (a payment in progress, documents being checked) no longer
 * reload themselves on a timer (`<meta http-equiv=refresh>`, WCAG 2.2.1, axe's meta-refresh rule).
 * Without JavaScript they offer "Check again"; with JavaScript they watch in the background and open
 * the new state once it changed, saying so in a polite live region. In chromium, desktop and phone,
 * with axe-core (no serious or critical violation) on every state.
 */
describe('hosted pages that wait: Check again and a live update, no timed refresh (chromium)', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
  });
  after(() => closeBrowserTest({ browser, context }));

  /** Screenshot and axe; a page shown without JavaScript is checked as served, in a page that can run axe. */
  async function check(page: Page, name: string, served?: string): Promise<void> {
    assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), 0, `${name}: no timed refresh`);
    if (served !== undefined) {
      assert.doesNotMatch(served, /http-equiv="refresh"/i, `${name}: no timed refresh without JavaScript either`);
    }
    await shootAndCheckAxe(browser, page, artifacts, name, served, { fullPage: true });
  }

  /** A payment page whose card payment is being processed (the claim is held, as while a processor answers). */
  async function paymentInProgress(): Promise<{ id: string; settle: () => Promise<void> }> {
    const page = await createPaymentPage(context, merchant);
    await context.database.db.update(paymentPages).set({ attemptPaymentId: `pay_inflight_${page.id}` }).where(eq(paymentPages.id, page.id));
    return { id: page.id, settle: async () => void (await context.database.db.update(paymentPages).set({ attemptPaymentId: null }).where(eq(paymentPages.id, page.id))) };
  }

  /** A sandbox payout page whose customer sent documents that are being checked (the step-up's CHECKING stage). */
  async function documentsBeingChecked(): Promise<string> {
    const referenceId = uniqueReference('watch');
    const created = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', ...fullKyc, lastName: 'Documents' } });
    assert.equal(created.statusCode, 200, created.body);
    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', customer: { referenceId, email: 'ada@example.com' } });
    assert.equal((await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod })).statusCode, 200);
    await advanceAndDrain(context);
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${page.id}`);
    context.clock.advance(31_000);
    await client.post(`/payout-page/${page.id}/code`, {});
    await client.get(`/payout-page/${page.id}?notice=sent`);
    assert.equal((await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) })).statusCode, 303);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/documents`, { testDocument: 'passport_genuine' })).statusCode, 303);
    return page.id;
  }

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}, with JavaScript: the payment in progress opens the checkout by itself once the attempt ends, and says so`, async () => {
      const payment = await paymentInProgress();
      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await page.goto(`${base}/payment-page/${payment.id}`);
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Payment in progress');
      assert.equal(await page.locator('[data-watch-message]').innerText(), 'This page updates by itself when anything changes.');
      assert.equal(await page.locator('[data-watch-message]').getAttribute('aria-live'), 'polite');
      assert.equal(await page.getByRole('link', { name: 'Check again' }).getAttribute('href'), `/payment-page/${payment.id}`);
      await check(page, `${device}-1-payment-in-progress`);
      await payment.settle();
      await page.waitForSelector('#cardNumber');
      await check(page, `${device}-2-payment-checkout-again`);
      await page.context().close();
    });

    test(`${device}, without JavaScript: the payment in progress offers Check again, which shows the new state once it changed`, async () => {
      const payment = await paymentInProgress();
      const page = await (await browser.newContext({ viewport, locale: 'en-US', javaScriptEnabled: false })).newPage();
      page.setDefaultTimeout(15_000);
      const url = `${base}/payment-page/${payment.id}`;
      const served = await page.goto(url);
      assert.match(await page.locator('[data-watch-message]').innerText(), /does not change by itself: use Check again/);
      await check(page, `${device}-3-payment-in-progress-no-js`, await served?.text());
      await page.getByRole('link', { name: 'Check again' }).click();
      await page.waitForURL(url);
      assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Payment in progress', 'still in progress');
      await payment.settle();
      await page.getByRole('link', { name: 'Check again' }).click();
      await page.waitForSelector('#cardNumber');
      assert.equal(await page.getByRole('link', { name: 'Check again' }).count(), 0, 'nothing to check again on the checkout');
      await page.context().close();
    });

    test(`${device}: documents being checked: Check again without JavaScript; with JavaScript the decision shows by itself`, async () => {
      const id = await documentsBeingChecked();
      const url = `${base}/payout-page/${id}`;
      const still = await (await browser.newContext({ viewport, locale: 'en-US', javaScriptEnabled: false })).newPage();
      still.setDefaultTimeout(15_000);
      const served = await still.goto(url);
      assert.match(await still.locator('h1').innerText(), /checking your documents/);
      await check(still, `${device}-4-checking-no-js`, await served?.text());
      await still.getByRole('link', { name: 'Check again' }).click();
      await still.waitForURL(url);
      assert.match(await still.locator('h1').innerText(), /checking your documents/, 'still checking');

      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await page.goto(url);
      assert.equal(await page.locator('[data-watch-message]').innerText(), 'This page updates by itself when anything changes.');
      await check(page, `${device}-5-checking`);
      await advanceAndDrain(context);
      assert.equal((await getPage(context, merchant, id))['sub-status'], 'AWAITING_RELEASE');
      await page.waitForSelector('text=Your payout is confirmed', { timeout: 60_000 });
      await check(page, `${device}-6-checked`);
      await still.getByRole('link', { name: 'Check again' }).click();
      await still.waitForSelector('text=Your payout is confirmed');
      await page.context().close();
      await still.context().close();
    });
  }
});
