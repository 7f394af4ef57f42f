import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { assertNoAxeViolations } from '../helpers/axe.ts';
import { elementsWiderThanViewport, startBrowserTest } from '../helpers/chromium.ts';
import { Webhook } from 'standardwebhooks';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { WebhookReceiver } from '../helpers/webhook-receiver.ts';
import { bankAccount, futureCard, identity } from '../http/dashboard/fixtures.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard');
const timezoneId = 'America/New_York';
/**
 * axe-core rules allowed to report, by id, each with the reason it cannot apply. Every other
 * violation, whatever its impact, fails the test.
 */
const allowedAxeRules: ReadonlyMap<string, string> = new Map();

/**
 * The merchant dashboard in a real browser (Debian chromium through playwright-core): the flows of
 * issue 7, each screen checked with axe-core and saved as a screenshot in test-artifacts/dashboard.
 */
describe('dashboard in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let desktop: BrowserContext;
  let page: Page;
  let base: string;
  let receiver: WebhookReceiver;
  let apiKey = '';
  let webhookSecret = '';
  let shot = 0;
  const checkedScreens: string[] = [];
  /** Detail pages met on the way, checked again at phone width. */
  const detailUrls: Record<'endpoint' | 'payout' | 'inbox' | 'event', string> = { endpoint: '', payout: '', inbox: '', event: '' };

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    receiver = await WebhookReceiver.start();
    desktop = await browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId, locale: 'en-US' });
    page = await desktop.newPage();
  });

  after(async () => {
    await browser?.close();
    await receiver?.close();
    await context?.close();
  });

  /** Saves a full-page screenshot and runs axe-core in the page: no violation allowed (but `allowedAxeRules`). */
  async function check(name: string, target: Page = page): Promise<void> {
    shot += 1;
    await target.screenshot({ path: path.join(artifacts, `${String(shot).padStart(2, '0')}-${name}.png`), fullPage: true });
    // Evaluated through the DevTools protocol, which the page's CSP does not govern (an injected
    // <script> would be refused: every script needs the response's nonce).
    await assertNoAxeViolations(target, name, allowedAxeRules);
    checkedScreens.push(name);
  }

  async function api<T>(method: string, url: string, body?: unknown): Promise<T> {
    const response = await context.request({ method, url, apiKey, ...(body === undefined ? {} : { body }) });
    assert.equal(response.statusCode, 200, `${method} ${url}: ${response.body}`);
    return json<{ data: T }>(response).data;
  }

  async function settle(): Promise<void> {
    await context.drainJobs();
    context.clock.advance(2_500);
    await context.drainJobs();
  }

  test('signs in with the dashboard user the operator created', async () => {
    await page.goto(`${base}/dashboard`);
    assert.match(page.url(), /\/dashboard\/sign-in$/);
    await check('sign-in');
    await page.getByLabel('E-mail').fill(merchant.dashboardUser.email);
    await page.getByLabel('Password').fill('not-my-password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    assert.match(await page.getByRole('alert').innerText(), /The e-mail or the password is not correct/);
    await check('sign-in-error');
    await page.getByLabel('Password').fill(merchant.dashboardUser.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${base}/dashboard/sandbox`);
    assert.equal(await page.getByRole('heading', { level: 1 }).innerText(), 'Overview');
    // Live is shown but greyed out: this merchant is not enabled for live yet.
    assert.equal(await page.locator('.modes .disabled').getAttribute('aria-disabled'), 'true');
    // Times are rewritten into the browser's time zone by the page's own (nonce'd) script.
    assert.equal(await page.locator('#time-zone').innerText(), `Times are shown in your time zone (${timezoneId}).`);
    await check('overview-empty');
  });

  test('creates an API key (shown once) and uses it', async () => {
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('New key name').fill('E2E key');
    await page.getByRole('button', { name: 'Create key' }).click();
    apiKey = (await page.locator('#new-api-key').innerText()).trim();
    assert.match(apiKey, /^sk_/);
    await check('api-key-created');
    // A time as the browser shows it: rewritten from UTC into the context's time zone.
    const created = page.locator('time[data-local]').first();
    const iso = await created.getAttribute('datetime');
    assert.ok(iso);
    const expected = new Intl.DateTimeFormat('en-US', { dateStyle: 'medium', timeStyle: 'short', timeZone: timezoneId }).format(new Date(iso));
    const spaces = (text: string) => text.replace(/\s+/g, ' ').trim();
    assert.equal(spaces(await created.innerText()), spaces(expected), `the time ${iso} is shown in ${timezoneId}`);
    assert.equal(await created.getAttribute('title'), `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`, 'the UTC text stays as its title');
    const balances = await api<Array<{ currency: string }>>('GET', '/v1/balance?livemode=false');
    assert.ok(balances.length > 0);
    await page.reload();
    assert.equal(await page.locator('#new-api-key').count(), 0, 'a reload does not show the key again');
  });

  test('adds a webhook endpoint and reveals its secret', async () => {
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await check('webhooks-empty');
    await page.getByLabel('Address (URL)').fill(receiver.url('/paysail'));
    await page.getByLabel('Description (optional)').fill('E2E receiver');
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    const secret = (await page.locator('#webhook-secret').innerText()).trim();
    assert.match(secret, /^whsec_/);
    webhookSecret = secret;
    await check('webhook-added');
    await page.getByRole('link', { name: receiver.url('/paysail') }).click();
    detailUrls.endpoint = page.url();
    await page.getByRole('button', { name: 'Reveal signing secret' }).click();
    assert.equal((await page.locator('#webhook-secret').innerText()).trim(), secret);
    await check('webhook-endpoint');
  });

  test('sends a test event from the endpoint page: the receiver gets it signed, the delivery log shows it', async () => {
    const before = receiver.requests.length;
    await page.getByLabel('Event type').selectOption('PAYMENT_SUCCEEDED');
    await page.getByRole('button', { name: 'Send test event' }).click();
    const notice = await page.getByRole('status').filter({ hasText: 'Test event' }).innerText();
    const eventId = /Test event (evt_test_[0-9a-z]{36}) was queued for delivery to this endpoint/.exec(notice)?.[1];
    assert.ok(eventId, notice);
    await check('webhook-test-event-queued');

    await context.drainJobs();
    await receiver.waitFor(before + 1);
    const received = receiver.requests.slice(before);
    assert.deepEqual(
      received.map((request) => [request.path, request.headers['webhook-id']]),
      [['/paysail', eventId]],
    );
    const [request] = received;
    assert.ok(request);
    const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, String(value)]));
    const verified = new Webhook(webhookSecret).verify(request.body, headers) as { id: string; type: string; data: Record<string, unknown> };
    assert.equal(verified.id, eventId);
    assert.equal(verified.type, 'PAYMENT_SUCCEEDED');
    assert.equal(verified.data.pageId, 'page_test_0000000000000000000000000000000');
    assert.throws(() => new Webhook(webhookSecret).verify(request.body.replace('paysail-test-event', 'tampered'), headers), /signature/i);

    await page.getByRole('link', { name: 'See its delivery log' }).click();
    assert.match(page.url(), new RegExp(`/dashboard/sandbox/developers/events/${eventId}$`));
    const log = await page.locator('main').innerText();
    assert.match(log, /Test/);
    assert.match(log, /Succeeded[\s\S]*\/paysail[\s\S]*1 attempt[\s\S]*200/);
    await check('webhook-test-event-log');
    // Later steps count only the deliveries of real events.
    receiver.reset();
  });

  test('creates a payout page through the API and releases it from the dashboard', async () => {
    const customer = await api<{ referenceId: string }>('POST', '/v1/customers?livemode=false', { referenceId: 'e2e-payee', signupAt: Date.now() - 60_000, email: 'payee@example.com', ...identity });
    await settle();
    const created = await api<{ id: string }>('POST', '/v1/payout_pages?livemode=false', {
      amount: 25_000,
      fundingCurrency: 'USDC',
      clientReferenceId: 'e2e-payout-1',
      releaseMethod: 'MANUAL',
      customer: { referenceId: customer.referenceId, email: 'payee@example.com' },
    });
    const confirmed = await api<{ 'sub-status': string }>('POST', `/v1/test_helpers/payout_pages/${created.id}/confirm?livemode=false`, { payoutMethod: bankAccount });
    assert.equal(confirmed['sub-status'], 'AWAITING_RELEASE');

    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByRole('link', { name: 'Review them' }).click();
    assert.match(page.url(), /payout-pages\?status=AWAITING_RELEASE$/);
    await check('payouts-awaiting-release');
    await page.getByRole('link', { name: 'e2e-payout-1' }).click();
    detailUrls.payout = page.url();
    await check('payout-detail');
    await page.getByRole('button', { name: 'Release payout' }).click();
    // It asks first (issue 16 item 8): the dialog names the amount and the payee.
    const confirmRelease = page.getByRole('dialog', { name: 'Release this payout?' });
    assert.match(await confirmRelease.innerText(), /250\.00 USDC will be paid to payee@example\.com \(customer e2e-payee\) by bank transfer to account …6789/);
    await check('payout-release-dialog');
    await confirmRelease.getByRole('button', { name: 'Release 250.00 USDC' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /The payout was released and is being processed/);
    assert.match(await page.locator('h1').innerText(), /Processing/);
    assert.equal(await page.getByRole('button', { name: 'Release payout' }).count(), 0);
    await check('payout-released');
    const after = await api<{ status: string }>('GET', `/v1/payout_pages/${created.id}`);
    assert.equal(after.status, 'PROCESSING');

    // The status changes reached the webhook endpoint, signed.
    await settle();
    await receiver.waitFor(3);
    assert.ok(receiver.requests.every((request) => typeof request.headers['webhook-signature'] === 'string'));
  });

  test('expires a payment page from the dashboard', async () => {
    const created = await api<{ id: string }>('POST', '/v1/payment_pages?livemode=false', {
      amount: 4_200,
      currency: 'EUR',
      clientReferenceId: 'e2e-order-expire',
      customer: { referenceId: 'e2e-buyer', email: 'buyer@example.com' },
    });
    await page.getByRole('link', { name: 'Payments' }).click();
    await check('payment-pages');
    await page.getByRole('link', { name: 'e2e-order-expire' }).click();
    await page.getByRole('button', { name: 'Expire page' }).click();
    const confirmExpiry = page.getByRole('dialog', { name: 'Expire this payment page?' });
    assert.match(await confirmExpiry.innerText(), /buyer@example\.com \(customer e2e-buyer\) can no longer pay 42\.00 EUR on payment page e2e-order-expire/);
    await confirmExpiry.getByRole('button', { name: 'Expire page' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /The payment page was expired/);
    assert.match(await page.locator('h1').innerText(), /Expired/);
    await check('payment-page-expired');
    assert.equal((await api<{ status: string }>('GET', `/v1/payment_pages/${created.id}`)).status, 'EXPIRED');
  });

  test('filters fraud reports and opens one with its payment', async () => {
    const paymentIds: string[] = [];
    for (const reference of ['e2e-order-fraud-1', 'e2e-order-fraud-2']) {
      const created = await api<{ id: string }>('POST', '/v1/payment_pages?livemode=false', { amount: 9_900, currency: 'USD', clientReferenceId: reference, customer: { referenceId: 'e2e-buyer', email: 'buyer@example.com' } });
      const paid = await api<{ paymentId: string }>('POST', `/v1/test_helpers/payment_pages/${created.id}/pay?livemode=false`, futureCard('4242424242424242'));
      paymentIds.push(paid.paymentId);
      await api('POST', '/v1/test_helpers/fraud_reports?livemode=false', { paymentId: paid.paymentId, fraudReason: `Reported on ${reference}` });
    }
    const [target] = paymentIds;
    assert.ok(target);
    await page.getByRole('link', { name: 'Fraud reports' }).click();
    assert.match(await page.locator('main').innerText(), /2 reports/);
    await page.getByLabel('Payment ID').fill(target);
    await page.getByRole('button', { name: 'Filter' }).click();
    assert.match(page.url(), new RegExp(`paymentId=${target}`));
    assert.match(await page.locator('main').innerText(), /1 report\b/);
    await check('fraud-reports-filtered');
    await page.getByRole('link', { name: target }).click();
    assert.match(await page.locator('main').innerText(), /Reported on e2e-order-fraud-1[\s\S]*The payment[\s\S]*99\.00 USD/);
    await check('fraud-report');
  });

  test('reads the verification code of a hosted payout page in the sandbox inbox, and it unlocks the page', async () => {
    const created = await api<{ id: string }>('POST', '/v1/payout_pages?livemode=false', {
      amount: 5_000,
      fundingCurrency: 'USDC',
      clientReferenceId: 'e2e-payout-code',
      releaseMethod: 'AUTOMATIC',
      customer: { referenceId: 'e2e-code-payee', email: 'code-payee@example.com' },
    });
    // The customer's side: the hosted page e-mails a code before it shows anything stored.
    const hosted = await desktop.newPage();
    await hosted.goto(`${base}/payout-page/${created.id}`);
    await hosted.getByRole('button', { name: 'E-mail me a code' }).click();

    await page.getByRole('link', { name: 'Inbox' }).click();
    await check('inbox');
    const row = page.locator('tr', { hasText: 'code-payee@example.com' }).filter({ hasText: 'Your verification code' });
    const listedCode = (await row.locator('strong').innerText()).trim();
    assert.match(listedCode, /^\d{6}$/);
    await row.getByRole('link').click();
    detailUrls.inbox = page.url();
    assert.equal(await page.locator('h1').innerText(), 'Your verification code');
    assert.equal((await page.locator('#verification-code').innerText()).trim(), listedCode);
    assert.match(await page.locator('#email-text').innerText(), new RegExp(`Your code is ${listedCode}`));
    await check('inbox-message');

    await hosted.getByLabel('6-digit code').fill(listedCode);
    await hosted.getByRole('button', { name: 'Verify' }).click();
    await hosted.waitForURL(`${base}/payout-page/${created.id}`);
    assert.equal(await hosted.getByLabel('6-digit code').count(), 0, 'the code unlocked the page');
    await hosted.close();
  });

  test('the event log shows deliveries and redelivers an event', async () => {
    await page.getByRole('link', { name: 'Events' }).click();
    await check('events');
    await page.getByRole('link', { name: /^evt_/ }).first().click();
    detailUrls.event = page.url();
    const before = receiver.requests.length;
    await page.getByRole('button', { name: 'Redeliver to all subscribed endpoints' }).click();
    assert.match(await page.getByRole('status').first().innerText(), /queued for delivery again/);
    await check('event-redelivered');
    await context.drainJobs();
    await receiver.waitFor(before + 1);
  });

  test('the other screens pass the accessibility check too', async () => {
    // A subscription with data: paid, then renewed once (two invoices, two entitlements).
    const subscribed = await api<{ id: string }>('POST', '/v1/payment_pages?livemode=false', {
      amount: 1_500,
      currency: 'USD',
      clientReferenceId: 'e2e-subscription',
      customer: { referenceId: 'e2e-subscriber', email: 'subscriber@example.com' },
      subscription: { productId: 'e2e-pro-plan', interval: 'MONTH', intervalCount: 1 },
    });
    const paid = await api<{ subscriptionId: string }>('POST', `/v1/test_helpers/payment_pages/${subscribed.id}/pay?livemode=false`, futureCard('4242424242424242'));
    await context.drainJobs();
    await page.getByRole('link', { name: 'Subscriptions', exact: true }).click();
    await page.getByRole('link', { name: 'e2e-pro-plan' }).click();
    assert.match(page.url(), new RegExp(`/subscriptions/${paid.subscriptionId}$`));
    await page.getByRole('button', { name: 'Renew now (sandbox)' }).click();
    assert.match(await page.locator('main').innerText(), /#2[\s\S]*15\.00 USD[\s\S]*#1[\s\S]*15\.00 USD[\s\S]*Entitlements[\s\S]*ent_[\s\S]*ent_/);
    await check('subscription');
    for (const [link, name] of [
      ['Customers', 'customers'],
      ['Subscriptions', 'subscriptions'],
      ['Entitlements', 'entitlements'],
      ['PII key', 'pii-key'],
    ] as const) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await check(name);
    }
    await page.getByRole('button', { name: 'Reveal keys' }).click();
    assert.match(await page.locator('pre').innerText(), /compactDecrypt/);
    await check('pii-key-revealed');
    await page.getByRole('link', { name: 'e2e-payee' }).count();
    await page.goto(`${base}/dashboard/sandbox/customers?reference=e2e-payee`);
    await page.getByRole('link', { name: 'e2e-payee' }).click();
    await check('customer');
    await page.getByRole('link', { name: merchant.dashboardUser.email }).click();
    await check('account');
    await page.goto(`${base}/dashboard/sandbox/payout-pages/payout_page_doesnotexist`);
    assert.match(await page.locator('h1').innerText(), /Not found/);
    await check('not-found');
  });

  test('lists disputes and shows them on their payment page', async () => {
    const created = await api<{ id: string }>('POST', '/v1/payment_pages?livemode=false', { amount: 4_250, currency: 'USD', clientReferenceId: 'e2e-order-disputed', customer: { referenceId: 'e2e-buyer', email: 'buyer@example.com' } });
    await api('POST', `/v1/test_helpers/payment_pages/${created.id}/pay?livemode=false`, futureCard('4000000000000259'));
    context.clock.advance(3_000);
    await context.drainJobs();
    await page.goto(`${base}/dashboard/sandbox`);
    await page.getByRole('link', { name: 'Disputes' }).click();
    assert.match(await page.locator('main').innerText(), /e2e-order-disputed[\s\S]*42\.50 USD[\s\S]*Fraudulent[\s\S]*Needs your response/);
    await check('disputes');
    await page.getByRole('link', { name: 'e2e-order-disputed' }).click();
    assert.match(await page.locator('main').innerText(), /Disputes[\s\S]*Needs your response/);
    await check('payment-page-disputed');
  });

  test('creates a payout page and a payment page from their forms, showing a refused field beside it', async () => {
    await page.goto(`${base}/dashboard/sandbox/payout-pages`);
    await page.getByRole('link', { name: 'New payout page' }).click();
    await page.waitForURL(/\/payout-pages\/new$/);
    await check('payout-page-new');
    await page.getByLabel('Your customer id').fill('e2e-form-payee');
    await page.getByLabel('Customer e-mail').fill('e2e-form-payee@example.com');
    await page.getByLabel('Amount').fill('12.345');
    await page.getByRole('button', { name: 'Create payout page' }).click();
    await page.waitForSelector('#create-error');
    assert.match(await page.locator('#create-error').innerText(), /Amount must be an amount such as 25\.00/);
    assert.equal(await page.getByLabel('Amount').getAttribute('aria-invalid'), 'true');
    await check('payout-page-new-refused');
    await page.getByLabel('Amount').fill('12.34');
    await page.getByRole('button', { name: 'Create payout page' }).click();
    await page.waitForURL(/\/payout-pages\/[^/]+\?notice=payout-page-created$/);
    assert.match(await page.locator('main').innerText(), /The payout page was created[\s\S]*12\.34 USD/);

    await page.goto(`${base}/dashboard/sandbox/payment-pages/new`);
    await page.getByLabel('Your customer id').fill('e2e-form-buyer');
    await page.getByLabel('Customer e-mail').fill('e2e-form-buyer@example.com');
    await page.getByLabel('Amount').fill('42');
    await page.getByLabel('What it is for (optional)').fill('A spare jib');
    await page.getByRole('button', { name: 'Create payment page' }).click();
    await page.waitForURL(/\/payment-pages\/[^/]+\?notice=payment-page-created$/);
    assert.match(await page.locator('main').innerText(), /A spare jib/);
    await check('payment-page-created');
    // Copy buttons appear with JavaScript and put the value on the clipboard.
    await desktop.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    const copyId = page.getByRole('button', { name: 'Copy the payment page ID' });
    assert.equal(await copyId.isVisible(), true);
    const pageId = await copyId.getAttribute('data-copy');
    assert.match(String(pageId), /^page_/);
    await copyId.click();
    await page.waitForFunction("document.querySelector('button.copy')?.textContent === 'Copied'");
    assert.equal(await page.evaluate('navigator.clipboard.readText()'), pageId);
  });

  test('shows the audit log of what was done above, from the navigation', async () => {
    await context.platform.services.audit.flush();
    await page.goto(`${base}/dashboard/sandbox`);
    await page.getByRole('link', { name: 'Audit', exact: true }).click();
    await page.waitForURL(/\/dashboard\/sandbox\/audit-log$/);
    const shown = await page.locator('main').innerText();
    assert.match(shown, /Audit log/);
    assert.match(shown, /Dashboard user[\s\S]*Succeeded/);
    assert.match(shown, /API key[\s\S]*Customers: create/);
    await check('audit-log');
  });

  test('is usable on a phone: no sideways scrolling of the page, tables scroll in their own region', async () => {
    const phone = await browser.newContext({ viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true, timezoneId, locale: 'en-US' });
    await phone.addCookies((await desktop.cookies()).map((cookie) => ({ ...cookie })));
    const mobile = await phone.newPage();
    for (const [url, name] of [
      ['/dashboard/sandbox', 'phone-overview'],
      ['/dashboard/sandbox/payout-pages', 'phone-payouts'],
      ['/dashboard/sandbox/fraud-reports', 'phone-fraud-reports'],
      ['/dashboard/sandbox/disputes', 'phone-disputes'],
      ['/dashboard/sandbox/audit-log', 'phone-audit-log'],
      ['/dashboard/sandbox/payout-pages/new', 'phone-payout-page-new'],
      ['/dashboard/sandbox/payment-pages/new', 'phone-payment-page-new'],
      [detailUrls.event, 'phone-event'],
      [detailUrls.endpoint, 'phone-webhook-endpoint'],
      [detailUrls.payout, 'phone-payout-detail'],
      [detailUrls.inbox, 'phone-inbox-message'],
    ] as const) {
      assert.ok(url, `${name}: the page was visited earlier`);
      await mobile.goto(url.startsWith('http') ? url : `${base}${url}`);
      const overflow = (await mobile.evaluate('document.documentElement.scrollWidth - document.documentElement.clientWidth')) as number;
      // On failure, name the elements that stick out (outside the scroll regions, which may).
      const culprits = overflow > 0 ? await elementsWiderThanViewport(mobile) : [];
      assert.ok(overflow <= 0, `${name} scrolls sideways by ${overflow}px: ${culprits.join(', ')}`);
      await check(name, mobile);
    }
    await phone.close();
  });

  test('signs out', async () => {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/dashboard\/sign-in\?signed_out=1$/);
    await page.goto(`${base}/dashboard/sandbox`);
    assert.match(page.url(), /\/dashboard\/sign-in\?next=/);
    assert.ok(checkedScreens.length >= 20, `checked ${checkedScreens.length} screens`);
  });
});
