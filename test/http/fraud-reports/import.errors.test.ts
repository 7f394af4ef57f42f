import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { fraudImportCalls, openFraudImportSuite, mastercardHeader, visaHeader } from '../../helpers/fraud-reports.ts';

describe('POST /admin/v1/fraud_imports: bad files', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openFraudImportSuite()));
  after(async () => context.close());

  const { importFile } = fraudImportCalls(() => ({ context, merchant }));

  const badFiles: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an empty file', { network: 'visa', csv: '\n\n' }, /^csv is empty/],
    ['a missing column', { network: 'visa', csv: visaHeader.replace(',fraud_currency', '') }, /^csv is missing the column 'fraud_currency'/],
    ['an unknown column', { network: 'visa', csv: `${visaHeader},comment` }, /^csv has an unknown column 'comment'/],
    ['the other network’s layout', { network: 'visa', csv: mastercardHeader }, /^csv has an unknown column 'banknet_reference'/],
    ['an unterminated quote', { network: 'mastercard', csv: `${mastercardHeader}\n"abc,1` }, /^csv has an unterminated quoted field/],
    ['an unknown network', { network: 'amex', csv: visaHeader }, /^network must be one of visa, mastercard/],
    ['no csv', { network: 'visa' }, /^csv is required/],
  ];

  for (const [name, body, message] of badFiles) {
    test(`400 WRONG_PARAMETER for ${name}`, async () => {
      const response = await importFile(body);
      assert.equal(response.statusCode, 400, response.body);
      const failure = json<{ errorCode: string; errorMessage: string }>(response);
      assert.equal(failure.errorCode, 'WRONG_PARAMETER');
      assert.match(failure.errorMessage, message);
    });
  }
});
