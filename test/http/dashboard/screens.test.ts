import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createEndpoint } from '../../helpers/webhooks.ts';
import { createCustomer, createPaymentPage, createPayoutPage, payPaymentPage, payoutAwaitingRelease, reportFraud, settleJobs, identity } from './fixtures.ts';

describe('dashboard screens: empty states, lists, pagination, isolation between merchants and modes', () => {
  let context: TestContext;
  let acme: TestMerchant;
  let other: TestMerchant;
  let acmeClient: DashboardClient;
  let otherClient: DashboardClient;

  before(async () => {
    context = await createTestContext();
    acme = await context.createMerchant({ name: 'Acme Sails' });
    other = await context.createMerchant({ name: 'Other Boats', live: true });
    acmeClient = await signedInClient(context, acme);
    otherClient = await signedInClient(context, other);
  });
  after(async () => context.close());

  test('every list of a new merchant answers 200 with an empty state that says what to do next', async () => {
    const expectations: Array<[string, RegExp]> = [
      ['/dashboard/sandbox', /No payments or payouts in sandbox in the last 30 days/],
      ['/dashboard/sandbox/customers', /No customers in sandbox yet\. Create one with POST \/v1\/customers\?livemode=false/],
      ['/dashboard/sandbox/payout-pages', /No payout pages in sandbox yet\. Create one with POST \/v1\/payout_pages\?livemode=false/],
      ['/dashboard/sandbox/payment-pages', /No payment pages in sandbox yet\. Create one with POST \/v1\/payment_pages\?livemode=false/],
      ['/dashboard/sandbox/subscriptions', /No subscriptions in sandbox yet/],
      ['/dashboard/sandbox/entitlements', /No entitlements in sandbox yet/],
      ['/dashboard/sandbox/fraud-reports', /No fraud reports in sandbox\. Pay a sandbox payment page with the card 4100 0000 0000 0019/],
      ['/dashboard/sandbox/developers/webhooks', /No webhook endpoints in sandbox\. Add the address of your server below/],
      ['/dashboard/sandbox/developers/events', /No events in sandbox yet/],
      ['/dashboard/sandbox/inbox', /No e-mails yet\. Create a payout page with livemode=false/],
    ];
    for (const [url, expected] of expectations) {
      const response = await otherClient.get(url);
      assert.equal(response.statusCode, 200, url);
      assert.match(textOf(response.body), expected, url);
      assert.doesNotMatch(response.body, /rel="next"/, `${url} has no next page`);
    }
  });

  test('the overview shows balances per currency for every mode the merchant has', async () => {
    const sandboxOnly = textOf((await acmeClient.get('/dashboard/sandbox')).body);
    assert.match(sandboxOnly, /Sandbox USDC 1,000,000\.00 USDC 0\.00 USDC 0\.00 USDC/);
    assert.doesNotMatch(sandboxOnly, /Live USDC/);
    assert.match(sandboxOnly, /Live balances appear once your operator enables live mode/);
    const both = textOf((await otherClient.get('/dashboard/live')).body);
    assert.match(both, /Live USDC 0\.00 USDC/);
    assert.match(both, /Sandbox USDC 1,000,000\.00 USDC/);
  });

  test('customers: 25 a page with next/previous links, search by referenceId prefix, KYC filter, detail', async () => {
    for (let index = 0; index < 27; index += 1) {
      await createCustomer(context, acme, { referenceId: `list-${String(index).padStart(2, '0')}` });
    }
    const verified = await createCustomer(context, acme, { referenceId: 'kyc-ada', email: 'ada@example.com', ...identity });
    await settleJobs(context);

    const first = await acmeClient.get('/dashboard/sandbox/customers');
    assert.equal(first.statusCode, 200);
    assert.equal((first.body.match(/href="\/dashboard\/sandbox\/customers\/cus_/g) ?? []).length, 25);
    assert.match(first.body, /<a href="\/dashboard\/sandbox\/customers\?page=2" rel="next">/);
    const second = await acmeClient.get('/dashboard/sandbox/customers?page=2');
    assert.equal((second.body.match(/href="\/dashboard\/sandbox\/customers\/cus_/g) ?? []).length, 3);
    assert.match(second.body, /<a href="\/dashboard\/sandbox\/customers" rel="prev">/);
    assert.doesNotMatch(second.body, /rel="next"/);

    const search = await acmeClient.get('/dashboard/sandbox/customers?reference=list-1');
    const found = textOf(search.body);
    assert.equal((search.body.match(/href="\/dashboard\/sandbox\/customers\/cus_/g) ?? []).length, 10);
    assert.match(found, /list-10/);
    assert.doesNotMatch(found, /list-09/);
    // LIKE wildcards in the search are taken literally.
    assert.match(textOf((await acmeClient.get('/dashboard/sandbox/customers?reference=list_%25')).body), /No customer matches these filters/);

    const approved = await acmeClient.get('/dashboard/sandbox/customers?kyc=APPROVED');
    assert.equal((approved.body.match(/href="\/dashboard\/sandbox\/customers\/cus_/g) ?? []).length, 1);
    assert.match(textOf(approved.body), /kyc-ada/);

    const detail = await acmeClient.get(`/dashboard/sandbox/customers/${verified.id}`);
    assert.equal(detail.statusCode, 200);
    const text = textOf(detail.body);
    assert.match(text, /Customer kyc-ada/);
    assert.match(text, /ada@example\.com/);
    assert.match(text, /Approved/);
    assert.match(text, /Identity verifications \(1\) Export CSV Status Provider Reason Submitted Decided Approved sandbox-kyc/);
    assert.match(detail.body, /<time datetime="\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z" data-local="">\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC<\/time>/);
  });

  test("another merchant's ids in dashboard URLs answer 404, for reads and for actions", async () => {
    const customer = await createCustomer(context, acme);
    const payout = await createPayoutPage(context, acme);
    const payment = await createPaymentPage(context, acme);
    const paid = await createPaymentPage(context, acme);
    const { paymentId } = await payPaymentPage(context, acme, paid.id);
    assert.ok(paymentId);
    await reportFraud(context, acme, paymentId);
    await context.drainJobs();
    const [email] = await context.platform.services.email.listEmails({ merchantId: acme.id, relatedId: payout.id, limit: 1 });
    assert.ok(email, 'the payout page e-mailed its customer');
    const [event] = (await context.platform.services.events.listEvents(await context.platform.services.merchants.getMerchant(acme.id), false, {})).events;
    assert.ok(event, 'an event was recorded');
    const subscribed = await createPaymentPage(context, acme, { subscription: { productId: 'isolation-plan', interval: 'MONTH', intervalCount: 1 } });
    const { subscriptionId } = await payPaymentPage(context, acme, subscribed.id);
    assert.ok(subscriptionId);
    const awaiting = await payoutAwaitingRelease(context, acme);
    const endpoint = await createEndpoint(context, acme, { url: 'http://127.0.0.1:9/isolation' });

    const reads = [
      `/dashboard/sandbox/customers/${customer.id}`,
      `/dashboard/sandbox/payout-pages/${payout.id}`,
      `/dashboard/sandbox/payment-pages/${payment.id}`,
      `/dashboard/sandbox/fraud-reports/${paymentId}`,
      `/dashboard/sandbox/inbox/${email.id}`,
      `/dashboard/sandbox/inbox/${email.id}/html`,
      `/dashboard/sandbox/developers/events/${event.id}`,
      `/dashboard/sandbox/subscriptions/${subscriptionId}`,
      `/dashboard/sandbox/developers/webhooks/${endpoint.id}`,
    ];
    for (const url of reads) {
      assert.equal((await acmeClient.get(url)).statusCode, 200, `the owner reads ${url}`);
      const foreign = await otherClient.get(url);
      assert.equal(foreign.statusCode, 404, `another merchant gets 404 for ${url}`);
      assert.match(textOf(foreign.body), /Not found/);
      assert.doesNotMatch(foreign.body, new RegExp(acme.id));
    }
    // The inbox renders the HTML part in a sandboxed frame: no script, no network, only we may frame it.
    const message = await acmeClient.get(`/dashboard/sandbox/inbox/${email.id}`);
    assert.match(message.body, new RegExp(`<iframe class="email-preview" src="/dashboard/sandbox/inbox/${email.id}/html" sandbox="" referrerpolicy="no-referrer"`));
    assert.match(String(message.headers['content-security-policy']), /frame-src 'self'/);
    const framed = await acmeClient.get(`/dashboard/sandbox/inbox/${email.id}/html`);
    assert.equal(framed.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(framed.body, /^<!doctype html>/);
    assert.equal(framed.headers['content-security-policy'], "default-src 'none'; style-src 'unsafe-inline'; img-src data:; form-action 'none'; base-uri 'none'; frame-ancestors 'self'; sandbox");
    assert.equal(framed.headers['x-frame-options'], 'SAMEORIGIN');
    await otherClient.get('/dashboard/sandbox');
    const endpointPath = `/dashboard/sandbox/developers/webhooks/${endpoint.id}`;
    const actions: Array<[string, Record<string, string>]> = [
      [`/dashboard/sandbox/payout-pages/${payout.id}/cancel`, { confirmed: '1' }],
      [`/dashboard/sandbox/payout-pages/${awaiting.id}/release`, { confirmed: '1' }],
      [`/dashboard/sandbox/payment-pages/${payment.id}/expire`, { confirmed: '1' }],
      [`/dashboard/sandbox/developers/events/${event.id}/redeliver`, {}],
      [`/dashboard/sandbox/subscriptions/${subscriptionId}/cancel`, { confirmed: '1' }],
      [`/dashboard/sandbox/subscriptions/${subscriptionId}/renew`, {}],
      [`${endpointPath}/reveal`, {}],
      [`${endpointPath}/rotate`, { confirmed: '1' }],
      [`${endpointPath}/status`, { status: 'DISABLED' }],
      [`${endpointPath}/events`, { enabledEvents: 'PAYMENT_EXPIRED' }],
      [`${endpointPath}/test`, { eventType: 'PAYMENT_EXPIRED' }],
      [`${endpointPath}/delete`, { confirmed: '1' }],
    ];
    for (const [url, fields] of actions) {
      const foreign = await otherClient.post(url, fields);
      assert.equal(foreign.statusCode, 404, url);
      assert.match(textOf(foreign.body), /Not found/, url);
      assert.doesNotMatch(foreign.body, /whsec_/, `${url} reveals no secret`);
    }
    // Nothing of acme's changed.
    const acmeRow = await context.platform.services.merchants.getMerchant(acme.id);
    const subscription = await context.platform.services.subscriptions.getSubscription(acmeRow, false, subscriptionId);
    assert.equal(subscription.cancelAtPeriodEnd, false);
    assert.equal(subscription.status, 'ACTIVE');
    assert.equal((await context.platform.services.payoutPages.getPayoutPage(acmeRow, false, awaiting.id))['sub-status'], 'AWAITING_RELEASE');
    const untouched = await context.platform.services.webhooks.getEndpoint(acmeRow, false, endpoint.id);
    assert.equal(untouched.status, 'ENABLED');
    assert.deepEqual(untouched.enabledEvents, ['*']);
    assert.equal(untouched.previousSecretExpiresAt, undefined, 'the secret was not rotated');
    assert.equal((await context.platform.services.webhooks.listDeliveries(acmeRow, false, { endpointId: endpoint.id })).deliveries.length, 0, 'no test event was sent');
    assert.equal((await acmeClient.get(endpointPath)).statusCode, 200, 'the endpoint was not deleted');
    const keys = await context.platform.services.merchants.listApiKeys(acme.id);
    const [acmeKey] = keys;
    assert.ok(acmeKey);
    assert.equal((await otherClient.post(`/dashboard/sandbox/developers/api-keys/${acmeKey.id}/revoke`)).statusCode, 404);
    assert.equal((await otherClient.post(`/dashboard/sandbox/developers/api-keys/${acmeKey.id}/revoke`, { confirmed: '1' })).statusCode, 404);
    assert.equal((await context.platform.services.merchants.listApiKeys(acme.id))[0]?.revokedAt, null, "the other merchant's key is untouched");
    assert.equal((await context.platform.services.payoutPages.getPayoutPage(await context.platform.services.merchants.getMerchant(acme.id), false, payout.id)).status, 'CREATED');
  });

  test('a sandbox id under the live path answers 404: modes never cross', async () => {
    const customer = await createCustomer(context, other);
    assert.equal((await otherClient.get(`/dashboard/sandbox/customers/${customer.id}`)).statusCode, 200);
    assert.equal((await otherClient.get(`/dashboard/live/customers/${customer.id}`)).statusCode, 404);
    const live = await otherClient.get('/dashboard/live/customers');
    assert.equal(live.statusCode, 200);
    assert.match(textOf(live.body), /No customers in live yet\. Create one with POST \/v1\/customers ?,/);
    assert.match(live.body, /<a href="\/dashboard\/live\/customers" aria-current="page">Live<\/a>/);
    assert.doesNotMatch(live.body, /Sandbox: test data only/);
  });

  test('the sections and the mode switch keep the section when switching modes', async () => {
    const page = await otherClient.get('/dashboard/sandbox/fraud-reports');
    assert.match(page.body, /<a href="\/dashboard\/live\/fraud-reports">Live<\/a>/);
    assert.match(page.body, /<a href="\/dashboard\/sandbox\/fraud-reports" aria-current="page">Fraud reports<\/a>/);
    assert.match(page.body, /<a class="skip" href="#content">Skip to content<\/a>/);
  });
});

describe('dashboard inbox with an SMTP server configured', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext({ env: { SMTP_URL: 'smtp://127.0.0.1:2525' } });
  });
  after(async () => context.close());

  test('live e-mails leave through SMTP, so the live inbox explains instead of listing; sandbox still lists', async () => {
    const merchant = await context.createMerchant({ live: true });
    const client = await signedInClient(context, merchant);
    await createPayoutPage(context, merchant);
    const live = await client.get('/dashboard/live/inbox');
    assert.equal(live.statusCode, 200);
    assert.match(textOf(live.body), /Live e-mails are delivered by SMTP/);
    const sandbox = await client.get('/dashboard/sandbox/inbox');
    assert.match(sandbox.body, /href="\/dashboard\/sandbox\/inbox\/eml_/);
  });
});
