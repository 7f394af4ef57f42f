import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { fraudImportCalls, openFraudImportSuite, visaHeader } from '../../helpers/fraud-reports.ts';

describe('POST /admin/v1/fraud_imports: operators only', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openFraudImportSuite()));
  after(async () => context.close());

  const { importFile } = fraudImportCalls(() => ({ context, merchant }));

  test('operators only: no bearer or a merchant API key → 401', async () => {
    assert.equal((await importFile({ network: 'visa', csv: visaHeader }, '')).statusCode, 401);
    assert.equal((await importFile({ network: 'visa', csv: visaHeader }, `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`)).statusCode, 401);
    assert.equal((await importFile({ network: 'visa', csv: visaHeader }, 'Bearer wrong-admin-key-0123456789abcdef')).statusCode, 401);
  });
});
