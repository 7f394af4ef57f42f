import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compactDecrypt } from 'jose';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';

type Envelope = { status: string; data: Record<string, unknown> & { address?: Record<string, string> } };

const fullKyc = {
  firstName: 'Ada',
  middleName: 'King',
  lastName: 'Lovelace',
  dateOfBirth: '1990-12-10',
  phoneNumber: '(415) 555-0123',
  address: { line1: '1 Market St', line2: 'Suite 5', city: 'San Francisco', state: 'ca', postalCode: '94105', country: 'us' },
};

describe('POST /v1/customers (happy paths)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  async function decrypt(jwe: string): Promise<{ plaintext: string; kid: string | undefined }> {
    const keys = json<{ data: Array<{ id: string; key: string; active: boolean }> }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`)).data;
    const header = JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid?: string; alg: string; enc: string };
    assert.equal(header.alg, 'dir');
    assert.equal(header.enc, 'A256GCM');
    const key = keys.find((candidate) => candidate.id === header.kid);
    assert.ok(key, 'the JWE kid names one of the merchant PII keys');
    const { plaintext } = await compactDecrypt(jwe, Buffer.from(key.key, 'base64url'));
    return { plaintext: new TextDecoder().decode(plaintext), kid: header.kid };
  }

  test('only the required fields: optional fields are omitted, kycStatus NOT_STARTED', async () => {
    const response = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'min-1', signupAt: 1_700_000_000_000 } });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['request-id']), /^req_/);
    const body = json<Envelope>(response);
    assert.equal(body.status, 'SUCCEEDED');
    assert.match(String(body.data.id), /^cus_[0-9a-z]{36}$/);
    assert.equal(body.data.referenceId, 'min-1');
    assert.equal(body.data.signupAt, 1_700_000_000_000);
    assert.equal(body.data.merchantId, merchant.id);
    assert.equal(body.data.livemode, false);
    assert.equal(body.data.kycStatus, 'NOT_STARTED');
    for (const absent of ['email', 'firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber', 'address', 'supportedPaymentMethods', 'supportedPayoutMethods']) {
      assert.equal(absent in body.data, false, `${absent} is omitted when not provided`);
    }
  });

  test('full KYC data: PII returned as JWE that decrypts to the normalised values; KYC submitted', async () => {
    const response = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: { referenceId: 'full-1', signupAt: 1_700_000_000_000, email: 'ada@example.com', supportedPaymentMethods: ['CARD', 'CRYPTO'], ...fullKyc },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { data } = json<Envelope>(response);
    assert.equal(data.email, 'ada@example.com');
    assert.deepEqual(data.supportedPaymentMethods, ['CARD', 'CRYPTO']);
    assert.equal(data.kycStatus, 'PENDING');
    assert.equal((await decrypt(String(data.firstName))).plaintext, 'Ada');
    assert.equal((await decrypt(String(data.middleName))).plaintext, 'King');
    assert.equal((await decrypt(String(data.lastName))).plaintext, 'Lovelace');
    assert.equal((await decrypt(String(data.dateOfBirth))).plaintext, '1990-12-10');
    assert.equal((await decrypt(String(data.phoneNumber))).plaintext, '+14155550123');
    const address = data.address ?? {};
    assert.equal((await decrypt(String(address.line1))).plaintext, '1 Market St');
    assert.equal((await decrypt(String(address.line2))).plaintext, 'Suite 5');
    assert.equal((await decrypt(String(address.city))).plaintext, 'San Francisco');
    assert.equal((await decrypt(String(address.state))).plaintext, 'CA');
    assert.equal((await decrypt(String(address.postalCode))).plaintext, '94105');
    assert.equal((await decrypt(String(address.country))).plaintext, 'US');

    // The sandbox provider decides after its delay (2 s of test-clock time).
    await context.drainJobs();
    const pending = json<Envelope>(await context.request({ method: 'GET', url: `/v1/customers/${String(data.id)}`, apiKey: merchant.apiKey }));
    assert.equal(pending.data.kycStatus, 'PENDING');
    context.clock.advance(2_000);
    await context.drainJobs();
    const decided = json<Envelope>(await context.request({ method: 'GET', url: `/v1/customers/${String(data.id)}`, apiKey: merchant.apiKey }));
    assert.equal(decided.data.kycStatus, 'APPROVED');
  });

  test('every accepted US phone form normalises to E.164', async () => {
    for (const [index, phoneNumber] of ['(415) 555-0123', '415-555-0123', '4155550123', '+1 415 555 0123', '+14155550123'].entries()) {
      const response = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: `phone-${index}`, signupAt: 1_700_000_000_000, phoneNumber } });
      assert.equal(response.statusCode, 200, `${phoneNumber}: ${response.body}`);
      assert.equal((await decrypt(String(json<Envelope>(response).data.phoneNumber))).plaintext, '+14155550123');
    }
  });

  test('a live-enabled merchant creates live customers when livemode is omitted', async () => {
    const live = await context.createMerchant({ live: true });
    const response = await context.request({ method: 'POST', url: '/v1/customers', apiKey: live.apiKey, body: { referenceId: 'live-1', signupAt: 1_700_000_000_000 } });
    assert.equal(response.statusCode, 200);
    assert.equal(json<Envelope>(response).data.livemode, true);
  });

  test('the same referenceId may exist once per mode', async () => {
    const live = await context.createMerchant({ live: true });
    const sandbox = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: live.apiKey, body: { referenceId: 'both', signupAt: 1 } });
    const liveResponse = await context.request({ method: 'POST', url: '/v1/customers?livemode=true', apiKey: live.apiKey, body: { referenceId: 'both', signupAt: 1 } });
    assert.equal(sandbox.statusCode, 200);
    assert.equal(liveResponse.statusCode, 200);
    assert.notEqual(json<Envelope>(sandbox).data.id, json<Envelope>(liveResponse).data.id);
  });
  test('an international customer: E.164 phone, non-US address without a state, createdAt from the clock', async () => {
    const response = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: {
        referenceId: 'intl-1',
        signupAt: context.clock.now().getTime() - 1_000,
        firstName: 'Émile',
        phoneNumber: '+33 1 42 68 53 00',
        address: { line1: '55 Rue du Faubourg Saint-Honoré', city: 'Paris', postalCode: '75008', country: 'fr' },
      },
    });
    assert.equal(response.statusCode, 200, response.body);
    const { data } = json<Envelope>(response);
    assert.equal(data.createdAt, context.clock.now().getTime());
    assert.equal(data.updatedAt, context.clock.now().getTime());
    assert.equal((await decrypt(String(data.firstName))).plaintext, 'Émile');
    assert.equal((await decrypt(String(data.phoneNumber))).plaintext, '+33142685300');
    assert.equal((await decrypt(String(data.address?.country))).plaintext, 'FR');
    assert.equal('state' in (data.address ?? {}), false);
    assert.equal(data.kycStatus, 'NOT_STARTED', 'no last name or date of birth yet');
  });

  test('every JWE of one answer names the active PII key', async () => {
    const response = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'kid-1', signupAt: 1, ...fullKyc } });
    const { data } = json<Envelope>(response);
    const kids = new Set<string | undefined>();
    for (const jwe of [data.firstName, data.middleName, data.lastName, data.dateOfBirth, data.phoneNumber, ...Object.values(data.address ?? {})]) {
      kids.add((await decrypt(String(jwe))).kid);
    }
    const keys = json<{ data: Array<{ id: string; active: boolean }> }>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`)).data;
    assert.deepEqual([...kids], [keys.find((key) => key.active)?.id]);
  });
});
