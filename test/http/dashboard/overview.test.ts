import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createPaymentPage, futureCard, payPaymentPage, reportFraud, settleJobs } from './fixtures.ts';

const dayMs = 86_400_000;

describe('dashboard overview: a chosen period beside the previous one', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Period Sails' });
    other = await context.createMerchant({ name: 'Other Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  function figureRow(text: string, figure: string, currency: string): string {
    const row = new RegExp(`${figure} ${currency} .*?(?:new|no change|[+−-][\\d.,]+%)`).exec(text)?.[0];
    assert.ok(row, `a ${figure} row for ${currency} in: ${text.slice(0, 2_000)}`);
    return row;
  }

  test('overview.happy: payments, declines, refunds and fraud reports of the last 30 days against the 30 before; another merchant counts nowhere', async () => {
    const empty = await client.get('/dashboard/sandbox');
    assert.equal(empty.statusCode, 200);
    assert.match(empty.body, /<a href="\/dashboard\/sandbox\?range=30d" aria-current="page">Last 30 days<\/a>/);
    assert.match(textOf(empty.body), /Payment success rate — No card payment was decided in this period\. Before: none decided\./);
    assert.match(textOf(empty.body), /No payments, payouts, refunds or disputes in this period or the one before it\./);

    const paid = await createPaymentPage(context, merchant, { amount: 2_500 });
    const paidPage = await payPaymentPage(context, merchant, paid.id);
    const declinedPage = await createPaymentPage(context, merchant, { amount: 900 });
    const declined = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${declinedPage.id}/pay?livemode=false`, apiKey: merchant.apiKey, body: futureCard('4000000000000002') });
    assert.equal(declined.statusCode, 402, declined.body);
    const refund = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', apiKey: merchant.apiKey, body: { paymentPageId: paid.id, amount: 500 } });
    assert.equal(refund.statusCode, 200, refund.body);
    await settleJobs(context);
    assert.ok(paidPage.paymentId);
    await reportFraud(context, merchant, paidPage.paymentId);
    const foreign = await createPaymentPage(context, other, { amount: 7_777, currency: 'EUR' });
    await payPaymentPage(context, other, foreign.id);

    const text = textOf((await client.get('/dashboard/sandbox')).body);
    const today = context.clock.now();
    const first = new Date(today.getTime() - 29 * dayMs);
    const format = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });
    assert.match(text, new RegExp(`${format.format(first)} – ${format.format(today)} compared with`));
    assert.match(text, /Payment success rate 50% 1 of 2 card payments succeeded\. Before: none decided\./);
    assert.match(text, /Fraud reports 1 Before: 0 · new/);
    assert.match(figureRow(text, 'Payments', 'USD'), /^Payments USD 25\.00 USD 1 payment 0\.00 USD 0 payments new$/);
    assert.match(figureRow(text, 'Refunds', 'USD'), /^Refunds USD 5\.00 USD 1 refund 0\.00 USD 0 refunds new$/);
    assert.match(figureRow(text, 'Disputes', 'USD'), /^Disputes USD 0\.00 USD 0 disputes 0\.00 USD 0 disputes no change$/);
    assert.doesNotMatch(text, /EUR|77\.77/, 'another merchant’s payment is not counted');

    // 31 days later the payment belongs to the previous period: this one is empty, the change −100 %.
    context.clock.advance(31 * dayMs);
    client = await signedInClient(context, merchant); // sessions last 12 hours
    const later = textOf((await client.get('/dashboard/sandbox?range=30d')).body);
    assert.match(figureRow(later, 'Payments', 'USD'), /^Payments USD 0\.00 USD 0 payments 25\.00 USD 1 payment [−-]100%$/);
    assert.match(later, /Payment success rate — No card payment was decided in this period\. Before: 50%\./);
    assert.match(later, /No payments or payouts in sandbox in the last 30 days\./);
  });

  test('overview.happy: twelve months are charted per week, a custom period per day and named by its days', async () => {
    const year = (await client.get('/dashboard/sandbox?range=12m')).body;
    assert.match(year, /aria-current="page">Last 12 months</);
    const figure = /<figure class="card chart">[\s\S]*?<\/figure>/.exec(year)?.[0];
    assert.ok(figure, 'a chart for the year (the first test paid in USD)');
    assert.match(figure, /payment and payout volume, last 12 months/);
    assert.match(figure, /<th scope="col">Week from \(UTC\)<\/th>/);
    assert.equal([...figure.matchAll(/<tr><td>\d{4}-\d{2}-\d{2}<\/td>/g)].length, 53, '365 days in weeks of 7');

    const to = new Date(context.clock.now().getTime() - 25 * dayMs).toISOString().slice(0, 10);
    const from = new Date(context.clock.now().getTime() - 40 * dayMs).toISOString().slice(0, 10);
    const custom = await client.get(`/dashboard/sandbox?range=custom&from=${from}&to=${to}`);
    assert.equal(custom.statusCode, 200);
    const customFigure = /<figure class="card chart">[\s\S]*?<\/figure>/.exec(custom.body)?.[0];
    assert.ok(customFigure, 'the custom period holds the payment');
    assert.equal([...customFigure.matchAll(/<tr><td>\d{4}-\d{2}-\d{2}<\/td>/g)].length, 16, 'one row per day, both ends included');
    assert.match(customFigure, new RegExp(`Per day from ${from} to ${to} \\(UTC days\\)`));
    assert.match(custom.body, new RegExp(`<input type="date" id="from" name="from" value="${from}" required`));
    assert.doesNotMatch(custom.body, /aria-current="page">Last/, 'no preset is marked for a custom period');
  });

  test('overview.errors: each bad period parameter is 400 WRONG_PARAMETER naming it', async () => {
    const today = context.clock.now().toISOString().slice(0, 10);
    const tomorrow = new Date(context.clock.now().getTime() + dayMs).toISOString().slice(0, 10);
    const cases: Array<[string, RegExp]> = [
      ['range=week', /range must be one of 7d, 30d, 90d, 12m, mtd or custom/],
      ['range=custom&to=' + today, /from is required for a custom period/],
      ['from=' + today, /to is required for a custom period/],
      ['from=2026-02-30&to=' + today, /from must be a day written YYYY-MM-DD/],
      [`from=${today}&to=2020-01-01`, /to must not be before from/],
      [`from=${today}&to=${tomorrow}`, /to must not be after today/],
      [`from=2020-01-01&to=${today}`, /from must be at most 731 days before to/],
    ];
    for (const [query, message] of cases) {
      const response = await client.get(`/dashboard/sandbox?${query}`);
      assert.equal(response.statusCode, 400, query);
      assert.match(textOf(response.body), message, query);
    }
  });
});
