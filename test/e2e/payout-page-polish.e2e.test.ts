import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserTest, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { assertNoSeriousAxeViolations } from '../helpers/axe.ts';
import { advanceAndDrain, confirmPage, createPage, fullKyc, latestCode, uniqueReference, walletMethod } from '../helpers/payout-pages.ts';
import escapeStringRegexp from 'escape-string-regexp';

const artifacts = path.resolve('test-artifacts', 'payout-page-polish');
const desktop = { width: 1440, height: 900 };
const phone = { width: 390, height: 844 };

/**
 * Issue 16 item 6 in a real browser (Debian chromium through playwright-core): the step indicator
 * (the list on a desktop, "Step n of 5" on a phone), the account number's second entry checked while
 * typing, the country select that shows the US-state select only for the United States, and a
 * crypto payout's hash with its Copy button. axe-core on each step: no serious or critical violation.
 */
describe('hosted payout page polish in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;
  const cspViolations: string[] = [];

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
  });
  after(async () => {
    await closeBrowserTest({ browser, context });
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });

  async function newPage(): Promise<Page> {
    const browserContext = await browser.newContext({ viewport: desktop });
    await browserContext.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const page = await browserContext.newPage();
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) {
        cspViolations.push(message.text());
      }
    });
    return page;
  }

  /** Screenshots at both sizes, and axe-core at both (through the DevTools protocol, which the CSP does not govern). */
  async function check(page: Page, name: string): Promise<void> {
    for (const [device, viewport] of [['desktop', desktop], ['phone', phone]] as const) {
      await page.setViewportSize(viewport);
      await page.screenshot({ path: path.join(artifacts, `${name}-${device}.png`), fullPage: true });
      await assertNoSeriousAxeViolations(page, `${name} (${device})`);
    }
    await page.setViewportSize(desktop);
  }

  /** The indicator as a sighted desktop user, a phone user and a screen reader meet it. */
  async function assertStep(page: Page, label: string, position: number, of: number): Promise<void> {
    await page.setViewportSize(desktop);
    const current = page.locator('nav.steps li[aria-current="step"]');
    assert.equal(await current.count(), 1);
    assert.equal((await current.textContent())?.replace(/^\d|✓/, '').trim(), label);
    assert.equal(await page.locator('nav.steps li.done').count(), position - 1, 'the steps before are done');
    assert.equal(await page.locator('nav.steps ol').isVisible(), true, 'the list on a desktop');
    assert.equal(await page.locator('.steps-compact').isVisible(), false);
    await page.setViewportSize(phone);
    assert.equal(await page.locator('.steps-compact').isVisible(), true, 'one line on a phone');
    assert.equal((await page.locator('.steps-compact').textContent())?.trim(), `Step ${position} of ${of} — ${label}`);
    const listBox = await page.locator('nav.steps ol').boundingBox();
    assert.ok(listBox && listBox.width <= 1 && listBox.height <= 1, 'the list visually hidden on a phone');
    const tree = await page.locator('nav.steps').ariaSnapshot();
    assert.match(tree, new RegExp(`listitem: ${escapeStringRegexp(label)}`), 'still read out as a list');
    await page.setViewportSize(desktop);
  }

  test('bank flow: steps on each page, the second account-number entry checked while typing, country and state selects', async () => {
    const referenceId = uniqueReference('polish-e2e');
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', firstName: 'Ada', lastName: 'Lovelace' } });
    const payout = await createPage(context, merchant, { amount: 125_000, customer: { referenceId, email: 'ada@example.com' } });
    const page = await newPage();

    await page.goto(`${base}/payout-page/${payout.id}`);
    await assertStep(page, 'Verify e‑mail', 1, 5);
    await check(page, '1-verify');
    await page.getByRole('button', { name: 'E-mail me a code' }).click();
    await page.waitForSelector('#code');
    await page.fill('#code', await latestCode(context, payout.id));
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForSelector('text=how would you like to get paid?');
    await assertStep(page, 'Method', 2, 5);
    await check(page, '2-method');
    await page.getByLabel('Bank transfer (US bank account)').check();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.waitForSelector('#accountNumberConfirmation');
    await assertStep(page, 'Details', 3, 5);
    await page.getByLabel('Account holder name').fill('Ada Lovelace');
    await page.getByLabel('Routing number').fill('021000021');
    await page.getByLabel('Account number', { exact: true }).fill('000123456789');
    const again = page.getByLabel('Confirm account number');
    const problem = page.locator('#accountNumberConfirmation-error');
    await again.pressSequentially('0001');
    assert.equal(await problem.textContent(), '', 'the start of the account number: no problem while typing');
    assert.equal(await again.getAttribute('aria-invalid'), null);
    await again.pressSequentially('9');
    assert.equal(await problem.textContent(), 'Does not match the account number. Enter the same account number twice.', 'shown as soon as it differs');
    assert.equal(await again.getAttribute('aria-invalid'), 'true');
    assert.equal(await problem.getAttribute('aria-live'), 'polite');
    assert.match((await again.getAttribute('aria-describedby')) ?? '', /accountNumberConfirmation-error/);
    await check(page, '3-details-mismatch');
    await again.press('Backspace');
    assert.equal(await problem.textContent(), '', 'gone when it matches the start again');
    await again.pressSequentially('23456788');
    await page.getByRole('button', { name: 'Review' }).click();
    assert.equal(await page.evaluate("document.activeElement && document.activeElement.id"), 'accountNumberConfirmation', 'a submit with a mismatch stays and focuses it');
    assert.match(page.url(), /method=BANK_TRANSFER$/, 'nothing was posted');
    await again.fill('000123456789');
    await again.blur();
    assert.equal(await problem.textContent(), '');
    await page.getByRole('button', { name: 'Review' }).click();
    await page.waitForSelector('text=Check the details');
    await assertStep(page, 'Review', 4, 5);
    assert.equal((await page.content()).includes('000123456789'), false, 'the review page does not hold the account number');
    await check(page, '4-review');
    await page.getByRole('button', { name: 'Confirm payout' }).click();

    await page.waitForSelector('form[action$="/kyc"]');
    await assertStep(page, 'Identity', 5, 6);
    const country = page.getByLabel('Country');
    const state = page.getByLabel('State');
    assert.equal(await country.inputValue(), 'US', 'the United States chosen at first');
    assert.equal(await state.isVisible(), true, 'the state select for a US address');
    await country.selectOption('DE');
    assert.equal(await state.isVisible(), false, 'no state for Germany');
    assert.equal(await state.isDisabled(), true, 'and none posted');
    await country.selectOption({ label: 'United States of America' });
    assert.equal(await state.isVisible(), true);
    await state.selectOption({ label: 'California' });
    await page.getByLabel('Date of birth').fill('1990-12-10');
    await page.getByLabel('Phone number').fill('+1 415 555 0123');
    await page.getByLabel('Address line 1').fill('1 Market St');
    await page.getByLabel('City').fill('San Francisco');
    await page.getByLabel('ZIP / postal code').fill('94105');
    await check(page, '5-kyc');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await page.waitForSelector('text=We’re verifying your identity');
    await assertStep(page, 'Status', 5, 5);
    assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), 0, 'with JavaScript no timed full-page refresh (WCAG 2.2.1)');
    await check(page, '6-status');
    // The script asks again and reloads once the status changed: KYC approved, the payout goes on.
    await advanceAndDrain(context);
    await page.waitForSelector('h1:has-text("Your payout is")', { timeout: 20_000 });
  });

  test('crypto payout paid: the hash in monospace with a working Copy button; the sandbox rail links no explorer', async () => {
    const payout = await createPage(context, merchant, { amount: 50_000, releaseMethod: 'AUTOMATIC' });
    assert.equal((await confirmPage(context, merchant, payout.id, { payoutMethod: walletMethod, kyc: fullKyc })).statusCode, 200);
    for (let step = 0; step < 3; step += 1) {
      await advanceAndDrain(context);
    }
    const page = await newPage();
    await page.goto(`${base}/payout-page/${payout.id}`);
    await page.waitForSelector('text=You’ve been paid');
    const hash = (await page.locator('#transaction-hash').textContent())?.trim() ?? '';
    assert.match(hash, /^0x[0-9a-f]{64}$/);
    assert.match(String(await page.evaluate("getComputedStyle(document.getElementById('transaction-hash')).fontFamily")), /monospace/);
    assert.equal(await page.locator('a', { hasText: 'block explorer' }).count(), 0, 'no explorer for a hash on no chain');
    await page.getByRole('button', { name: 'Copy hash' }).click();
    await page.waitForSelector('text=Copied to the clipboard.');
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), hash);
    await check(page, '7-crypto-paid');
  });
});
