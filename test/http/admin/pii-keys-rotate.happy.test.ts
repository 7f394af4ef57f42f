import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compactDecrypt } from 'jose';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded, createCustomer, type CustomerData } from '../../helpers/assertions.ts';

interface PiiKey {
  id: string;
  key: string;
  active: boolean;
  createdAt: number;
}

const kidOf = (jwe: string) => (JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string }).kid;

describe('POST /admin/v1/merchants/:merchantId/pii_keys/rotate (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test('new responses use the new key; the old key stays and still opens earlier JWE', async () => {
    const merchant = await context.createMerchant();
    const customer = await createCustomer(context, merchant.apiKey, { firstName: 'Dorothy', phoneNumber: '+1 415 555 0123' });
    const [oldKey] = assertSucceeded<PiiKey[]>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`));
    assert.ok(oldKey);
    assert.equal(kidOf(String(customer.firstName)), oldKey.id);

    context.clock.advance(1_000);
    const keys = assertSucceeded<PiiKey[]>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/pii_keys/rotate`));
    assert.equal(keys.length, 2);
    const [newKey, previous] = keys;
    assert.ok(newKey && previous);
    assert.equal(previous.id, oldKey.id, 'newest first');
    assert.equal(previous.key, oldKey.key);
    assert.equal(previous.active, false);
    assert.equal(newKey.active, true);
    assert.notEqual(newKey.key, oldKey.key);
    assert.equal(newKey.createdAt, context.clock.now().getTime());

    const reread = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assert.equal(kidOf(String(reread.firstName)), newKey.id);
    const fresh = await compactDecrypt(String(reread.firstName), Buffer.from(newKey.key, 'base64url'));
    assert.equal(new TextDecoder().decode(fresh.plaintext), 'Dorothy');
    const old = await compactDecrypt(String(customer.phoneNumber), Buffer.from(previous.key, 'base64url'));
    assert.equal(new TextDecoder().decode(old.plaintext), '+14155550123');
    await assert.rejects(compactDecrypt(String(reread.firstName), Buffer.from(previous.key, 'base64url')), 'the old key does not open new JWE');
  });

  test('rotating twice keeps every key, one active', async () => {
    const merchant = await context.createMerchant();
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/pii_keys/rotate`));
    context.clock.advance(1);
    const keys = assertSucceeded<PiiKey[]>(await context.admin('POST', `/admin/v1/merchants/${merchant.id}/pii_keys/rotate`, {}));
    assert.equal(keys.length, 3);
    assert.deepEqual(
      keys.map((key) => key.active),
      [true, false, false],
    );
    assert.equal(new Set(keys.map((key) => key.key)).size, 3);
  });

  test("rotation is per merchant: other merchants' responses keep their key", async () => {
    const rotated = await context.createMerchant();
    const untouched = await context.createMerchant();
    const [untouchedKey] = assertSucceeded<PiiKey[]>(await context.admin('GET', `/admin/v1/merchants/${untouched.id}/pii_keys`));
    assertSucceeded(await context.admin('POST', `/admin/v1/merchants/${rotated.id}/pii_keys/rotate`));
    const customer = await createCustomer(context, untouched.apiKey, { lastName: 'Vaughan' });
    assert.equal(kidOf(String(customer.lastName)), untouchedKey?.id);
  });
});
