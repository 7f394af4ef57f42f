import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testCards } from '../../helpers/payment-pages.ts';
import { fraudImports } from '../../../src/db/schema/index.ts';
import { fraudImportCalls, openFraudImportSuite, mastercardHeader, visaHeader, type ImportBody } from '../../helpers/fraud-reports.ts';

describe('POST /admin/v1/fraud_imports: issuer-fraud files of both networks', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let day: string;

  before(async () => ({ context, merchant, day } = await openFraudImportSuite()));
  after(async () => context.close());

  const { paid, importFile, reportOf, fraudEventCount } = fraudImportCalls(() => ({ context, merchant }));

  test('Visa (TC40 fraud types): matched by transaction id and by BIN + last 4 + amount + date; duplicate, ambiguous, unmatched and invalid rows reported back', async () => {
    const byReference = await paid(testCards.visaCredit, 1101);
    const byCard = await paid(testCards.visaDebit, 1102, 'EUR');
    const twinA = await paid(testCards.visaCredit, 1103);
    const twinB = await paid(testCards.visaCredit, 1103);
    const mastercard = await paid(testCards.mastercardCredit, 1104);
    const csv = [
      visaHeader,
      `${byReference.networkTransactionId},424242,4242,${day},11.01,USD,6,2031-02-03 04:05:06,,`,
      `,400005,5556,${day},11.02,EUR,a,2031-02-04,5.00,GBP`,
      `${byReference.networkTransactionId},424242,4242,${day},11.01,USD,4,2031-02-05,,`,
      `,424242,4242,${day},11.03,USD,0,2031-02-06,,`,
      `999999999999999,424242,4242,${day},99.99,USD,1,2031-02-07,,`,
      `${mastercard.networkTransactionId},555555,4444,${day},11.04,USD,6,2031-02-08,,`,
      `,424242,4242,${day},11.01,USD,Z,2031-02-09,,`,
      `,4242424242424242,4242,${day},11.01,USD,6,2031-02-09,,`,
      `,424242,4242,not-a-date,11.01,USD,6,2031-02-09,,`,
      `,424242,4242,${day},11.01,USD,6,2031-02-09`,
    ].join('\r\n');
    const response = await importFile({ network: 'visa', csv, livemode: false });
    assert.equal(response.statusCode, 200, response.body);
    const result = json<{ status: string; data: ImportBody }>(response).data;
    assert.match(result.import.id, /^fim_/);
    assert.deepEqual({ ...result.import, id: '', createdAt: 0 }, { id: '', network: 'visa', livemode: false, rows: 10, created: 2, duplicates: 1, unmatched: 7, createdAt: 0 });
    assert.deepEqual(result.createdReports, [
      { line: 2, checkoutPaymentId: byReference.page.paymentId },
      { line: 3, checkoutPaymentId: byCard.page.paymentId },
    ]);
    assert.deepEqual(result.duplicateRows, [{ line: 4, checkoutPaymentId: byReference.page.paymentId }]);
    const unmatched = new Map(result.unmatchedRows.map((row) => [row.line, row]));
    assert.match(String(unmatched.get(5)?.reason), /^ambiguous: 2 payments match/);
    assert.equal(unmatched.get(5)?.cardNumber, '424242******4242');
    assert.equal(unmatched.get(6)?.reason, 'no matching payment');
    assert.equal(unmatched.get(6)?.networkTransactionId, '999999999999999');
    assert.equal(unmatched.get(6)?.transactionAmount, 9999);
    assert.equal(unmatched.get(7)?.reason, 'no matching payment', 'a Mastercard transaction id in a Visa file matches nothing');
    assert.match(String(unmatched.get(8)?.reason), /^invalid: fraud_type is not a Visa TC40 fraud type code/);
    assert.match(String(unmatched.get(9)?.reason), /^invalid: card_bin must be the first 6 digits/);
    assert.ok(!JSON.stringify(result).includes('4242424242424242'), 'a full card number in a bad row is never echoed');
    assert.match(String(unmatched.get(10)?.reason), /^invalid: transaction_date/);
    assert.match(String(unmatched.get(11)?.reason), /^invalid: has 8 fields, the header has 10/);

    const first = await reportOf(String(byReference.page.paymentId));
    assert.equal(first.fraudType, '6');
    assert.equal(first.fraudReason, 'Fraudulent use of account number (card not present)');
    assert.equal(first.fraudIssueDate, '2031-02-03 04:05:06');
    assert.equal(first.fraudAmountUSD, '11.01');
    assert.equal(first.network, 'VISA');
    const second = await reportOf(String(byCard.page.paymentId));
    assert.equal(second.fraudType, 'A');
    assert.equal(second.fraudReason, 'Incorrect processing');
    assert.equal(second.fraudIssueDate, '2031-02-04 00:00:00');
    assert.equal(second.fraudAmountUSD, '6.35', 'fraud_amount 5.00 GBP at the sandbox rate 1.27');
    assert.equal(await fraudEventCount(String(byReference.page.paymentId)), 1);
    for (const twin of [twinA, twinB]) {
      assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${twin.page.paymentId}`, apiKey: merchant.apiKey })).statusCode, 404, 'ambiguous rows are never guessed');
    }
    const [stored] = await context.database.db.select().from(fraudImports).where(eq(fraudImports.id, result.import.id));
    assert.equal(stored?.unmatchedCount, 7);
    assert.equal(stored?.createdCount, 2);

    // The same file again: every matched row is now a duplicate, and no event is recorded twice.
    const again = json<{ data: ImportBody }>(await importFile({ network: 'visa', csv, livemode: false })).data;
    assert.equal(again.import.created, 0);
    assert.equal(again.import.duplicates, 3);
    assert.equal(again.import.unmatched, 7);
    assert.equal(await fraudEventCount(String(byReference.page.paymentId)), 1);
    assert.equal(await fraudEventCount(String(byCard.page.paymentId)), 1);
  });

  test('Mastercard (SAFE fraud type codes): matched, duplicate and unmatched rows; quoted fields; columns in any order', async () => {
    const byReference = await paid(testCards.mastercardCredit, 2201);
    const byCard = await paid(testCards.mastercardCredit, 2202, 'GBP');
    const visa = await paid(testCards.visaCredit, 2203);
    const reordered = 'fraud_type_code,banknet_reference,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_posted_date,fraud_amount,fraud_currency';
    const csv = [
      reordered,
      `06,${byReference.networkTransactionId},555555,4444,${day},22.01,USD,2031-03-01 10:00:00,,`,
      `"6","",555555,"4444",${day},"22.02",gbp,"2031-03-02",,`,
      `51,${byReference.networkTransactionId},555555,4444,${day},22.01,USD,2031-03-03,,`,
      `00,,424242,4242,${day},22.03,USD,2031-03-04,,`,
      `99,,555555,4444,${day},22.01,USD,2031-03-05,,`,
      `57,MCZZZZZZZ0101,555555,4444,${day},77.77,USD,2031-03-06,,`,
      '',
    ].join('\n');
    const result = json<{ data: ImportBody }>(await importFile({ network: 'mastercard', csv, livemode: false })).data;
    assert.deepEqual({ rows: result.import.rows, created: result.import.created, duplicates: result.import.duplicates, unmatched: result.import.unmatched }, { rows: 6, created: 2, duplicates: 1, unmatched: 3 });
    assert.deepEqual(
      result.createdReports.map((row) => row.checkoutPaymentId),
      [byReference.page.paymentId, byCard.page.paymentId],
    );
    const unmatched = new Map(result.unmatchedRows.map((row) => [row.line, row]));
    assert.equal(unmatched.get(5)?.reason, 'no matching payment', 'a Visa card in a Mastercard file matches nothing');
    assert.match(String(unmatched.get(6)?.reason), /^invalid: fraud_type_code is not a Mastercard SAFE fraud type code/);
    assert.equal(unmatched.get(7)?.reason, 'no matching payment');
    const first = await reportOf(String(byReference.page.paymentId));
    assert.deepEqual([first.fraudType, first.fraudReason, first.network, first.fraudIssueDate], ['06', 'Card not present fraud', 'MASTERCARD', '2031-03-01 10:00:00']);
    const second = await reportOf(String(byCard.page.paymentId));
    assert.equal(second.fraudType, '06');
    assert.equal(second.fraudAmountUSD, '27.97', '22.02 GBP at 1.27 = 27.9654');
    assert.equal((await context.request({ method: 'GET', url: `/v1/fraud_reports/${visa.page.paymentId}`, apiKey: merchant.apiKey })).statusCode, 404);
  });

  test('live imports (livemode omitted) never match sandbox payments', async () => {
    const sandbox = await paid(testCards.visaCredit, 3301);
    const csv = `${visaHeader}\n${sandbox.networkTransactionId},424242,4242,${day},33.01,USD,6,2031-04-01,,`;
    const result = json<{ data: ImportBody }>(await importFile({ network: 'visa', csv })).data;
    assert.equal(result.import.livemode, true);
    assert.equal(result.import.unmatched, 1);
    assert.equal(result.import.created, 0);
  });

  test('the CLI path: the service function imports the same way', async () => {
    const target = await paid(testCards.mastercardCredit, 4401);
    const result = await context.platform.services.fraudReports.importNetworkFile({ network: 'mastercard', livemode: false, csv: `${mastercardHeader}\n${target.networkTransactionId},555555,4444,${day},44.01,USD,05,2031-05-01,,` });
    assert.equal(result.import.created, 1);
    assert.equal((await reportOf(String(target.page.paymentId))).fraudReason, 'Account takeover fraud');
  });
});
