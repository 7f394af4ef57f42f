import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testCards } from '../../helpers/payment-pages.ts';
import { queryRows } from '../../../src/db/client.ts';
import { fraudReports, payments } from '../../../src/db/schema/index.ts';
import { formatDate, fraudReportCalls, openFraudReportSuite, reportKeys, type FraudReport as Report } from '../../helpers/fraud-reports.ts';

describe('POST /v1/test_helpers/fraud_reports and the fraud test card', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openFraudReportSuite()));
  after(async () => context.close());

  const { paidPage, report, fraudEvents } = fraudReportCalls(() => context);

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
});
