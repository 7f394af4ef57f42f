import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserTest, startBrowserTest, startShop } from '../helpers/chromium.ts';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createPage, type PageBody } from '../helpers/payment-pages.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

const artifacts = path.resolve('test-artifacts');

describe('hosted payment page in a real browser (chromium)', { skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let baseUrl: string;
  let shop: { url: string; close(): Promise<void> };
  let shopUrl: string;
  const consoleErrors: string[] = [];

  before(async () => {
    ({ context, browser, base: baseUrl } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Northwind Books' });
    // The merchant's own site, where the customer returns.
    shop = await startShop();
    shopUrl = shop.url;
  });
  after(async () => {
    await shop?.close();
    await closeBrowserTest({ browser, context });
  });

  async function open(pageId: string, options: { javaScript?: boolean; width?: number } = {}): Promise<Page> {
    const browserContext = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: { width: options.width ?? 390, height: 844 } });
    const page = await browserContext.newPage();
    // Declines answer 402 and the favicon 404, which browsers log as failed loads; CSP
    // violations and script errors are what must never happen.
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    await page.goto(`${baseUrl}/payment-page/${pageId}`);
    return page;
  }

  async function fill(page: Page, card: { number: string; expiry?: string; cvc?: string; name?: string }): Promise<void> {
    await page.getByLabel('Card number').fill(card.number);
    await page.getByLabel('Expiry date (MM / YY)').fill(card.expiry ?? `12 / ${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`);
    await page.getByLabel('Security code (CVC)').fill(card.cvc ?? '123');
    await page.getByLabel('Name on card').fill(card.name ?? 'Ada Lovelace');
  }

  async function read(pageId: string): Promise<PageBody> {
    return json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}`, apiKey: merchant.apiKey })).data;
  }

  test('pays with 4242: the scheme shows while typing, then the browser lands on the merchant success URL', async () => {
    const created = await createPage(context, merchant, { amount: 4999, currency: 'USD', successReturnUrl: `${shopUrl}/thanks`, failureReturnUrl: `${shopUrl}/cart` });
    const page = await open(created.id);
    assert.equal(await page.locator('h1').first().innerText(), 'Pay $49.99');
    await page.getByLabel('Card number').pressSequentially('4242 4242');
    assert.equal(await page.locator('#cardNumber-scheme').innerText(), 'Visa', 'the nonce-allowed script runs under the CSP');
    await fill(page, { number: '4242 4242 4242 4242' });
    await page.screenshot({ path: path.join(artifacts, 'payment-page-form.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${shopUrl}/thanks`), page.getByRole('button', { name: 'Pay $49.99' }).click()]);
    assert.equal(await page.locator('#shop').innerText(), 'Back at the shop: /thanks');
    await page.screenshot({ path: path.join(artifacts, 'payment-page-returned.png'), fullPage: true });
    const paid = await read(created.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.payinDetails?.last4, '4242');
    // Coming back to the page shows the receipt.
    await page.goto(`${baseUrl}/payment-page/${created.id}`);
    assert.equal(await page.locator('#done').innerText(), 'Payment complete');
    await page.screenshot({ path: path.join(artifacts, 'payment-page-paid.png'), fullPage: true });
    await page.context().close();
  });

  test('checks while typing: the number grouped with its scheme, Luhn, month and CVC checked on leaving each field, a submit with problems never leaves the page', async () => {
    const created = await createPage(context, merchant, { amount: 2000, currency: 'USD' });
    const page = await open(created.id, { width: 1440 });
    const posts: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST') {
        posts.push(request.url());
      }
    });
    const number = page.getByLabel('Card number');
    await number.pressSequentially('378282246310005');
    assert.equal(await number.inputValue(), '3782 822463 10005', 'American Express groups 4-6-5');
    assert.equal(await page.locator('#cardNumber-scheme').innerText(), 'American Express');
    await number.fill('');
    await number.pressSequentially('4242424242424241');
    assert.equal(await number.inputValue(), '4242 4242 4242 4241', 'others group by four');
    await page.getByLabel('Expiry date (MM / YY)').pressSequentially('1330');
    assert.equal(await page.getByLabel('Expiry date (MM / YY)').inputValue(), '13 / 30', 'the " / " is typed for the customer');
    await page.getByLabel('Security code (CVC)').pressSequentially('1');
    await page.getByLabel('Name on card').focus();
    assert.equal(await page.locator('#cardNumber-error').innerText(), 'This card number is not valid. Check it and try again.');
    assert.equal(await page.locator('#expiry-error').innerText(), 'That is not a valid month: enter a month from 01 to 12.');
    assert.equal(await page.locator('#cvc-error').innerText(), 'Enter the 3-digit security code (4 digits on the front for American Express).');
    assert.equal(await number.getAttribute('aria-invalid'), 'true');
    assert.match((await number.getAttribute('aria-describedby')) ?? '', /cardNumber-error/);
    await page.getByRole('button', { name: 'Pay $20.00' }).click();
    assert.equal(await page.locator('#cardholderName-error').innerText(), 'Enter the name on the card.', 'the empty name is caught at submit');
    assert.equal(await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } | null } }).document.activeElement?.id), 'cardNumber', 'the first problem gets the focus');
    assert.deepEqual(posts, [], 'no round trip while anything is wrong');
    await page.screenshot({ path: path.join(artifacts, 'payment-page-typing-errors.png'), fullPage: true });

    await number.fill('4242 4242 4242 4242');
    await page.getByLabel('Expiry date (MM / YY)').fill(`12 / ${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`);
    await page.getByLabel('Security code (CVC)').fill('123');
    await page.getByLabel('Name on card').fill('Ada Lovelace');
    await page.getByLabel('Card number').focus();
    assert.equal(await page.locator('#expiry-error').count(), 0, 'a fixed field loses its error');
    await Promise.all([page.waitForSelector('#done'), page.getByRole('button', { name: 'Pay $20.00' }).click()]);
    assert.equal((await read(created.id)).status, 'PAID');
    await page.context().close();
  });

  test('declined with 4000000000000002: the customer sees the message and can pay with another card (without JavaScript)', async () => {
    const created = await createPage(context, merchant, { amount: 1500, currency: 'GBP' });
    const page = await open(created.id, { javaScript: false });
    await fill(page, { number: '4000000000000002' });
    await Promise.all([page.waitForLoadState('load'), page.getByRole('button', { name: 'Pay £15.00' }).click()]);
    await page.waitForSelector('.error-summary');
    assert.equal(await page.locator('.error-summary .error').innerText(), 'Your card was declined. Please use a different card.');
    assert.equal(await page.getByLabel('Card number').inputValue(), '', 'the card number is not filled back in');
    assert.equal(await page.getByLabel('Name on card').inputValue(), 'Ada Lovelace');
    await page.screenshot({ path: path.join(artifacts, 'payment-page-declined.png'), fullPage: true });
    assert.equal((await read(created.id)).status, 'CREATED');
    await fill(page, { number: '5555555555554444' });
    await Promise.all([page.waitForURL(`${baseUrl}/payment-page/${created.id}`), page.getByRole('button', { name: 'Pay £15.00' }).click()]);
    await page.waitForSelector('#done');
    assert.ok((await page.locator('main').innerText()).includes('Mastercard ending in 4444'));
    assert.equal((await read(created.id)).status, 'PAID');
    await page.context().close();
  });

  test('sees the expired page', async () => {
    const created = await createPage(context, merchant, { failureReturnUrl: `${shopUrl}/cart` });
    await context.request({ method: 'POST', url: `/v1/payment_pages/${created.id}/expire`, apiKey: merchant.apiKey });
    const page = await open(created.id, { width: 1280 });
    assert.equal(await page.locator('#expired').innerText(), 'This payment page has expired');
    await page.screenshot({ path: path.join(artifacts, 'payment-page-expired.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${shopUrl}/cart`), page.getByRole('link', { name: 'Return to Northwind Books' }).click()]);
    await page.context().close();
  });

  test('no CSP violations or script errors were reported', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
