import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { paymentColor, payoutColor } from '../../../src/modules/dashboard/pages/chart.tsx';
import { bankAccount, createCustomer, createPaymentPage, createPayoutPage, identity, payPaymentPage, payoutAwaitingRelease, reportFraud, settleJobs } from './fixtures.ts';

describe('dashboard actions go through the same services as the API', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  async function apiGet(url: string): Promise<Record<string, unknown>> {
    const response = await context.request({ method: 'GET', url, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Record<string, unknown> }>(response).data;
  }

  test('payout pages: filter by status, release from the detail page, status history, refused second release', async () => {
    const page = await payoutAwaitingRelease(context, merchant);
    const waiting = textOf((await client.get('/dashboard/sandbox')).body);
    assert.match(waiting, /1 payout is waiting for you to release them\. Review them/);

    const filtered = await client.get('/dashboard/sandbox/payout-pages?status=AWAITING_RELEASE');
    assert.match(filtered.body, new RegExp(`/dashboard/sandbox/payout-pages/${page.id}`));
    const processed = await client.get('/dashboard/sandbox/payout-pages?status=PROCESSED');
    assert.match(textOf(processed.body), /No payout page matches these filters/);

    const detail = await client.get(`/dashboard/sandbox/payout-pages/${page.id}`);
    assert.equal(detail.statusCode, 200);
    assert.match(detail.body, /Release payout/);
    assert.match(detail.body, /Cancel payout page/);
    assert.match(textOf(detail.body), /Status history When Status Sub-status What happened By Event .*Open Waiting for the customer create merchant/);

    const released = await client.post(`/dashboard/sandbox/payout-pages/${page.id}/release`, { confirmed: '1' });
    assert.equal(released.statusCode, 303);
    assert.equal(released.headers.location, `/dashboard/sandbox/payout-pages/${page.id}?notice=released`);
    assert.equal((await apiGet(`/v1/payout_pages/${page.id}`)).status, 'PROCESSING');
    const after = await client.get(`/dashboard/sandbox/payout-pages/${page.id}?notice=released`);
    assert.match(textOf(after.body), /The payout was released and is being processed/);
    assert.match(textOf(after.body), /Processing Sent to the bank or network release merchant/);
    assert.doesNotMatch(after.body, /Release payout/);

    const again = await client.post(`/dashboard/sandbox/payout-pages/${page.id}/release`, { confirmed: '1' });
    assert.equal(again.headers.location, `/dashboard/sandbox/payout-pages/${page.id}?error=INVALID_STATE`);
    assert.match(textOf((await client.get(String(again.headers.location))).body), /This action is not possible now/);

    await settleJobs(context);
    assert.equal((await apiGet(`/v1/payout_pages/${page.id}`)).status, 'PROCESSED');
    const overview = textOf((await client.get('/dashboard/sandbox')).body);
    assert.match(overview, /USDC ?: payment and payout volume, last 30 days/);
    assert.match(overview, /payouts 123\.45 USDC in total \(1 payout\)/);
  });

  test('overview chart: after a paid payment and a processed payout, one SVG per currency shows 30 days with payment and payout volume', async () => {
    const paymentPage = await createPaymentPage(context, merchant, { amount: 2_500, currency: 'USD' });
    await payPaymentPage(context, merchant, paymentPage.id);
    const customer = await createCustomer(context, merchant, { ...identity, email: 'usd-payee@example.com' });
    await settleJobs(context);
    const payout = await createPayoutPage(context, merchant, { amount: 1_000, fundingCurrency: 'USD', customer: { referenceId: customer.referenceId, email: 'usd-payee@example.com' } });
    const confirmed = await context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${payout.id}/confirm?livemode=false`, apiKey: merchant.apiKey, body: { payoutMethod: bankAccount } });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await client.get(`/dashboard/sandbox/payout-pages/${payout.id}`);
    assert.equal((await client.post(`/dashboard/sandbox/payout-pages/${payout.id}/release`, { confirmed: '1' })).headers.location, `/dashboard/sandbox/payout-pages/${payout.id}?notice=released`);
    await settleJobs(context);
    assert.equal((await apiGet(`/v1/payout_pages/${payout.id}`)).status, 'PROCESSED');

    const overview = (await client.get('/dashboard/sandbox')).body;
    const figure = /<figure class="card chart"><figcaption><strong>USD<\/strong>[\s\S]*?<\/figure>/.exec(overview)?.[0];
    assert.ok(figure, 'a chart for USD');
    const svg = /<svg viewBox="0 0 720 220" role="img" aria-labelledby="chart-usd-title chart-usd-desc"[^>]*>([\s\S]*?)<\/svg>/.exec(figure)?.[1];
    assert.ok(svg, 'the chart is an SVG image labelled by its title and description');
    assert.match(svg, /<title id="chart-usd-title">USD payments and payouts per day<\/title>/);
    const days = [...figure.matchAll(/<tr><td>(\d{4}-\d{2}-\d{2})<\/td>/g)].map((match) => String(match[1]));
    assert.equal(days.length, 30, 'one row per day, 30 days');
    const [first] = days;
    const last = days[days.length - 1];
    assert.ok(first && last);
    assert.equal((Date.parse(last) - Date.parse(first)) / 86_400_000, 29, 'consecutive UTC days');
    assert.equal(last, context.clock.now().toISOString().slice(0, 10), 'ending today');
    const description = /<desc id="chart-usd-desc">([^<]*)<\/desc>/.exec(svg)?.[1] ?? '';
    assert.match(description, new RegExp(`^Per day from ${first} to ${last} \\(UTC days\\): payments 25\\.00 USD in total \\(1 payment\\), payouts 10\\.00 USD in total \\(1 payout\\)\\.$`));
    // Both series are drawn: a payment bar and a payout bar, and the numbers table has both amounts on one day.
    assert.match(svg, new RegExp(`<rect [^>]*fill="${paymentColor}"`));
    assert.match(svg, new RegExp(`<rect [^>]*fill="${payoutColor}"`));
    assert.match(figure, /<td class="num">25\.00 USD<\/td><td class="num">10\.00 USD<\/td>/);
  });

  test('payout pages: cancel from the dashboard', async () => {
    const page = await createPayoutPage(context, merchant);
    await client.get(`/dashboard/sandbox/payout-pages/${page.id}`);
    const canceled = await client.post(`/dashboard/sandbox/payout-pages/${page.id}/cancel`, { confirmed: '1' });
    assert.equal(canceled.headers.location, `/dashboard/sandbox/payout-pages/${page.id}?notice=canceled`);
    const data = await apiGet(`/v1/payout_pages/${page.id}`);
    assert.equal(data.status, 'CANCELED');
    assert.equal(data['sub-status'], 'MERCHANT_CANCELED');
  });

  test('payment pages: expire button on a CREATED page; a PAID page cannot be expired', async () => {
    const open = await createPaymentPage(context, merchant);
    const detail = await client.get(`/dashboard/sandbox/payment-pages/${open.id}`);
    assert.match(detail.body, /Expire page/);
    const expired = await client.post(`/dashboard/sandbox/payment-pages/${open.id}/expire`, { confirmed: '1' });
    assert.equal(expired.headers.location, `/dashboard/sandbox/payment-pages/${open.id}?notice=expired`);
    assert.equal((await apiGet(`/v1/payment_pages/${open.id}`)).status, 'EXPIRED');
    const after = await client.get(`/dashboard/sandbox/payment-pages/${open.id}?notice=expired`);
    assert.match(textOf(after.body), /The payment page was expired/);
    assert.doesNotMatch(after.body, /Expire page/);

    const paid = await createPaymentPage(context, merchant);
    await payPaymentPage(context, merchant, paid.id);
    const refused = await client.post(`/dashboard/sandbox/payment-pages/${paid.id}/expire`, { confirmed: '1' });
    assert.equal(refused.headers.location, `/dashboard/sandbox/payment-pages/${paid.id}?error=WRONG_PARAMETER`);
    assert.equal((await apiGet(`/v1/payment_pages/${paid.id}`)).status, 'PAID');
    const paidPage = textOf((await client.get(`/dashboard/sandbox/payment-pages/${paid.id}`)).body);
    assert.match(paidPage, /Card payments Payment Status Card Amount Attempted Fraud report pay_\S+ Succeeded VISA credit 4242 •••• 4242 25\.00 USD/);

    const list = await client.get('/dashboard/sandbox/payment-pages?status=PAID');
    assert.match(list.body, new RegExp(paid.id));
    assert.doesNotMatch(list.body, new RegExp(open.id));
  });

  test('fraud reports: the API filters (payment id, issue dates) and the detail with its payment', async () => {
    const first = await createPaymentPage(context, merchant);
    const second = await createPaymentPage(context, merchant);
    const firstPayment = (await payPaymentPage(context, merchant, first.id)).paymentId;
    const secondPayment = (await payPaymentPage(context, merchant, second.id)).paymentId;
    assert.ok(firstPayment && secondPayment);
    const report = (await reportFraud(context, merchant, firstPayment, 'Card reported stolen')).checkoutFraudReport;
    context.clock.advance(3 * 24 * 60 * 60 * 1000);
    await reportFraud(context, merchant, secondPayment, 'Account takeover');
    // Three days later the 12-hour session has ended: sign in again.
    assert.equal((await client.get('/dashboard/sandbox/fraud-reports')).statusCode, 303);
    client = await signedInClient(context, merchant);

    const all = textOf((await client.get('/dashboard/sandbox/fraud-reports')).body);
    assert.match(all, /2 reports/);
    assert.ok(all.indexOf('Account takeover') < all.indexOf('Card reported stolen'), 'newest first');

    const byPayment = textOf((await client.get(`/dashboard/sandbox/fraud-reports?paymentId=${firstPayment}`)).body);
    assert.match(byPayment, /1 report /);
    assert.match(byPayment, /Card reported stolen/);

    const day = report.fraudIssueDate.slice(0, 10);
    const byDate = textOf((await client.get(`/dashboard/sandbox/fraud-reports?from=${day}&until=${day}`)).body);
    assert.match(byDate, /1 report /);
    assert.doesNotMatch(byDate, /Account takeover/);

    const csv = await client.get(`/dashboard/sandbox/fraud-reports/export.csv?from=${day}&until=${day}`);
    assert.equal(csv.statusCode, 200);
    assert.equal(csv.headers['content-disposition'], 'attachment; filename="fraud-reports-sandbox.csv"');
    const rows = parse(csv.body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.map((row) => [row.checkoutPaymentId, row.fraudReason, row.cardNumber]),
      [[firstPayment, 'Card reported stolen', '424242******4242']],
    );
    assert.ok(!csv.body.includes('buyer@example.com'), 'no e-mail: the list does not show it');
    assert.equal(parse((await client.get('/dashboard/sandbox/fraud-reports/export.csv')).body, { columns: true }).length, 2);
    assert.equal((await client.get('/dashboard/sandbox/fraud-reports/export.csv?from=2030-01-02&until=2030-01-01')).statusCode, 400, 'a bad period is refused before the download');

    const backwards = await client.get(`/dashboard/sandbox/fraud-reports?from=2030-01-02&until=2030-01-01`);
    assert.equal(backwards.statusCode, 400);
    assert.match(textOf(backwards.body), /The “from” day must not be after the “until” day/);
    const malformed = await client.get('/dashboard/sandbox/fraud-reports?from=yesterday');
    assert.equal(malformed.statusCode, 400);
    assert.match(textOf(malformed.body), /Enter the days as YYYY-MM-DD/);

    const detail = textOf((await client.get(`/dashboard/sandbox/fraud-reports/${firstPayment}`)).body);
    assert.match(detail, /Fraud report on pay_/);
    assert.match(detail, /Card 424242\*{6}4242/);
    assert.match(detail, /The payment Payment pay_\S+ Succeeded Amount 25\.00 USD/);
    assert.match(detail, new RegExp(`Payment page ${first.id}`));
  });

  test('subscriptions and entitlements: list, detail with invoices, filters, cancel and sandbox renew', async () => {
    const page = await createPaymentPage(context, merchant, { subscription: { productId: 'pro-plan', interval: 'MONTH', intervalCount: 1 } });
    const paid = await payPaymentPage(context, merchant, page.id);
    await context.drainJobs();
    assert.ok(paid.subscriptionId);
    const list = textOf((await client.get('/dashboard/sandbox/subscriptions')).body);
    assert.match(list, /pro-plan/);
    assert.match(list, /25\.00 USD every month Active/);

    const detail = await client.get(`/dashboard/sandbox/subscriptions/${paid.subscriptionId}`);
    assert.match(textOf(detail.body), /Invoices Export CSV Period Amount From Until Paid Payment #1 25\.00 USD/);
    assert.match(textOf(detail.body), /Entitlements Export CSV Entitlement Product Customer From Until Active ent_\S+ pro-plan/);

    const renewed = await client.post(`/dashboard/sandbox/subscriptions/${paid.subscriptionId}/renew`);
    assert.equal(renewed.headers.location, `/dashboard/sandbox/subscriptions/${paid.subscriptionId}?notice=subscription-renewed`);
    assert.match(textOf((await client.get(String(renewed.headers.location))).body), /#2 25\.00 USD/);

    const active = await client.get(`/dashboard/sandbox/entitlements?active=true&subscriptionId=${paid.subscriptionId}`);
    assert.equal((active.body.match(/<code>ent_/g) ?? []).length, 1);
    const inactive = await client.get(`/dashboard/sandbox/entitlements?active=false&subscriptionId=${paid.subscriptionId}`);
    assert.equal((inactive.body.match(/<code>ent_/g) ?? []).length, 1);
    const all = await client.get(`/dashboard/sandbox/entitlements?subscriptionId=${paid.subscriptionId}`);
    assert.equal((all.body.match(/<code>ent_/g) ?? []).length, 2);

    const canceled = await client.post(`/dashboard/sandbox/subscriptions/${paid.subscriptionId}/cancel`, { confirmed: '1' });
    assert.equal(canceled.headers.location, `/dashboard/sandbox/subscriptions/${paid.subscriptionId}?notice=subscription-canceled`);
    assert.equal((await apiGet(`/v1/subscriptions/${paid.subscriptionId}?livemode=false`)).cancelAtPeriodEnd, true);
    const after = await client.get(String(canceled.headers.location));
    assert.doesNotMatch(after.body, /Cancel at period end/);
  });

  test('the inbox lists the e-mails of the mode with their recipient, and opens one', async () => {
    const page = await createPayoutPage(context, merchant, { customer: { referenceId: 'inbox-payee', email: 'inbox-payee@example.com' } });
    await context.drainJobs();
    const inbox = await client.get('/dashboard/sandbox/inbox');
    assert.equal(inbox.statusCode, 200);
    const match = new RegExp(`href="(/dashboard/sandbox/inbox/eml_[0-9a-z]+)">([^<]+)</a></td><td>inbox-payee@example\\.com</td>`).exec(inbox.body);
    assert.ok(match?.[1], 'the e-mail to the payee is listed with its address');
    const message = await client.get(match[1]);
    assert.equal(message.statusCode, 200);
    const text = textOf(message.body);
    assert.match(text, /To inbox-payee@example\.com/);
    assert.match(text, new RegExp(`About ${page.id}`));
    assert.match(message.body, new RegExp(`/payout-page/${page.id}`));
    assert.match(message.body, /<summary>HTML part \(source\)<\/summary>/);
  });
});
