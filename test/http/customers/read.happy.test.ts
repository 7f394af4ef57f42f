import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, decryptPii, type CustomerData } from '../../helpers/assertions.ts';

describe('GET /v1/customers/:customerId (happy paths)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  const read = (id: string, query = '') => context.request({ method: 'GET', url: `/v1/customers/${id}${query}`, apiKey: merchant.apiKey });

  test('answers what the create answered, in either mode without livemode', async () => {
    const sandbox = await createCustomer(context, merchant.apiKey, { email: 'reader@example.com', supportedPaymentMethods: ['BANK_TRANSFER'] }, false);
    const live = await createCustomer(context, merchant.apiKey, {}, true);
    const sandboxRead = assertSucceeded<CustomerData>(await read(sandbox.id));
    assert.deepEqual(sandboxRead, sandbox);
    assert.deepEqual(assertSucceeded<CustomerData>(await read(sandbox.id, '?livemode=false')), sandbox);
    assert.deepEqual(assertSucceeded<CustomerData>(await read(live.id)), live);
    assert.deepEqual(assertSucceeded<CustomerData>(await read(live.id, '?livemode=true')), live);
    assert.equal(sandboxRead.email, 'reader@example.com');
    assert.deepEqual(sandboxRead.supportedPaymentMethods, ['BANK_TRANSFER']);
  });

  test('PII comes back as fresh JWE each read that decrypts to the stored values', async () => {
    const created = await createCustomer(context, merchant.apiKey, { ...completeKyc, address: { line1: '9 Elm St', city: 'Austin', state: 'tx', postalCode: '73301-0001', country: 'us' } });
    const first = assertSucceeded<CustomerData>(await read(created.id));
    const second = assertSucceeded<CustomerData>(await read(created.id));
    assert.notEqual(first.firstName, second.firstName, 'each JWE has its own IV');
    assert.equal((await decryptPii(context, merchant.id, String(second.firstName))).plaintext, 'Ada');
    assert.equal((await decryptPii(context, merchant.id, String(second.lastName))).plaintext, 'Lovelace');
    assert.equal((await decryptPii(context, merchant.id, String(second.dateOfBirth))).plaintext, '1990-12-10');
    assert.equal((await decryptPii(context, merchant.id, String(second.phoneNumber))).plaintext, '+14155550123');
    const address = second.address ?? {};
    assert.deepEqual(Object.keys(address).sort(), ['city', 'country', 'line1', 'postalCode', 'state']);
    assert.equal((await decryptPii(context, merchant.id, String(address.state))).plaintext, 'TX');
    assert.equal((await decryptPii(context, merchant.id, String(address.country))).plaintext, 'US');
    assert.equal((await decryptPii(context, merchant.id, String(address.postalCode))).plaintext, '73301-0001');
  });

  test('shows the KYC status as it progresses and the payout methods set by an administrator', async () => {
    const created = await createCustomer(context, merchant.apiKey, completeKyc);
    assert.equal(assertSucceeded<CustomerData>(await read(created.id)).kycStatus, 'PENDING');
    await context.drainJobs();
    context.clock.advance(2_000);
    await context.drainJobs();
    assert.equal(assertSucceeded<CustomerData>(await read(created.id)).kycStatus, 'APPROVED');
    assert.equal('supportedPayoutMethods' in assertSucceeded<CustomerData>(await read(created.id)), false);
    assertSucceeded(await context.admin('POST', `/admin/v1/customers/${created.id}/supported_payout_methods`, { supportedPayoutMethods: ['CRYPTO_WALLET', 'BANK_TRANSFER'] }));
    assert.deepEqual(assertSucceeded<CustomerData>(await read(created.id)).supportedPayoutMethods, ['CRYPTO_WALLET', 'BANK_TRANSFER']);
  });

  test('a trailing slash reads the same customer', async () => {
    const created = await createCustomer(context, merchant.apiKey);
    assert.equal(assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${created.id}/`, apiKey: merchant.apiKey })).id, created.id);
  });
});
