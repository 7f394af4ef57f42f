import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertAdminAuthRequired, assertError, createCustomer, snapshotCustomerTables } from '../../helpers/assertions.ts';

describe('POST /admin/v1/customers/:customerId/supported_payout_methods (authentication)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test("only the operator sets payout methods; the merchant can't, not even through the customer update", async () => {
    const customer = await createCustomer(context, merchant.apiKey);
    const before = await snapshotCustomerTables(context.database);
    await assertAdminAuthRequired(context, 'POST', `/admin/v1/customers/${customer.id}/supported_payout_methods`, { supportedPayoutMethods: ['BANK_TRANSFER'] }, merchant.apiKey);
    assertError(
      await context.request({ method: 'POST', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey, body: { supportedPayoutMethods: ['BANK_TRANSFER'] } }),
      400,
      'IMMUTABLE_FIELD',
      'supportedPayoutMethods',
    );
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });
});
