import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertSucceeded, completeKyc, createCustomer, decryptPii, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /v1/customers/:customerId (happy paths)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  const update = (id: string, body: unknown, query = '') => context.request({ method: 'POST', url: `/v1/customers/${id}${query}`, apiKey: merchant.apiKey, body });

  async function plainAddress(customer: CustomerData): Promise<Record<string, string>> {
    const plain: Record<string, string> = {};
    for (const [field, jwe] of Object.entries(customer.address ?? {})) {
      plain[field] = (await decryptPii(context, merchant.id, jwe)).plaintext;
    }
    return plain;
  }

  test('the address is merged field by field; other fields stay', async () => {
    const created = await createCustomer(context, merchant.apiKey, { email: 'keep@example.com', firstName: 'Grace', address: { line1: '1 Main St', city: 'Boston', country: 'US' } });
    context.clock.advance(1_000);
    const updated = assertSucceeded<CustomerData>(await update(created.id, { address: { line2: 'Apt 4', postalCode: '02108' } }));
    assert.deepEqual(await plainAddress(updated), { line1: '1 Main St', line2: 'Apt 4', city: 'Boston', postalCode: '02108', country: 'US' });
    assert.equal(updated.email, 'keep@example.com');
    assert.equal((await decryptPii(context, merchant.id, String(updated.firstName))).plaintext, 'Grace');
    assert.equal(updated.updatedAt, created.updatedAt + 1_000);
    assert.equal(updated.createdAt, created.createdAt);
    assert.equal(updated.referenceId, created.referenceId);

    const replaced = assertSucceeded<CustomerData>(await update(created.id, { address: { city: 'Cambridge', line1: '2 Elm St' } }));
    assert.deepEqual(await plainAddress(replaced), { line1: '2 Elm St', line2: 'Apt 4', city: 'Cambridge', postalCode: '02108', country: 'US' });
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${created.id}`, apiKey: merchant.apiKey }));
    assert.deepEqual(await plainAddress(read), { line1: '2 Elm St', line2: 'Apt 4', city: 'Cambridge', postalCode: '02108', country: 'US' });
  });

  test('an address is added to a customer that had none; country and state are normalised', async () => {
    const created = await createCustomer(context, merchant.apiKey);
    assert.equal('address' in created, false);
    const updated = assertSucceeded<CustomerData>(await update(created.id, { address: { country: 'us', state: 'ny', postalCode: '10001-1234' } }));
    assert.deepEqual(await plainAddress(updated), { country: 'US', state: 'NY', postalCode: '10001-1234' });
  });

  test('moving the address to another country re-validates the merged address', async () => {
    const created = await createCustomer(context, merchant.apiKey, { address: { country: 'US', state: 'CA', postalCode: '94105' } });
    const updated = assertSucceeded<CustomerData>(await update(created.id, { address: { country: 'GB', state: 'London', postalCode: 'SW1A 1AA' } }));
    assert.deepEqual(await plainAddress(updated), { country: 'GB', state: 'London', postalCode: 'SW1A 1AA' });
  });

  test('email is updated (and can be added)', async () => {
    const withEmail = await createCustomer(context, merchant.apiKey, { email: 'old@example.com' });
    assert.equal(assertSucceeded<CustomerData>(await update(withEmail.id, { email: 'new@example.com' })).email, 'new@example.com');
    const withoutEmail = await createCustomer(context, merchant.apiKey);
    assert.equal(assertSucceeded<CustomerData>(await update(withoutEmail.id, { email: ' added@example.com ' })).email, 'added@example.com');
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${withEmail.id}`, apiKey: merchant.apiKey }));
    assert.equal(read.email, 'new@example.com');
  });

  test('supportedPaymentMethods is set once; sending the same value again (any order) is accepted', async () => {
    const created = await createCustomer(context, merchant.apiKey);
    assert.equal('supportedPaymentMethods' in created, false);
    const set = assertSucceeded<CustomerData>(await update(created.id, { supportedPaymentMethods: ['CARD', 'CRYPTO'] }));
    assert.deepEqual(set.supportedPaymentMethods, ['CARD', 'CRYPTO']);
    const again = assertSucceeded<CustomerData>(await update(created.id, { supportedPaymentMethods: ['CRYPTO', 'CARD'], email: 'same@example.com' }));
    assert.deepEqual(again.supportedPaymentMethods, ['CARD', 'CRYPTO']);
    assert.equal(again.email, 'same@example.com');
  });

  test('an empty update changes nothing but updatedAt', async () => {
    const created = await createCustomer(context, merchant.apiKey, { email: 'still@example.com' });
    context.clock.advance(5);
    const updated = assertSucceeded<CustomerData>(await update(created.id, {}));
    assert.deepEqual({ ...updated, updatedAt: 0 }, { ...created, updatedAt: 0 });
  });

  test('an update that completes the KYC data starts KYC; later updates do not restart it', async () => {
    const { address: _address, ...identity } = completeKyc;
    const created = await createCustomer(context, merchant.apiKey, { ...identity, address: { line1: '1 Market St', country: 'US' } });
    assert.equal(created.kycStatus, 'NOT_STARTED');
    const stillPartial = assertSucceeded<CustomerData>(await update(created.id, { address: { city: 'San Francisco', postalCode: '94105' } }));
    assert.equal(stillPartial.kycStatus, 'NOT_STARTED', 'state is still missing for a US address');
    const complete = assertSucceeded<CustomerData>(await update(created.id, { address: { state: 'CA' } }));
    assert.equal(complete.kycStatus, 'PENDING');
    const verification = await context.platform.services.kyc.latestVerification(created.id);
    assert.equal(verification?.status, 'PENDING');
    await context.drainJobs();
    context.clock.advance(2_000);
    await context.drainJobs();
    const approved = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${created.id}`, apiKey: merchant.apiKey }));
    assert.equal(approved.kycStatus, 'APPROVED');
    const afterwards = assertSucceeded<CustomerData>(await update(created.id, { address: { line2: 'Floor 2' } }));
    assert.equal(afterwards.kycStatus, 'APPROVED');
    assert.equal((await context.platform.services.kyc.latestVerification(created.id))?.id, verification?.id, 'no second verification');
  });

  test('a live customer is updated with livemode=true or without livemode', async () => {
    const live = await createCustomer(context, merchant.apiKey, {}, true);
    assert.equal(assertSucceeded<CustomerData>(await update(live.id, { email: 'live@example.com' }, '?livemode=true')).email, 'live@example.com');
    assert.equal(assertSucceeded<CustomerData>(await update(live.id, { email: 'live2@example.com' })).email, 'live2@example.com');
  });
});
