import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { queryRows } from '../../../src/db/client.ts';
import { fraudReports, payments } from '../../../src/db/schema/index.ts';

type Failure = { status: string; errorCode: string; errorMessage: string };

interface Report {
  checkoutPaymentId: string;
  clientReferenceId: string;
  fraudAmountUSD: string;
  fraudReason: string;
  fraudIssueDate: string;
  transactionDate: string;
  issuingBank: string;
  cardholderName: string;
  customerEmail: string;
  cardSchemeType: string;
  cardNumber: string;
  network: string;
  fraudType: string | null;
}

interface ListBody {
  checkoutFraudReports: Report[];
  count: number;
  hasMore: boolean;
}

const reportKeys = [
  'checkoutPaymentId',
  'clientReferenceId',
  'fraudAmountUSD',
  'fraudReason',
  'fraudIssueDate',
  'transactionDate',
  'issuingBank',
  'cardholderName',
  'customerEmail',
  'cardSchemeType',
  'cardNumber',
  'network',
  'fraudType',
].sort();

function formatDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 19).replace('T', ' ');
}

describe('fraud reports: test helper, the fraud test card, GET /v1/fraud_reports and /:id', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  async function paidPage(owner: TestMerchant, card: string, overrides: Record<string, unknown> = {}, cardOverrides: Record<string, unknown> = {}): Promise<PageBody> {
    const page = await createPage(context, owner, overrides);
    const response = await payPage(context, owner, page.id, card, cardOverrides);
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: PageBody }>(response).data;
  }

  function report(owner: TestMerchant, body: Record<string, unknown>, query = '?livemode=false') {
    return context.request({ method: 'POST', url: `/v1/test_helpers/fraud_reports${query}`, apiKey: owner.apiKey, body });
  }

  function list(owner: TestMerchant, query: string) {
    return context.request({ method: 'GET', url: `/v1/fraud_reports${query}`, apiKey: owner.apiKey });
  }

  async function fraudEvents(paymentId: string) {
    return queryRows<{ data: Record<string, unknown> }>(context.database.db, sql`select data from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paymentId}`);
  }

  test('test helper: a report with exactly the documented fields, PII sealed at rest, one FRAUD_REPORTED with exactly its four fields', async () => {
    const page = await paidPage(merchant, testCards.visaDebit, { amount: 1000, currency: 'EUR', customer: { referenceId: 'fraud-1', email: 'victim@example.com' } }, { cardholderName: 'Grace Hopper' });
    context.clock.advance(90_000);
    const response = await report(merchant, { paymentId: page.paymentId, fraudReason: 'Cardholder does not recognise the transaction' });
    assert.equal(response.statusCode, 200, response.body);
    const created = json<{ status: string; data: { checkoutFraudReport: Report } }>(response).data.checkoutFraudReport;
    assert.deepEqual(Object.keys(created).sort(), reportKeys);
    assert.deepEqual(created, {
      checkoutPaymentId: page.paymentId,
      clientReferenceId: page.clientReferenceId,
      fraudAmountUSD: '10.80',
      fraudReason: 'Cardholder does not recognise the transaction',
      fraudIssueDate: formatDate(context.clock.now().getTime()),
      transactionDate: formatDate(page.paidAt ?? 0),
      issuingBank: 'Harbor Savings Bank',
      cardholderName: 'Grace Hopper',
      customerEmail: 'victim@example.com',
      cardSchemeType: 'DEBIT',
      cardNumber: '400005******5556',
      network: 'VISA',
      fraudType: null,
    });
    const events = await fraudEvents(String(page.paymentId));
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, { pageId: page.id, clientReferenceId: page.clientReferenceId, fraudReportId: page.paymentId, fraudReason: 'Cardholder does not recognise the transaction' });

    const [row] = await queryRows<{ row: string }>(context.database.db, sql`select (f.*)::text as row from fraud_reports f where payment_id = ${page.paymentId}`);
    assert.ok(row);
    assert.ok(!row.row.includes('Grace Hopper') && !row.row.includes('victim@example.com'), 'cardholder name and e-mail are sealed');
    const [stored] = await context.database.db.select().from(fraudReports).where(eq(fraudReports.paymentId, String(page.paymentId)));
    assert.match(String(stored?.pii.cardholderName), /^v1\./);
    assert.match(String(stored?.pii.customerEmail), /^v1\./);
    const [payment] = await context.database.db.select().from(payments).where(eq(payments.id, String(page.paymentId)));
    assert.match(String(payment?.cardholderNameCiphertext), /^v1\./);

    // A repeated signal for the same payment: the same report, no second event.
    const again = await report(merchant, { paymentId: page.paymentId, fraudReason: 'Something else', fraudAmountUSD: '1.00' });
    assert.equal(again.statusCode, 200);
    assert.deepEqual(json<{ data: { checkoutFraudReport: Report } }>(again).data.checkoutFraudReport, created);
    assert.equal((await fraudEvents(String(page.paymentId))).length, 1);

    const read = await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}`, apiKey: merchant.apiKey });
    assert.equal(read.statusCode, 200);
    assert.deepEqual(json<{ data: { checkoutFraudReport: Report } }>(read).data.checkoutFraudReport, created);
  });

  test('fraudAmountUSD: given as a string or number (two places), or converted with the sandbox rate table', async () => {
    const cases: Array<[Record<string, unknown>, unknown, string]> = [
      [{ amount: 2500, currency: 'GBP' }, undefined, '31.75'],
      [{ amount: 12345, currency: 'USD' }, undefined, '123.45'],
      [{ amount: 1, currency: 'EUR' }, undefined, '0.01'],
      [{ amount: 2500 }, '12.5', '12.50'],
      [{ amount: 2500 }, 7, '7.00'],
      [{ amount: 2500 }, '0.99', '0.99'],
    ];
    for (const [pageOverrides, fraudAmountUSD, expected] of cases) {
      const page = await paidPage(merchant, testCards.visaCredit, pageOverrides);
      const response = await report(merchant, { paymentId: page.paymentId, fraudReason: 'x', ...(fraudAmountUSD === undefined ? {} : { fraudAmountUSD }) });
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(json<{ data: { checkoutFraudReport: Report } }>(response).data.checkoutFraudReport.fraudAmountUSD, expected);
    }
  });

  test('test helper errors: validation 400, unknown or foreign payment 404, declined payment 409, live 403', async () => {
    const page = await paidPage(merchant, testCards.visaCredit);
    const bad: Array<[Record<string, unknown>, RegExp]> = [
      [{ paymentId: page.paymentId }, /^fraudReason is required/],
      [{ paymentId: page.paymentId, fraudReason: '' }, /^fraudReason /],
      [{ paymentId: page.paymentId, fraudReason: '   ' }, /^fraudReason must not be blank/],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: '12.345' }, /^fraudAmountUSD /],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: 1.234 }, /^fraudAmountUSD /],
      [{ paymentId: page.paymentId, fraudReason: 'x', fraudAmountUSD: '0' }, /^fraudAmountUSD /],
      [{ fraudReason: 'x' }, /^paymentId is required/],
      [{ paymentId: page.paymentId, fraudReason: 'x', extra: 1 }, /^extra is not a recognised field/],
    ];
    for (const [body, message] of bad) {
      const response = await report(merchant, body);
      assert.equal(response.statusCode, 400, `${JSON.stringify(body)} ${response.body}`);
      assert.equal(json<Failure>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<Failure>(response).errorMessage, message);
    }
    const unknown = await report(merchant, { paymentId: 'pay_unknown', fraudReason: 'x' });
    assert.equal(unknown.statusCode, 404);
    const foreign = await report(other, { paymentId: page.paymentId, fraudReason: 'x' });
    assert.equal(foreign.statusCode, 404);
    const declinedPage = await createPage(context, merchant);
    await payPage(context, merchant, declinedPage.id, testCards.declined);
    const [declined] = await context.database.db.select().from(payments).where(eq(payments.pageId, declinedPage.id));
    const onDeclined = await report(merchant, { paymentId: declined?.id, fraudReason: 'x' });
    assert.equal(onDeclined.statusCode, 409);
    assert.equal(json<Failure>(onDeclined).errorCode, 'INVALID_STATE');
    const liveQuery = await report(live, { paymentId: page.paymentId, fraudReason: 'x' }, '?livemode=true');
    assert.equal(liveQuery.statusCode, 403);
    assert.equal(json<Failure>(liveQuery).errorCode, 'FORBIDDEN');
    assert.equal((await fraudEvents(String(page.paymentId))).length, 0);
  });

  test('the fraud test card 4100000000000019: the payment succeeds and its report follows within seconds (Visa TC40 type 6)', async () => {
    const page = await paidPage(merchant, testCards.fraud, { amount: 5000, currency: 'USD' }, { cardholderName: 'Mallory Doe' });
    assert.equal(page.payinDetails?.issuer, 'Northwind Credit Union');
    await context.drainJobs();
    const before = await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}`, apiKey: merchant.apiKey });
    assert.equal(before.statusCode, 404);
    context.clock.advance(2_000);
    await context.drainJobs();
    const after = await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}`, apiKey: merchant.apiKey });
    assert.equal(after.statusCode, 200, after.body);
    const created = json<{ data: { checkoutFraudReport: Report } }>(after).data.checkoutFraudReport;
    assert.equal(created.fraudType, '6');
    assert.equal(created.network, 'VISA');
    assert.equal(created.fraudReason, 'Fraudulent use of account number (card not present)');
    assert.equal(created.fraudAmountUSD, '50.00');
    assert.equal(created.cardNumber, '410000******0019');
    assert.equal(created.cardholderName, 'Mallory Doe');
    assert.equal(created.fraudIssueDate, formatDate(context.clock.now().getTime()));
    assert.equal((await fraudEvents(String(page.paymentId))).length, 1);
  });

  test('reads are scoped: another merchant → 404; livemode=true without live → 403; a sandbox report with livemode=true → 404', async () => {
    const page = await paidPage(merchant, testCards.visaCredit);
    await report(merchant, { paymentId: page.paymentId, fraudReason: 'x' });
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}`, apiKey: other.apiKey })).statusCode, 404);
    const noLive = await context.request({ method: 'GET', url: `/v1/fraud_reports/${page.paymentId}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(noLive.statusCode, 403);
    assert.equal(json<Failure>(noLive).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const livePage = await paidPage(live, testCards.visaCredit);
    await report(live, { paymentId: livePage.paymentId, fraudReason: 'x' });
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${livePage.paymentId}?livemode=true`, apiKey: live.apiKey })).statusCode, 404);
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${livePage.paymentId}?livemode=false`, apiKey: live.apiKey })).statusCode, 200);
    const liveList = json<{ data: ListBody }>(await list(live, '?livemode=true')).data;
    assert.equal(liveList.count, 0);
    const otherList = json<{ data: ListBody }>(await list(other, '')).data;
    assert.equal(otherList.count, 0);
    assert.equal((await context.request({ method: 'GET', url: '/v1/fraud_reports' })).statusCode, 401);
  });

  test('list: newest fraudIssueDate first then id, default page of 10, offset/limit paging, count and hasMore', async () => {
    const lister = await context.createMerchant();
    const base = Math.floor(context.clock.now().getTime() / 1000) * 1000 + 24 * 60 * 60 * 1000;
    context.clock.set(base);
    const created: Array<{ id: string; issued: number }> = [];
    for (let index = 0; index < 23; index += 1) {
      const page = await paidPage(lister, index % 2 === 0 ? testCards.visaCredit : testCards.mastercardCredit);
      // Reports 5 and 6 share one issue date: the id breaks the tie.
      if (index !== 6) {
        context.clock.advance(60_000);
      }
      await report(lister, { paymentId: page.paymentId, fraudReason: `reason ${index}` });
      created.push({ id: String(page.paymentId), issued: context.clock.now().getTime() });
    }
    const expectedOrder = [...created].sort((a, b) => b.issued - a.issued || (a.id < b.id ? -1 : 1)).map((entry) => entry.id);

    const first = json<{ status: string; data: ListBody }>(await list(lister, ''));
    assert.equal(first.status, 'SUCCEEDED');
    assert.equal(first.data.count, 23);
    assert.equal(first.data.hasMore, true);
    assert.deepEqual(
      first.data.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(0, 10),
    );
    const middle = json<{ data: ListBody }>(await list(lister, '?pagination[offset]=10&pagination[limit]=10')).data;
    assert.deepEqual(
      middle.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(10, 20),
    );
    assert.equal(middle.hasMore, true);
    const last = json<{ data: ListBody }>(await list(lister, '?pagination%5Boffset%5D=20&pagination%5Blimit%5D=10')).data;
    assert.deepEqual(
      last.checkoutFraudReports.map((entry) => entry.checkoutPaymentId),
      expectedOrder.slice(20),
    );
    assert.equal(last.hasMore, false);
    assert.equal(last.count, 23);
    const beyond = json<{ data: ListBody }>(await list(lister, '?pagination[offset]=100')).data;
    assert.deepEqual(beyond, { checkoutFraudReports: [], count: 23, hasMore: false });
    const all = json<{ data: ListBody }>(await list(lister, '?pagination[limit]=100&livemode=false')).data;
    assert.equal(all.checkoutFraudReports.length, 23);
    assert.equal(all.hasMore, false);

    // filters[checkoutPaymentId]
    const target = created[4]?.id ?? '';
    const one = json<{ data: ListBody }>(await list(lister, `?filters[checkoutPaymentId]=${target}`)).data;
    assert.equal(one.count, 1);
    assert.equal(one.checkoutFraudReports[0]?.checkoutPaymentId, target);
    const foreign = json<{ data: ListBody }>(await list(other, `?filters[checkoutPaymentId]=${target}`)).data;
    assert.equal(foreign.count, 0);

    // filters[fraudIssueDateRange]: inclusive on both ends, UTC, with + or %20 for the space.
    const start = created[2]?.issued ?? 0;
    const end = created[9]?.issued ?? 0;
    const inRange = created.filter((entry) => entry.issued >= start && entry.issued <= end);
    const ranged = json<{ data: ListBody }>(
      await list(lister, `?filters[fraudIssueDateRange][start]=${formatDate(start).replace(' ', '+')}&filters[fraudIssueDateRange][end]=${encodeURIComponent(formatDate(end))}&pagination[limit]=100`),
    ).data;
    assert.equal(ranged.count, inRange.length);
    assert.deepEqual(
      ranged.checkoutFraudReports.map((entry) => entry.checkoutPaymentId).sort(),
      inRange.map((entry) => entry.id).sort(),
    );
    const startOnly = json<{ data: ListBody }>(await list(lister, `?filters[fraudIssueDateRange][start]=${encodeURIComponent(formatDate(end))}`)).data;
    assert.equal(startOnly.count, created.filter((entry) => entry.issued >= end).length);
    const endOnly = json<{ data: ListBody }>(await list(lister, `?filters[fraudIssueDateRange][end]=${encodeURIComponent(formatDate(start))}`)).data;
    assert.equal(endOnly.count, created.filter((entry) => entry.issued <= start).length);
  });

  const badQueries: Array<[string, RegExp]> = [
    ['pagination[offset]=-1', /^pagination\[offset\] must be at least 0/],
    ['pagination[offset]=abc', /^pagination\[offset\] must be an integer/],
    ['pagination[offset]=1.5', /^pagination\[offset\] must be an integer/],
    ['pagination[limit]=0', /^pagination\[limit\] must be at least 1/],
    ['pagination[limit]=101', /^pagination\[limit\] must be at most 100/],
    ['pagination[limit]=', /^pagination\[limit\] must be an integer/],
    ['filters[fraudIssueDateRange][start]=2024-01-01T00:00:00', /^filters\[fraudIssueDateRange\]\[start\] has an invalid format/],
    ['filters[fraudIssueDateRange][end]=2024-01-01', /^filters\[fraudIssueDateRange\]\[end\] has an invalid format/],
    ['filters[fraudIssueDateRange][start]=2024-02-30%2000:00:00', /^filters\[fraudIssueDateRange\]\[start\] must be a real date/],
    ['filters[fraudIssueDateRange][start]=2024-03-02%2000:00:00&filters[fraudIssueDateRange][end]=2024-03-01%2000:00:00', /^filters\[fraudIssueDateRange\]\[start\] must not be after/],
    ['filters[checkoutPaymentId]=', /^filters\[checkoutPaymentId\] /],
    ['pagination[page]=2', /^pagination\[page\] is not a recognised field/],
    ['filters[status]=x', /^filters\[status\] is not a recognised field/],
    ['livemode=maybe', /^livemode must be a boolean/],
  ];
  for (const [query, message] of badQueries) {
    test(`list: 400 WRONG_PARAMETER for ${query}`, async () => {
      const response = await list(merchant, `?${query}`);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<Failure>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
    });
  }
});
