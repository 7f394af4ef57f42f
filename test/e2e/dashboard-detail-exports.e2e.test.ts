import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { closeBrowserTest, elementsWiderThanViewport, shootAndCheckAxe, signInToDashboard, startBrowserTest } from '../helpers/chromium.ts';
import type { TestContext, TestMerchant } from '../helpers/context.ts';
import { onEmbeddedRunOnly } from '../helpers/database.ts';
import { createRefund } from '../helpers/refunds.ts';
import { createCustomer, createPaymentPage, createPayoutPage, identity, payPaymentPage, settleJobs } from '../http/dashboard/fixtures.ts';
import { signedInClient } from '../http/dashboard/client.ts';
import { postInvite } from '../http/dashboard/team-helpers.ts';

const artifacts = path.resolve('test-artifacts', 'dashboard-detail-exports');

/**
 * The period filter and the CSV links of the lists inside screens (decision 0046's amendment), in
 * chromium at desktop and phone size: a customer's history narrowed by a period, a subscription's
 * invoices and entitlements, an event's deliveries and the Team screen. axe-core: no serious or
 * critical violation; nothing but the tables' own scroll regions wider than the phone.
 */
describe('dashboard lists inside screens: period and CSV links in chromium', { timeout: 300_000, skip: onEmbeddedRunOnly }, () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let browser: Browser;
  let base: string;
  const ids = { customer: '', subscription: '', event: '' };

  before(async () => {
    ({ context, browser, base } = await startBrowserTest(artifacts));
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    const customer = await createCustomer(context, merchant, { ...identity, email: 'ada@example.com' });
    ids.customer = customer.id;
    await settleJobs(context);
    const asCustomer = { customer: { referenceId: customer.referenceId, email: 'ada@example.com' } };
    await createPayoutPage(context, merchant, { ...asCustomer, clientReferenceId: 'payout-0001' });
    const order = await createPaymentPage(context, merchant, { ...asCustomer, clientReferenceId: 'order-0001', amount: 4_000 });
    await payPaymentPage(context, merchant, order.id);
    await createRefund(context, merchant, { paymentPageId: order.id, amount: 1_500 });
    const plan = await createPaymentPage(context, merchant, { ...asCustomer, clientReferenceId: 'plan-0001', subscription: { productId: 'pro-plan', interval: 'MONTH' } });
    ids.subscription = String((await payPaymentPage(context, merchant, plan.id)).subscriptionId);
    const endpoint = await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: merchant.apiKey, body: { url: 'https://hooks.example.com/paysail' } });
    const sent = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${(JSON.parse(endpoint.body) as { data: { id: string } }).data.id}/test?livemode=false`, apiKey: merchant.apiKey, body: { eventType: 'PAYMENT_SUCCEEDED' } });
    ids.event = (JSON.parse(sent.body) as { data: { event: { id: string } } }).data.event.id;
    const owner = await signedInClient(context, merchant);
    assert.equal((await postInvite(owner, 'grace@example.com', 'developer')).statusCode, 303);
  });
  after(() => closeBrowserTest({ browser, context }));

  for (const [device, viewport] of [
    ['desktop', { width: 1440, height: 900 }],
    ['phone', { width: 390, height: 844 }],
  ] as const) {
    test(`${device}: a customer's history by period, a subscription's invoices, an event's deliveries and the Team screen, each with its CSV links`, async () => {
      const page = await (await browser.newContext({ viewport, locale: 'en-US' })).newPage();
      await signInToDashboard(page, base, merchant);
      const today = context.clock.now().toISOString().slice(0, 10);
      const screens = [
        { name: 'customer', url: `/dashboard/sandbox/customers/${ids.customer}`, filter: "Filter this customer's history", links: 5 },
        { name: 'subscription', url: `/dashboard/sandbox/subscriptions/${ids.subscription}`, filter: 'Filter invoices and entitlements', links: 2 },
        { name: 'team', url: '/dashboard/sandbox/team', filter: 'Filter members and invitations', links: 2 },
      ];
      for (const screen of screens) {
        await page.goto(`${base}${screen.url}`);
        // The period is set through the form, as a person would.
        const form = page.getByRole('form', { name: screen.filter });
        await form.getByLabel('Created from (UTC day)').fill(today);
        await form.getByRole('button', { name: 'Filter' }).click();
        await page.waitForURL(new RegExp(`\\?from=${today}&to=$`));
        const links = page.getByRole('link', { name: /^Export CSV/ });
        assert.equal(await links.count(), screen.links, screen.name);
        for (const href of await links.evaluateAll((found) => found.map((link) => link.getAttribute('href') ?? ''))) {
          assert.match(href, new RegExp(`/export\\.csv\\?from=${today}$`), 'the CSV carries the period');
        }
        assert.deepEqual(await elementsWiderThanViewport(page), [], `${screen.name}: nothing wider than the screen`);
        await shootAndCheckAxe(browser, page, artifacts, `${device}-${screen.name}-period`, undefined, { fullPage: true });
      }
      await page.goto(`${base}/dashboard/sandbox/developers/events/${ids.event}`);
      const download = page.waitForEvent('download');
      await page.getByRole('link', { name: 'Export CSV of the deliveries' }).click();
      assert.equal((await download).suggestedFilename(), 'event-deliveries-sandbox.csv');
      await shootAndCheckAxe(browser, page, artifacts, `${device}-event-deliveries`, undefined, { fullPage: true });
      await page.context().close();
    });
  }
});
