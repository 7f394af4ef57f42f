import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertError, completeKyc, createCustomer, snapshotCustomerTables } from '../../helpers/assertions.ts';

const day = 24 * 60 * 60 * 1000;

describe('POST /v1/customers (errors)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  function post(body: unknown, query = '?livemode=false') {
    return context.request({ method: 'POST', url: `/v1/customers${query}`, apiKey: merchant.apiKey, body });
  }

  const valid = { referenceId: 'valid-ref', signupAt: 1_700_000_000_000 };
  const yearsAgo = (years: number, extraDays = 0) => {
    const date = new Date();
    date.setUTCFullYear(date.getUTCFullYear() - years);
    date.setUTCDate(date.getUTCDate() - extraDays);
    return date.toISOString().slice(0, 10);
  };

  // [what is wrong, body, the field the message must name, optional rule text]
  const cases: Array<[string, () => Record<string, unknown>, string, string?]> = [
    ['referenceId missing', () => ({ signupAt: 1 }), 'referenceId', 'required'],
    ['referenceId empty', () => ({ ...valid, referenceId: '' }), 'referenceId', 'at least 1 character'],
    ['referenceId of 256 characters', () => ({ ...valid, referenceId: 'r'.repeat(256) }), 'referenceId', 'at most 255 characters'],
    ['referenceId a number', () => ({ ...valid, referenceId: 12 }), 'referenceId', 'must be a string'],
    ['signupAt missing', () => ({ referenceId: 'x' }), 'signupAt', 'required'],
    ['signupAt zero', () => ({ ...valid, signupAt: 0 }), 'signupAt', 'positive'],
    ['signupAt negative', () => ({ ...valid, signupAt: -5 }), 'signupAt', 'positive'],
    ['signupAt more than 24 h ahead', () => ({ ...valid, signupAt: context.clock.now().getTime() + day + 60_000 }), 'signupAt', '24 hours'],
    ['signupAt as a string', () => ({ ...valid, signupAt: '1700000000000' }), 'signupAt', 'must be an integer'],
    ['signupAt with a fraction', () => ({ ...valid, signupAt: 1_700_000_000_000.5 }), 'signupAt', 'must be an integer'],
    ['email without a domain', () => ({ ...valid, email: 'not-an-email' }), 'email', 'e-mail'],
    ['email with a bare host', () => ({ ...valid, email: 'a@localhost' }), 'email', 'e-mail'],
    ['email empty', () => ({ ...valid, email: '' }), 'email'],
    ['email over 254 characters', () => ({ ...valid, email: `${'a'.repeat(64)}@${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(63)}.com` }), 'email', '254'],
    ['email a number', () => ({ ...valid, email: 42 }), 'email', 'must be a string'],
    ['dateOfBirth with slashes', () => ({ ...valid, dateOfBirth: '1990/01/01' }), 'dateOfBirth', 'YYYY-MM-DD'],
    ['dateOfBirth not a real date', () => ({ ...valid, dateOfBirth: '1990-02-30' }), 'dateOfBirth', 'real calendar date'],
    ['dateOfBirth month 13', () => ({ ...valid, dateOfBirth: '1990-13-01' }), 'dateOfBirth', 'real calendar date'],
    ['dateOfBirth in the future', () => ({ ...valid, dateOfBirth: `${new Date().getUTCFullYear() + 1}-01-01` }), 'dateOfBirth', 'past'],
    ['dateOfBirth over 130 years ago', () => ({ ...valid, dateOfBirth: yearsAgo(130, 2) }), 'dateOfBirth', '130'],
    ['dateOfBirth with a time', () => ({ ...valid, dateOfBirth: '1990-01-01T00:00:00Z' }), 'dateOfBirth', 'YYYY-MM-DD'],
    ['phoneNumber over 20 characters', () => ({ ...valid, phoneNumber: '+1 (415) 555-0123 000' }), 'phoneNumber', '20'],
    ['phoneNumber too short', () => ({ ...valid, phoneNumber: '123' }), 'phoneNumber', 'valid phone number'],
    ['phoneNumber with an unassigned area code', () => ({ ...valid, phoneNumber: '(000) 555-0123' }), 'phoneNumber', 'valid phone number'],
    ['phoneNumber letters', () => ({ ...valid, phoneNumber: 'call me maybe' }), 'phoneNumber', 'valid phone number'],
    ['phoneNumber with trailing letters', () => ({ ...valid, phoneNumber: '(415)5550123abc' }), 'phoneNumber', 'valid phone number'],
    ['phoneNumber with an extension', () => ({ ...valid, phoneNumber: '415-555-0123 x5' }), 'phoneNumber', 'valid phone number'],
    ['phoneNumber with a plus inside', () => ({ ...valid, phoneNumber: '415+555-0123' }), 'phoneNumber', 'valid phone number'],
    ['address.country unknown', () => ({ ...valid, address: { country: 'XX' } }), 'address.country', 'ISO 3166-1'],
    ['address.country alpha-3', () => ({ ...valid, address: { country: 'USA' } }), 'address.country'],
    ['address.state not a USPS code', () => ({ ...valid, address: { country: 'US', state: 'ZZ' } }), 'address.state', 'USPS'],
    ['address.state spelled out', () => ({ ...valid, address: { country: 'US', state: 'California' } }), 'address.state', 'USPS'],
    ['address.postalCode not a ZIP', () => ({ ...valid, address: { country: 'US', postalCode: '9410' } }), 'address.postalCode', 'ZIP'],
    ['address.postalCode bad ZIP+4', () => ({ ...valid, address: { country: 'US', postalCode: '94105-12' } }), 'address.postalCode', 'ZIP'],
    ['address.line1 over 255 characters', () => ({ ...valid, address: { line1: 'l'.repeat(256) } }), 'address.line1', '255'],
    ['address.city empty', () => ({ ...valid, address: { city: '' } }), 'address.city'],
    ['address not an object', () => ({ ...valid, address: '1 Market St' }), 'address', 'must be an object'],
    ['address with an unknown field', () => ({ ...valid, address: { zip: '94105' } }), 'address.zip', 'not a recognised field'],
    ['firstName over 100 characters', () => ({ ...valid, firstName: 'f'.repeat(101) }), 'firstName', '100'],
    ['middleName over 100 characters', () => ({ ...valid, middleName: 'm'.repeat(101) }), 'middleName', '100'],
    ['lastName over 100 characters', () => ({ ...valid, lastName: 'l'.repeat(101) }), 'lastName', '100'],
    ['firstName blank', () => ({ ...valid, firstName: '   ' }), 'firstName', 'blank'],
    ['supportedPaymentMethods with an unknown value', () => ({ ...valid, supportedPaymentMethods: ['CASH'] }), 'supportedPaymentMethods', 'CARD, BANK_TRANSFER, CRYPTO'],
    ['supportedPaymentMethods with a duplicate', () => ({ ...valid, supportedPaymentMethods: ['CARD', 'CARD'] }), 'supportedPaymentMethods', 'duplicates'],
    ['supportedPaymentMethods as a string', () => ({ ...valid, supportedPaymentMethods: 'CARD' }), 'supportedPaymentMethods', 'must be an array'],
    ['supportedPaymentMethods empty', () => ({ ...valid, supportedPaymentMethods: [] }), 'supportedPaymentMethods', 'at least 1 item'],
    ['supportedPaymentMethods in lower case', () => ({ ...valid, supportedPaymentMethods: ['card'] }), 'supportedPaymentMethods'],
    ['an unknown field', () => ({ ...valid, nickname: 'Ada' }), 'nickname', 'not a recognised field'],
    ['supportedPayoutMethods (admin only)', () => ({ ...valid, supportedPayoutMethods: ['CRYPTO_WALLET'] }), 'supportedPayoutMethods', 'not a recognised field'],
    ['a server-set field (kycStatus)', () => ({ ...valid, kycStatus: 'APPROVED' }), 'kycStatus', 'not a recognised field'],
    ['complete KYC data but one bad field', () => ({ ...valid, ...completeKyc, phoneNumber: '555' }), 'phoneNumber', 'valid phone number'],
  ];

  for (const [label, body, field, rule] of cases) {
    test(`${label} → 400 WRONG_PARAMETER naming ${field}, nothing written`, async () => {
      const before = await snapshotCustomerTables(context.database);
      const error = assertError(await post(body()), 400, 'WRONG_PARAMETER', field);
      if (rule !== undefined) {
        assert.ok(error.errorMessage.includes(rule), `"${error.errorMessage}" states the rule (${rule})`);
      }
      assert.deepEqual(await snapshotCustomerTables(context.database), before, 'no customer, KYC verification or job was written');
    });
  }

  test('signupAt exactly now + 24 h is accepted (the bound is inclusive)', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { signupAt: context.clock.now().getTime() + day });
    assert.equal(customer.signupAt, context.clock.now().getTime() + day);
  });

  test('the body must be a JSON object', async () => {
    const before = await snapshotCustomerTables(context.database);
    assertError(await post([valid]), 400, 'WRONG_PARAMETER', 'body');
    assertError(await post('"text"'), 400, 'WRONG_PARAMETER', 'body');
    assertError(await post('null'), 400, 'WRONG_PARAMETER', 'body');
    assertError(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey }), 400, 'WRONG_PARAMETER', 'body');
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
  });

  test('malformed JSON → 400 WRONG_PARAMETER', async () => {
    assertError(await post('{"referenceId": "x", "signupAt": '), 400, 'WRONG_PARAMETER', 'JSON');
  });

  test('livemode must be a boolean; unknown query parameters are refused', async () => {
    assertError(await post(valid, '?livemode=yes please'), 400, 'WRONG_PARAMETER', 'livemode');
    assertError(await post(valid, '?livemode=false&expand=all'), 400, 'WRONG_PARAMETER', 'expand');
  });

  test('a repeated referenceId in the same mode → 409 DUPLICATE_REFERENCE_ID; the first customer is untouched', async () => {
    const first = await createCustomer(context, merchant.apiKey, { referenceId: 'dup-ref', email: 'first@example.com' });
    const before = await snapshotCustomerTables(context.database);
    const error = assertError(await post({ referenceId: 'dup-ref', signupAt: 1, email: 'second@example.com' }), 409, 'DUPLICATE_REFERENCE_ID', 'dup-ref');
    assert.doesNotMatch(error.errorMessage, /second@example\.com/);
    assert.deepEqual(await snapshotCustomerTables(context.database), before);
    const read = await context.request({ method: 'GET', url: `/v1/customers/${first.id}`, apiKey: merchant.apiKey });
    assert.equal((JSON.parse(read.body) as { data: { email: string } }).data.email, 'first@example.com');
  });

  test('the same referenceId is free for another merchant', async () => {
    await createCustomer(context, merchant.apiKey, { referenceId: 'shared-ref' });
    const other = await context.createMerchant();
    const customer = await createCustomer(context, other.apiKey, { referenceId: 'shared-ref' });
    assert.equal(customer.merchantId, other.id);
  });
});
