import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertError, createCustomer, snapshotCustomerTables, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /admin/v1/customers/:customerId/supported_payout_methods (errors)', () => {
  let context: TestContext;
  let customer: CustomerData;

  before(async () => {
    context = await createTestContext();
    const merchant = await context.createMerchant();
    customer = await createCustomer(context, merchant.apiKey);
  });
  after(async () => context.close());

  const cases: Array<[string, unknown, string, string?]> = [
    ['an unknown method', { supportedPayoutMethods: ['CASH'] }, 'supportedPayoutMethods', 'BANK_TRANSFER, CRYPTO_WALLET'],
    ['a payment method name', { supportedPayoutMethods: ['CRYPTO'] }, 'supportedPayoutMethods'],
    ['duplicates', { supportedPayoutMethods: ['BANK_TRANSFER', 'BANK_TRANSFER'] }, 'supportedPayoutMethods', 'duplicates'],
    ['an empty list', { supportedPayoutMethods: [] }, 'supportedPayoutMethods', 'at least 1 item'],
    ['a string instead of a list', { supportedPayoutMethods: 'BANK_TRANSFER' }, 'supportedPayoutMethods', 'array'],
    ['the field missing', {}, 'supportedPayoutMethods', 'required'],
    ['an unknown field', { supportedPayoutMethods: ['BANK_TRANSFER'], note: 'x' }, 'note'],
  ];
  for (const [label, body, field, rule] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing changes`, async () => {
      const before = await snapshotCustomerTables(context.database);
      const error = assertError(await context.admin('POST', `/admin/v1/customers/${customer.id}/supported_payout_methods`, body), 400, 'WRONG_PARAMETER', field);
      if (rule !== undefined) {
        assert.ok(error.errorMessage.includes(rule), error.errorMessage);
      }
      assert.deepEqual(await snapshotCustomerTables(context.database), before);
    });
  }

  test('an unknown customer → 404 NOT_FOUND', async () => {
    assertError(await context.admin('POST', `/admin/v1/customers/cus_${'0'.repeat(36)}/supported_payout_methods`, { supportedPayoutMethods: ['BANK_TRANSFER'] }), 404, 'NOT_FOUND', 'customer');
  });
});
