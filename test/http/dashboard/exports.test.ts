import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createCustomer, createPaymentPage, createPayoutPage, identity, payPaymentPage } from './fixtures.ts';

const dayMs = 86_400_000;

describe('dashboard lists: a creation period on every list and a CSV of what the filters select', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let client: DashboardClient;
  const payoutIds: string[] = [];
  let firstDay = '';

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Export Sails' });
    other = await context.createMerchant({ name: 'Other Export Sails' });
    firstDay = context.clock.now().toISOString().slice(0, 10);
    // Two payout pages today, one three days later, one a week later; a payout page of another merchant.
    for (const offset of [0, 0, 3, 7]) {
      context.clock.advance(offset === 0 ? 1 : offset === 3 ? 3 * dayMs : 4 * dayMs); // distinct times: the order is by time
      payoutIds.push((await createPayoutPage(context, merchant, { amount: 1_000 + payoutIds.length, clientReferenceId: `export-${payoutIds.length}=1+1` })).id);
    }
    await createPayoutPage(context, other, { amount: 9_999 });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  const day = (offset: number) => new Date(Date.parse(`${firstDay}T00:00:00.000Z`) + offset * dayMs).toISOString().slice(0, 10);

  test('listExports.happy: the period filters the screen and its pages, and the CSV holds exactly the filtered rows as the API reads them', async () => {
    const screen = await client.get(`/dashboard/sandbox/payout-pages?from=${day(1)}&to=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.match(screen.body, new RegExp(`<input type="date" id="status-from" name="from" value="${day(1)}"`));
    assert.ok(screen.body.includes(payoutIds[2] ?? '-'), 'the page of day 3 is listed');
    for (const id of [payoutIds[0], payoutIds[1], payoutIds[3]]) {
      assert.ok(id && !screen.body.includes(id), `${id} is outside the period`);
    }
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/payout-pages/export\\.csv\\?from=${day(1)}&amp;to=${day(3)}" download=""`));

    const all = await client.get('/dashboard/sandbox/payout-pages/export.csv');
    assert.equal(all.statusCode, 200);
    assert.match(String(all.headers['content-type']), /^text\/csv/);
    assert.equal(all.headers['content-disposition'], 'attachment; filename="payout-pages-sandbox.csv"');
    const rows = parse(all.body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(rows.map((row) => row.id), [...payoutIds].reverse(), 'every row of this merchant and mode, newest first; none of the other merchant');
    const api = await context.request({ method: 'GET', url: `/v1/payout_pages?livemode=false&limit=100`, apiKey: merchant.apiKey });
    const apiPages = json<{ data: { payoutPages: Array<Record<string, unknown>> } }>(api).data.payoutPages;
    for (const row of rows) {
      const page = apiPages.find((candidate) => candidate.id === row.id);
      assert.ok(page, row.id);
      assert.equal(Number(row.amount), page.amount);
      assert.equal(row.fundingCurrency, page.fundingCurrency);
      assert.equal(row.status, page.status);
      assert.equal(Date.parse(String(row.createdAt)), page.createdAt);
    }
    assert.ok(rows.every((row) => row.clientReferenceId?.startsWith("'=") === false), 'formula-looking cells are escaped only when they start like one');

    const period = parse((await client.get(`/dashboard/sandbox/payout-pages/export.csv?from=${day(0)}&to=${day(3)}&status=CREATED`)).body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(period.map((row) => row.id), [payoutIds[2], payoutIds[1], payoutIds[0]]);
  });

  test('listExports.happy: payment pages and subscriptions have the same period filter and export', async () => {
    const paid = await createPaymentPage(context, merchant, { amount: 4_200, subscription: { productId: 'export-plan', interval: 'MONTH' } });
    await payPaymentPage(context, merchant, paid.id);
    const payments = parse((await client.get('/dashboard/sandbox/payment-pages/export.csv?status=PAID')).body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      payments.map((row) => [row.id, row.amount, row.status]),
      [[paid.id, '4200', 'PAID']],
    );
    const subscriptions = parse((await client.get(`/dashboard/sandbox/subscriptions/export.csv?from=${day(7)}`)).body, { columns: true }) as Array<Record<string, string>>;
    assert.equal(subscriptions.length, 1);
    assert.equal(subscriptions[0]?.productId, 'export-plan');
    assert.equal(subscriptions[0]?.cancelAtPeriodEnd, 'false');
    const none = parse((await client.get(`/dashboard/sandbox/subscriptions/export.csv?to=${day(6)}`)).body, { columns: true }) as unknown[];
    assert.deepEqual(none, [], 'a header only when the period holds nothing');
    const screen = textOf((await client.get(`/dashboard/sandbox/payment-pages?to=${day(6)}`)).body);
    assert.match(screen, /No payment pages/);
  });

  test('listExports.happy: customers export with the name and e-mail the list shows, the filters applied', async () => {
    context.clock.advance(dayMs); // a day of their own: from=today selects these two only
    client = await signedInClient(context, merchant);
    const ada = await createCustomer(context, merchant, { ...identity, email: 'ada.export@example.com' });
    context.clock.advance(1);
    const grace = await createCustomer(context, merchant, { ...identity, firstName: 'Grace', lastName: 'Hopper', email: 'grace.export@example.com' });
    const today = context.clock.now().toISOString().slice(0, 10);
    const response = await client.get(`/dashboard/sandbox/customers/export.csv?from=${today}`);
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-disposition'], 'attachment; filename="customers-sandbox.csv"');
    const rows = parse(response.body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(
      rows.map((row) => [row.id, row.referenceId, row.name, row.email]),
      [
        [grace.id, grace.referenceId, 'Grace Hopper', 'grace.export@example.com'],
        [ada.id, ada.referenceId, `${identity.firstName} ${identity.lastName}`, 'ada.export@example.com'],
      ],
    );
    const byEmail = parse((await client.get('/dashboard/sandbox/customers/export.csv?email=grace.export%40example.com')).body, { columns: true }) as Array<Record<string, string>>;
    assert.deepEqual(byEmail.map((row) => row.id), [grace.id]);
    assert.match((await client.get(`/dashboard/sandbox/customers?from=${today}`)).body, /href="\/dashboard\/sandbox\/customers\/export\.csv\?from=/);
  });

  test('listExports.errors: a bad day or a period that ends before it starts is 400 naming the field', async () => {
    for (const [url, message] of [
      ['/dashboard/sandbox/payout-pages?from=2026-13-01', /from must be a day written YYYY-MM-DD/],
      ['/dashboard/sandbox/payment-pages/export.csv?to=yesterday', /to must be a day written YYYY-MM-DD/],
      [`/dashboard/sandbox/subscriptions?from=${day(3)}&to=${day(1)}`, /to must not be before from/],
    ] as const) {
      const response = await client.get(url);
      assert.equal(response.statusCode, 400, url);
      assert.match(textOf(response.body), message, url);
    }
  });
});
