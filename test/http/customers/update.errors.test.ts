import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, assertSucceeded, createCustomer, snapshotCustomerTables, type CustomerData } from '../../helpers/assertions.ts';

describe('POST /v1/customers/:customerId (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let customer: CustomerData;
  let withMethods: CustomerData;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    customer = await createCustomer(context, merchant.apiKey, { email: 'orig@example.com', firstName: 'Alan', address: { line1: '1 Main St', country: 'US', state: 'MA', postalCode: '02108' } });
    withMethods = await createCustomer(context, merchant.apiKey, { supportedPaymentMethods: ['CARD'] });
  });
  after(async () => context.close());

  const update = (id: string, body: unknown, query = '') => context.request({ method: 'POST', url: `/v1/customers/${id}${query}`, apiKey: merchant.apiKey, body });

  const immutable: Array<[string, unknown]> = [
    ['referenceId', 'new-ref'],
    ['signupAt', 1_700_000_000_001],
    ['firstName', 'Bob'],
    ['middleName', 'M'],
    ['lastName', 'Turing'],
    ['dateOfBirth', '1912-06-23'],
    ['phoneNumber', '+14155550123'],
    ['supportedPayoutMethods', ['BANK_TRANSFER']],
    // Server-set fields are fields of the customer too: "any other field → IMMUTABLE_FIELD" (docs/API.md §6).
    ['kycStatus', 'APPROVED'],
    ['id', 'cus_other'],
    ['merchantId', 'mer_other'],
    ['livemode', true],
    ['createdAt', 1],
    ['updatedAt', 1],
  ];
  for (const [field, value] of immutable) {
    test(`${field} → 400 IMMUTABLE_FIELD naming it; nothing changes (not even the allowed fields sent with it)`, async () => {
      const before = await snapshotCustomerTables(context.database);
      assertError(await update(customer.id, { email: 'changed@example.com', [field]: value }), 400, 'IMMUTABLE_FIELD', field);
      assert.deepEqual(await snapshotCustomerTables(context.database), before);
    });
  }

  test('immutable even when the value is the current one', async () => {
    assertError(await update(customer.id, { referenceId: customer.referenceId }), 400, 'IMMUTABLE_FIELD', 'referenceId');
  });

  test('supportedPaymentMethods: a different value once set → 400 IMMUTABLE_FIELD', async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await update(withMethods.id, { supportedPaymentMethods: ['CRYPTO'] }), 400, 'IMMUTABLE_FIELD', 'supportedPaymentMethods');
    assertError(await update(withMethods.id, { supportedPaymentMethods: ['CARD', 'CRYPTO'] }), 400, 'IMMUTABLE_FIELD', 'supportedPaymentMethods');
    assertError(await update(withMethods.id, { supportedPaymentMethods: ['CRYPTO'], email: 'x@example.com' }), 400, 'IMMUTABLE_FIELD', 'supportedPaymentMethods');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('supportedPaymentMethods set by an update is then immutable too', async () => {
    const fresh = await createCustomer(context, merchant.apiKey);
    assertSucceeded(await update(fresh.id, { supportedPaymentMethods: ['BANK_TRANSFER'] }));
    assertError(await update(fresh.id, { supportedPaymentMethods: ['CARD'] }), 400, 'IMMUTABLE_FIELD', 'supportedPaymentMethods');
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['an invalid email', { email: 'nope' }, 'email'],
    ['an email that is too long', { email: `${'a'.repeat(250)}@b.co` }, 'email'],
    ['email as a number', { email: 1 }, 'email'],
    ['an unknown country', { address: { country: 'ZZ' } }, 'address.country'],
    ['a bad ZIP for the stored US country', { address: { postalCode: 'ABCDE' } }, 'address.postalCode'],
    ['a bad state for the stored US country', { address: { state: 'XX' } }, 'address.state'],
    ['an empty address line', { address: { line1: '' } }, 'address.line1'],
    ['an address line over 255 characters', { address: { line2: 'x'.repeat(256) } }, 'address.line2'],
    ['an unknown address field', { address: { county: 'Suffolk' } }, 'address.county'],
    ['address as a string', { address: '1 Main St' }, 'address'],
    ['an unknown field', { nickname: 'Al' }, 'nickname'],
    ['supportedPaymentMethods with a bad value', { supportedPaymentMethods: ['GOLD'] }, 'supportedPaymentMethods'],
    ['supportedPaymentMethods with duplicates', { supportedPaymentMethods: ['CARD', 'CARD'] }, 'supportedPaymentMethods'],
  ];
  for (const [label, body, field] of invalid) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}; nothing changes`, async () => {
      const before = await snapshotCustomerTables(context.database);
      assertError(await update(customer.id, body), 400, 'WRONG_PARAMETER', field);
      assert.deepEqual(await snapshotCustomerTables(context.database), before);
    });
  }

  test('the stored values are unchanged after all the refused updates', async () => {
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assert.equal(read.email, 'orig@example.com');
    assert.equal(read.updatedAt, customer.updatedAt);
  });

  test('an unknown id → 404 NOT_FOUND; the body is validated first', async () => {
    assertError(await update(`cus_${'0'.repeat(36)}`, { email: 'a@example.com' }), 404, 'NOT_FOUND');
    assertError(await update(`cus_${'0'.repeat(36)}`, { bogus: true }), 400, 'WRONG_PARAMETER', 'bogus');
  });

  test('malformed JSON and non-JSON bodies → 400 / 415 envelopes', async () => {
    assertError(await update(customer.id, '{"email":'), 400, 'WRONG_PARAMETER');
    const response = await context.app.inject({
      method: 'POST',
      url: `/v1/customers/${customer.id}`,
      headers: { authorization: `Basic ${Buffer.from(`${merchant.apiKey}:`).toString('base64')}`, 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=a%40example.com',
    });
    assertError(response, 415, 'UNSUPPORTED_MEDIA_TYPE');
  });
});
