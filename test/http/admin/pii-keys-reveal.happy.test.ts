import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { compactDecrypt } from 'jose';
import { createTestContext, type TestContext } from '../../helpers/context.ts';
import { assertSucceeded, createCustomer, snapshotTable } from '../../helpers/assertions.ts';

interface PiiKey {
  id: string;
  key: string;
  active: boolean;
  createdAt: number;
}

describe('GET /admin/v1/merchants/:merchantId/pii_keys (happy paths)', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  test("reveals the merchant's 256-bit PII key, which decrypts the JWE in customer responses", async () => {
    const merchant = await context.createMerchant();
    const keys = assertSucceeded<PiiKey[]>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`));
    assert.equal(keys.length, 1);
    const [key] = keys;
    assert.ok(key);
    assert.match(key.id, /^pii_[0-9a-z]{36}$/);
    assert.equal(key.active, true);
    assert.equal(Buffer.from(key.key, 'base64url').length, 32);
    const customer = await createCustomer(context, merchant.apiKey, { firstName: 'Katherine' });
    const { plaintext, protectedHeader } = await compactDecrypt(String(customer.firstName), Buffer.from(key.key, 'base64url'));
    assert.equal(new TextDecoder().decode(plaintext), 'Katherine');
    assert.equal(protectedHeader.kid, key.id);
  });

  test('the key is stored sealed by the platform key ring, never in plaintext', async () => {
    const merchant = await context.createMerchant();
    const [key] = assertSucceeded<PiiKey[]>(await context.admin('GET', `/admin/v1/merchants/${merchant.id}/pii_keys`));
    assert.ok(key);
    assert.equal((await snapshotTable(context.database, 'merchant_pii_keys')).join('').includes(key.key), false);
  });

  test("each merchant has its own key: one merchant's key does not open another's JWE", async () => {
    const first = await context.createMerchant();
    const second = await context.createMerchant();
    const [firstKey] = assertSucceeded<PiiKey[]>(await context.admin('GET', `/admin/v1/merchants/${first.id}/pii_keys`));
    const customer = await createCustomer(context, second.apiKey, { lastName: 'Johnson' });
    await assert.rejects(compactDecrypt(String(customer.lastName), Buffer.from(String(firstKey?.key), 'base64url')));
  });
});
