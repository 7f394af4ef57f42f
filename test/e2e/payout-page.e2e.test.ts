import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { assertLedgerInvariants } from '../helpers/ledger.ts';
import { advanceAndDrain, createPage, getPage, latestCode, pageAction, uniqueReference, type PayoutPageData, assertOneEventPerChange } from '../helpers/payout-pages.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

const artifacts = path.resolve('test-artifacts');
const canary = '<script>window.__pwned=1</script>';

/**
 * A real browser (Debian chromium through playwright-core) walks the hosted payout page: a bank
 * payout and a crypto payout for customers with partial KYC data, and a decline. The app listens on
 * 127.0.0.1; jobs (KYC decision, rail) run when the test drains them with its clock.
 */
describe('hosted payout page in chromium', { skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;
  let otherOrigin: string;
  const cspViolations: string[] = [];

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Payouts' });
    // A second origin for the return URLs, so the CSP form-action allowance is exercised.
    otherOrigin = base.replace('127.0.0.1', 'localhost');
  });

  after(async () => {
    await browser?.close();
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violations');
  });

  async function newPage(viewport = { width: 1024, height: 900 }): Promise<Page> {
    const page = await browser.newPage({ viewport });
    page.on('console', (message) => {
      if (/Content Security Policy/i.test(message.text())) {
        cspViolations.push(message.text());
      }
    });
    return page;
  }

  async function shot(page: Page, name: string): Promise<void> {
    await page.screenshot({ path: path.join(artifacts, `payout-page-${name}.png`), fullPage: true });
  }

  async function partialCustomerPage(overrides: Record<string, unknown>): Promise<PayoutPageData> {
    const referenceId = uniqueReference('e2e');
    const created = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: { referenceId, signupAt: 1_700_000_000_000, email: 'customer@example.com', firstName: canary, lastName: 'Lovelace', address: { country: 'US', city: 'San Francisco' } },
    });
    assert.equal(created.statusCode, 200, created.body);
    return createPage(context, merchant, {
      customer: { referenceId, email: 'customer@example.com' },
      successReturnUrl: `${otherOrigin}/healthz?payout=done`,
      failureReturnUrl: `${otherOrigin}/healthz?payout=failed`,
      ...overrides,
    });
  }

  async function verify(page: Page, payout: PayoutPageData, name: string): Promise<void> {
    await page.goto(`${base}/payout-page/${payout.id}`);
    assert.ok((await page.textContent('main'))?.includes('Acme Payouts'));
    await shot(page, `${name}-1-start`);
    await page.getByRole('button', { name: 'E-mail me a code' }).click();
    await page.waitForSelector('#code');
    await page.getByLabel('6-digit code').fill(await latestCode(context, payout.id));
    await shot(page, `${name}-2-code`);
    await page.getByRole('button', { name: 'Verify' }).click();
    await page.waitForLoadState('load');
  }

  async function assertCanaryInert(page: Page): Promise<void> {
    assert.equal(await page.evaluate(() => (globalThis as unknown as { __pwned?: number }).__pwned), undefined, 'the script in the customer data never ran');
  }

  test('bank payout, partial KYC: code → method → bank form → review → confirm → KYC form → paid → back to the merchant', async () => {
    const payout = await partialCustomerPage({ amount: 125_000, releaseMethod: 'AUTOMATIC' });
    const page = await newPage();
    await verify(page, payout, 'bank');

    const greeting = await page.textContent('h1');
    assert.equal(greeting, `Hi ${canary}, how would you like to get paid?`, 'shown as text, escaped');
    await assertCanaryInert(page);
    await page.getByLabel('Bank transfer (US bank account)').check();
    await page.getByRole('button', { name: 'Continue' }).click();

    await page.getByLabel('Account holder name').fill('Ada Lovelace');
    await page.getByLabel('Routing number').fill('021000022');
    await page.getByLabel('Account number', { exact: true }).fill('000123456789');
    await page.getByLabel('Confirm account number').fill('000123456789');
    await page.getByRole('button', { name: 'Review' }).click();
    assert.ok((await page.textContent('.error-summary'))?.includes('Routing number'), 'the checksum error is listed');
    await shot(page, 'bank-3-error');
    await page.getByLabel('Routing number').fill('021000021');
    assert.equal(await page.inputValue('#accountNumber'), '', 'the account number is never written back into the page');
    await page.getByLabel('Account number', { exact: true }).fill('000123456789');
    await page.getByLabel('Confirm account number').fill('000123456789');
    await page.getByLabel('Savings').check();
    await page.getByRole('button', { name: 'Review' }).click();
    assert.ok((await page.textContent('main'))?.includes('•••• 6789'));
    await shot(page, 'bank-4-review');
    await page.getByRole('button', { name: 'Confirm payout' }).click();

    // The KYC form, pre-filled with what the merchant sent.
    await page.waitForSelector('form[action$="/kyc"]');
    assert.equal(await page.inputValue('#firstName'), canary);
    assert.equal(await page.inputValue('#lastName'), 'Lovelace');
    assert.equal(await page.inputValue('input[name="address.city"]'), 'San Francisco');
    assert.equal(await page.getAttribute('#firstName', 'readonly'), '');
    await assertCanaryInert(page);
    await page.getByLabel('Date of birth').fill('1990-12-10');
    await page.getByLabel('Phone number').fill('(415) 555-0123');
    await page.getByLabel('Address line 1').fill('1 Market St');
    await page.getByLabel('State').selectOption('CA');
    await page.getByLabel('ZIP / postal code').fill('94105');
    await shot(page, 'bank-5-kyc');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await page.waitForSelector('text=We’re verifying your identity');
    assert.equal(await page.getAttribute('[data-status-watch]', 'data-refresh-seconds'), '5', 'the script asks again every 5 seconds');
    assert.equal(await page.locator('meta[http-equiv="refresh"]').count(), 0, 'no timed refresh, with or without JavaScript (WCAG 2.2.1)');
    assert.equal(await page.getByRole('link', { name: 'Check again' }).getAttribute('href'), `/payout-page/${payout.id}`, 'a browser without JavaScript checks again by a link');
    await shot(page, 'bank-6-in-review');

    await advanceAndDrain(context); // KYC approved → PROCESSING (AUTOMATIC)
    await page.reload();
    await page.waitForSelector('text=Your payout is on its way');
    await advanceAndDrain(context); // the sandbox rail pays
    await page.reload();
    await page.waitForSelector('text=You’ve been paid');
    assert.ok((await page.textContent('main'))?.includes('savings account ending 6789'));
    await shot(page, 'bank-7-paid');
    assert.equal((await getPage(context, merchant, payout.id)).status, 'PROCESSED');

    await page.getByRole('button', { name: 'Return to Acme Payouts' }).click();
    await page.waitForURL(`${otherOrigin}/healthz?payout=done`);
    await page.close();
  });

  test('crypto payout on a phone-sized screen, partial KYC, MANUAL release by the merchant', async () => {
    const payout = await partialCustomerPage({ amount: 990_000, releaseMethod: 'MANUAL', fundingCurrency: 'USDC' });
    const page = await newPage({ width: 390, height: 844 });
    await verify(page, payout, 'crypto');
    await page.getByLabel('Crypto wallet (USDC)').check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByLabel('Network').selectOption('BASE');
    await page.getByLabel('Wallet address').fill('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD');
    await page.getByRole('button', { name: 'Review' }).click();
    assert.ok((await page.textContent('.error-summary'))?.includes('Wallet address'), 'a broken EIP-55 checksum is caught');
    await page.getByLabel('Wallet address').fill('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed');
    await page.getByRole('button', { name: 'Review' }).click();
    await shot(page, 'crypto-3-review-mobile');
    const width = await page.evaluate(() => (globalThis as unknown as { document: { documentElement: { scrollWidth: number } } }).document.documentElement.scrollWidth);
    assert.ok(width <= 390, `no horizontal scrolling on a phone (${width}px)`);
    await page.getByRole('button', { name: 'Confirm payout' }).click();
    await page.waitForSelector('form[action$="/kyc"]');
    await page.getByLabel('Date of birth').fill('1985-03-04');
    await page.getByLabel('Phone number').fill('+1 415 555 0199');
    await page.getByLabel('Address line 1').fill('500 Howard St');
    await page.getByLabel('State').selectOption('CA');
    await page.getByLabel('ZIP / postal code').fill('94105');
    await page.getByRole('button', { name: 'Submit for verification' }).click();
    await page.waitForSelector('text=We’re verifying your identity');
    await assertCanaryInert(page);

    await advanceAndDrain(context);
    await page.reload();
    await page.waitForSelector('text=Your payout is confirmed');
    await shot(page, 'crypto-4-awaiting-release');
    assert.equal((await pageAction(context, merchant, payout.id, 'release')).statusCode, 200);
    await context.drainJobs();
    await advanceAndDrain(context);
    await page.reload();
    await page.waitForSelector('text=You’ve been paid');
    assert.ok((await page.textContent('main'))?.includes('Base wallet 0x5aAe...eAed'));
    await shot(page, 'crypto-5-paid-mobile');
    await page.close();
  });

  test('decline: the customer declines and lands on the failure URL; the page then says so', async () => {
    const payout = await partialCustomerPage({ amount: 4_200 });
    const page = await newPage();
    await verify(page, payout, 'decline');
    await page.getByRole('link', { name: 'I don’t want this payout' }).click();
    await page.waitForSelector('text=Decline this payout?');
    await shot(page, 'decline-3-ask');
    await page.getByRole('button', { name: 'Yes, decline the payout' }).click();
    await page.waitForURL(`${otherOrigin}/healthz?payout=failed`);
    assert.equal((await getPage(context, merchant, payout.id))['sub-status'], 'CUSTOMER_DECLINED');
    await page.goto(`${base}/payout-page/${payout.id}`);
    await page.waitForSelector('text=You declined this payout');
    await shot(page, 'decline-4-declined');
    await page.close();
  });
});
