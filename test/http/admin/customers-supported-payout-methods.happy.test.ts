import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, createCustomer, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /admin/v1/customers/:customerId/supported_payout_methods (happy paths)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  const set = (customerId: string, supportedPayoutMethods: string[]) =>
    context.admin('POST', `/admin/v1/customers/${customerId}/supported_payout_methods`, { supportedPayoutMethods });

  test('sets the methods; the customer response and later reads show them', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { email: 'payee@example.com' });
    const updated = assertSucceeded<CustomerData>(await set(customer.id, ['BANK_TRANSFER']));
    assert.deepEqual(updated.supportedPayoutMethods, ['BANK_TRANSFER']);
    assert.equal(updated.email, 'payee@example.com');
    assert.equal(updated.id, customer.id);
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assert.deepEqual(read.supportedPayoutMethods, ['BANK_TRANSFER']);
  });

  test('the operator may change them later (unlike the merchant-set supportedPaymentMethods)', async () => {
    const customer = await createCustomer(context, merchant.apiKey);
    assertSucceeded(await set(customer.id, ['CRYPTO_WALLET']));
    assert.deepEqual(assertSucceeded<CustomerData>(await set(customer.id, ['CRYPTO_WALLET', 'BANK_TRANSFER'])).supportedPayoutMethods, ['CRYPTO_WALLET', 'BANK_TRANSFER']);
  });

  test('works for live customers too', async () => {
    const customer = await createCustomer(context, merchant.apiKey, {}, true);
    const updated = assertSucceeded<CustomerData>(await set(customer.id, ['CRYPTO_WALLET']));
    assert.equal(updated.livemode, true);
    assert.deepEqual(updated.supportedPayoutMethods, ['CRYPTO_WALLET']);
  });
});
