import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type { Browser, Page } from 'playwright-core';
import { closeBrowserTest, startBrowserTest, startShop } from '../helpers/chromium.ts';
import { queryRows } from '../../src/db/client.ts';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createPage, type PageBody } from '../helpers/payment-pages.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { startStripeReplica, type StripeReplica } from '../providers/stripe/replica.ts';

const artifacts = path.resolve('test-artifacts');
const secretKey = 'sk_live_replica_checkout';
/** Typed into Stripe's fields (the stand-in's frame): must never reach Paysail (its requests, logs or database). */
const canary = { number: '6011000990139424', spaced: '6011 0009 9013 9424', cvc: '8317' };

/**
 * The live hosted checkout in a real browser: Stripe's Payment Element (the replica's Stripe.js
 * stand-in, at STRIPE_JS_URL) mounted on our page under its CSP, confirmed in the browser (3-D
 * Secure challenge included), and Stripe's return URL settling the payment from the PaymentIntent.
 */
describe('live hosted checkout with Stripe in a real browser (chromium, Stripe.js stand-in)', { skip: onEmbeddedRunOnly }, () => {
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let baseUrl: string;
  let shop: { url: string; close(): Promise<void> };
  let shopUrl: string;
  const consoleErrors: string[] = [];
  /** Every request the browser sent Paysail (URL and body): the card fields' data must never be among them. */
  const sentToPaysail: string[] = [];

  before(async () => {
    replica = await startStripeReplica({ secretKey });
    ({ context, browser, base: baseUrl } = await startBrowserTest(artifacts, {
      env: { STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_live_replica_checkout', STRIPE_WEBHOOK_SECRET: 'whsec_replica_checkout', STRIPE_API_URL: replica.url, STRIPE_JS_URL: replica.browser.jsUrl },
    }));
    merchant = await context.createMerchant({ live: true, name: 'Northwind Books' });
    shop = await startShop();
    shopUrl = shop.url;
  });
  after(async () => {
    await shop?.close();
    await closeBrowserTest({ browser, context });
    await replica?.close();
  });

  async function open(pageId: string, options: { javaScript?: boolean; width?: number; height?: number } = {}): Promise<Page> {
    const browserContext = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true, viewport: { width: options.width ?? 390, height: options.height ?? 844 } });
    const page = await browserContext.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) {
        consoleErrors.push(message.text());
      }
    });
    page.on('pageerror', (error) => consoleErrors.push(error.message));
    page.on('request', (request) => {
      if (request.url().startsWith(baseUrl)) {
        sentToPaysail.push(`${request.method()} ${request.url()} ${request.postData() ?? ''}`);
      }
    });
    await page.goto(`${baseUrl}/payment-page/${pageId}`);
    return page;
  }

  /** Types a card into the Payment Element (the stand-in's frame on the replica's origin). */
  async function typeCard(page: Page, card: { number: string; expiry?: string; cvc?: string }): Promise<void> {
    const frame = page.frameLocator('iframe[title="Secure payment input frame"]');
    await frame.getByLabel('Card number').fill(card.number);
    await frame.getByLabel('Expiration date').fill(card.expiry ?? '12 / 34');
    await frame.getByLabel('Security code').fill(card.cvc ?? '123');
  }

  async function read(pageId: string): Promise<PageBody> {
    return json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}?livemode=true`, apiKey: merchant.apiKey })).data;
  }

  test('success: the Payment Element mounts under the CSP, the card goes to Stripe only, and the return URL lands on the merchant success URL with the page PAID', async () => {
    const created = await createPage(context, merchant, { amount: 4999, currency: 'USD', successReturnUrl: `${shopUrl}/thanks`, failureReturnUrl: `${shopUrl}/cart` }, '?livemode=true');
    const response = await context.app.inject({ method: 'GET', url: `/payment-page/${created.id}` });
    const policy = String(response.headers['content-security-policy']);
    const origin = new URL(replica.url).origin;
    assert.match(policy, new RegExp(`script-src 'nonce-[^']+' ${origin};`), 'Stripe.js from its configured origin only');
    assert.match(policy, new RegExp(`frame-src ${origin};`));
    assert.match(policy, new RegExp(`connect-src 'self' ${origin};`));

    const page = await open(created.id, { width: 1440, height: 900 });
    assert.equal(await page.locator('h1').first().innerText(), 'Pay $49.99');
    await page.getByRole('button', { name: 'Pay $49.99' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Pay $49.99' }).isEnabled(), true, 'the nonce-allowed script mounted the element');
    await typeCard(page, { number: canary.spaced, cvc: canary.cvc });
    await page.screenshot({ path: path.join(artifacts, 'stripe-checkout-desktop.png'), fullPage: true });
    await Promise.all([page.waitForURL(`${shopUrl}/thanks`), page.getByRole('button', { name: 'Pay $49.99' }).click()]);
    const paid = await read(created.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.payinDetails?.last4, '9424');
    assert.equal(paid.payinDetails?.scheme, 'DISCOVER');
    assert.equal(paid.payinDetails?.bin, '601100');
    assert.ok(replica.browser.received.some((entry) => entry.body.includes(canary.number)), 'the card number went to Stripe');
    // Coming back to the page shows the receipt.
    await page.goto(`${baseUrl}/payment-page/${created.id}`);
    assert.equal(await page.locator('#done').innerText(), 'Payment complete');
    await page.context().close();
  });

  test('decline: the Payment Element shows the error, the session stays open, and another card pays the page', async () => {
    const created = await createPage(context, merchant, { amount: 1500, currency: 'GBP' }, '?livemode=true');
    const page = await open(created.id);
    await typeCard(page, { number: '4000000000000002' });
    await page.getByRole('button', { name: 'Pay £15.00' }).click();
    await page.locator('#payment-message').filter({ hasText: 'Your card was declined.' }).waitFor();
    await page.screenshot({ path: path.join(artifacts, 'stripe-checkout-declined-phone.png'), fullPage: true });
    assert.equal((await read(created.id)).status, 'CREATED');
    await typeCard(page, { number: '5555555555554444' });
    await Promise.all([page.waitForURL(`${baseUrl}/payment-page/${created.id}`), page.getByRole('button', { name: 'Pay £15.00' }).click()]);
    await page.locator('#done').waitFor();
    assert.ok((await page.locator('main').innerText()).includes('Mastercard ending in 4444'));
    const paid = await read(created.id);
    assert.equal(paid.status, 'PAID');
    const intents = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === paid.paymentId);
    assert.equal(intents.length, 1, 'one PaymentIntent for both tries');
    await page.context().close();
  });

  test('3-D Secure passed: the challenge shows, "Complete authentication" pays the page', async () => {
    const created = await createPage(context, merchant, { amount: 2500, currency: 'EUR', successReturnUrl: `${shopUrl}/done` }, '?livemode=true');
    const page = await open(created.id);
    await typeCard(page, { number: '4000000000003220' });
    await page.getByRole('button', { name: 'Pay €25.00' }).click();
    const challenge = page.frameLocator('iframe[title="3D Secure challenge"]');
    await challenge.getByRole('button', { name: 'Complete authentication' }).waitFor();
    await page.screenshot({ path: path.join(artifacts, 'stripe-checkout-3ds-phone.png'), fullPage: false });
    assert.equal((await read(created.id)).status, 'CREATED', 'nothing is paid before the challenge is answered');
    await Promise.all([page.waitForURL(`${shopUrl}/done`), challenge.getByRole('button', { name: 'Complete authentication' }).click()]);
    assert.equal((await read(created.id)).status, 'PAID');
    await page.context().close();
  });

  test('3-D Secure failed: the customer is told, the page stays unpaid, and the same session can still be paid', async () => {
    const created = await createPage(context, merchant, { amount: 2500, currency: 'EUR' }, '?livemode=true');
    const page = await open(created.id);
    await typeCard(page, { number: '4000000000003220' });
    await page.getByRole('button', { name: 'Pay €25.00' }).click();
    const challenge = page.frameLocator('iframe[title="3D Secure challenge"]');
    await challenge.getByRole('button', { name: 'Fail authentication' }).click();
    await page.locator('#payment-message').filter({ hasText: 'unable to authenticate' }).waitFor();
    assert.equal(await page.locator('iframe[title="3D Secure challenge"]').count(), 0, 'the challenge is gone');
    assert.equal((await read(created.id)).status, 'CREATED');

    // Stripe's return URL with forged parameters settles nothing: the PaymentIntent says it is not paid.
    const pageRow = await queryRows<{ attempt_payment_id: string }>(context.database.db, sql`select attempt_payment_id from payment_pages where id = ${created.id}`);
    const [state] = [...replica.intents.values()].filter((entry) => entry.intent.metadata['paysail_payment_id'] === pageRow[0]?.attempt_payment_id);
    assert.ok(state);
    await page.goto(`${baseUrl}/payment-page/${created.id}/complete?payment_intent=${state.intent.id}&payment_intent_client_secret=${state.intent.client_secret ?? ''}&redirect_status=succeeded`);
    assert.equal(await page.locator('.error-summary .error').innerText(), 'Your bank could not confirm this payment (3-D Secure was not completed). Try again, or use a different card.');
    assert.equal((await read(created.id)).status, 'CREATED');
    await page.screenshot({ path: path.join(artifacts, 'stripe-checkout-3ds-failed-phone.png'), fullPage: true });

    await page.getByRole('button', { name: 'Pay €25.00' }).waitFor();
    await typeCard(page, { number: '4242424242424242' });
    await Promise.all([page.waitForURL(`${baseUrl}/payment-page/${created.id}`), page.getByRole('button', { name: 'Pay €25.00' }).click()]);
    await page.locator('#done').waitFor();
    assert.equal((await read(created.id)).status, 'PAID');
    await page.context().close();
  });

  test('without JavaScript the page explains why card fields need it, and nothing is charged', async () => {
    const created = await createPage(context, merchant, { amount: 990, currency: 'USD' }, '?livemode=true');
    const page = await open(created.id, { javaScript: false });
    assert.ok((await page.locator('main').innerText()).includes('JavaScript is needed to pay by card here.'));
    assert.equal(await page.locator('#pay').isVisible(), false, 'no pay button that cannot work');
    assert.equal(await page.locator('#payment-element').isVisible(), false);
    await page.screenshot({ path: path.join(artifacts, 'stripe-checkout-no-javascript.png'), fullPage: true });
    await page.context().close();
  });

  test('the canary card typed into Stripe\'s fields never reached Paysail: not its requests, logs or database', async () => {
    assert.ok(sentToPaysail.length > 10);
    for (const sent of sentToPaysail) {
      assert.ok(!sent.replace(/[\s+%20-]/g, '').includes(canary.number), `sent to Paysail: ${sent.slice(0, 200)}`);
      assert.ok(!new RegExp(`(^|\\D)${canary.cvc}(\\D|$)`).test(sent), `the CVC was sent to Paysail: ${sent.slice(0, 200)}`);
    }
    const logs = context.logs.join('\n');
    assert.ok(logs.length > 0);
    assert.ok(!logs.replace(/[\s-]/g, '').includes(canary.number));
    assert.ok(!new RegExp(`(^|["(,\\s=])${canary.cvc}($|["),\\s&])`).test(logs));
    const tables = await queryRows<{ table_name: string }>(context.database.db, sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`);
    let rows = 0;
    for (const { table_name: table } of tables) {
      for (const { row } of await queryRows<{ row: string }>(context.database.db, sql`select (t.*)::text as row from ${sql.identifier(table)} t`)) {
        rows += 1;
        assert.ok(!row.replace(/[\s-]/g, '').includes(canary.number), `${table} holds the canary card number`);
        assert.ok(!new RegExp(`(^|["(,\\s=])${canary.cvc}($|["),\\s&])`).test(row), `${table} holds the canary CVC`);
      }
    }
    assert.ok(rows > 10);
    const stored = await queryRows<{ last4: string }>(context.database.db, sql`select last4 from payments where last4 = '9424'`);
    assert.equal(stored.length, 1, 'the check would see it: the last four digits are stored');
  });

  test('no CSP violations or script errors were reported', () => {
    assert.deepEqual(consoleErrors, []);
  });
});
