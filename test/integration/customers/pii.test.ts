import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql, type SQL } from 'drizzle-orm';
import { compactDecrypt } from 'jose';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, pageEmails } from '../../helpers/payout-pages.ts';
import { assertError, assertSucceeded, createCustomer, decryptPii, type CustomerData } from '../../helpers/assertions.ts';
import { queryRows } from '../../../src/db/client.ts';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { openFields, openRecord, sealFields, sealedRecordKey } from '../../../src/crypto/pii.ts';

/** Distinctive values that must never appear in plaintext in the database or the logs. */
const canary = {
  firstName: 'Zebulonqx',
  middleName: 'Quillfeather',
  lastName: 'Canarywingtoe',
  dateOfBirth: '1977-03-14',
  phoneNumber: '+1 (415) 555-0199',
  email: 'canary.zq81@example.org',
  address: { line1: '4242 Canary Lane', line2: 'Unit Zq9', city: 'Sparrowvale', state: 'CA', postalCode: '94107', country: 'US' },
};
const canaryStrings = ['Zebulonqx', 'Quillfeather', 'Canarywingtoe', '1977-03-14', '4155550199', '555-0199', 'canary.zq81', '4242 Canary Lane', 'Unit Zq9', 'Sparrowvale', 'Suite Xylophone'];

describe('PII never rests in plaintext (docs/API.md §6)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  test('canary customer: no table row (e-mails to the customer included) and no log line contains its PII', async () => {
    const created = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: { referenceId: 'canary-customer', signupAt: 1_700_000_000_000, ...canary },
      headers: { 'idempotency-key': 'canary-key' },
    });
    const customer = assertSucceeded<CustomerData>(created);
    // Replay, update, read, failed requests carrying PII, KYC to its decision: every path that stores or logs.
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'canary-customer', signupAt: 1_700_000_000_000, ...canary }, headers: { 'idempotency-key': 'canary-key' } });
    assertSucceeded(await context.request({ method: 'POST', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey, body: { address: { line2: 'Suite Xylophone' }, email: canary.email }, headers: { 'idempotency-key': 'canary-update' } }));
    assertSucceeded(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assertError(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'canary-customer', signupAt: 1, ...canary } }), 409, 'DUPLICATE_REFERENCE_ID');
    assertError(await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: 'canary-bad', signupAt: 1, ...canary, phoneNumber: 'Zebulonqx' } }), 400, 'WRONG_PARAMETER');
    assertError(await context.request({ method: 'POST', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey, body: { firstName: canary.firstName } }), 400, 'IMMUTABLE_FIELD');
    await context.drainJobs();
    context.clock.advance(2_000);
    await context.drainJobs();
    assert.equal(assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey })).kycStatus, 'APPROVED');
    // A payout page for the customer: its e-mail greets them by first name, and rests sealed.
    const page = await createPage(context, merchant, { customer: { referenceId: 'canary-customer', email: canary.email } });
    await context.drainJobs();
    assert.ok((await pageEmails(context, page.id)).some((email) => email.text.includes(canary.firstName)), 'an e-mail to the customer greets them by first name');

    const tables = await queryRows<{ name: string }>(
      context.database.db,
      sql`select table_schema || '.' || table_name as name from information_schema.tables
          where table_type = 'BASE TABLE' and table_schema not in ('pg_catalog', 'information_schema') order by 1`,
    );
    assert.ok(tables.some((table) => table.name === 'public.customers'));
    assert.ok(tables.length >= 10, `all tables are scanned (${tables.length})`);
    let scannedRows = 0;
    for (const { name } of tables) {
      const [schema, table] = name.split('.');
      const rows = await queryRows<{ row: string }>(context.database.db, sql.raw(`select t::text as row from "${String(schema)}"."${String(table)}" t`));
      scannedRows += rows.length;
      for (const { row } of rows) {
        for (const value of canaryStrings) {
          assert.equal(row.toLowerCase().includes(value.toLowerCase()), false, `${name} holds "${value}" in plaintext: ${row.slice(0, 300)}`);
        }
      }
    }
    assert.ok(scannedRows > 0);

    const logs = context.logs.join('\n');
    assert.ok(context.logs.length > 5, 'requests were logged');
    for (const value of canaryStrings) {
      assert.equal(logs.toLowerCase().includes(value.toLowerCase()), false, `a log line holds "${value}"`);
    }
  });

  test('the API answer still carries every field, as JWE that decrypts to the values', async () => {
    const customer = await createCustomer(context, merchant.apiKey, { ...canary, referenceId: 'canary-2' });
    assert.equal(customer.email, canary.email, 'email is returned as given (it is not in the JWE list of the interface)');
    assert.equal((await decryptPii(context, merchant.id, String(customer.firstName))).plaintext, canary.firstName);
    assert.equal((await decryptPii(context, merchant.id, String(customer.address?.line1))).plaintext, canary.address.line1);
    for (const field of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber'] as const) {
      assert.match(String(customer[field]), /^[A-Za-z0-9_-]+\.\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/, `${field} is a compact dir JWE`);
    }
  });

  test('a sealed record copied to another customer, merchant, table or column does not decrypt', async () => {
    const alice = await createCustomer(context, merchant.apiKey, { referenceId: 'alice', firstName: 'Alice', lastName: 'Liddell' });
    const bob = await createCustomer(context, merchant.apiKey, { referenceId: 'bob', firstName: 'Bob', lastName: 'Builder' });
    const rows = await queryRows<{ id: string; pii: Record<string, string> | string }>(context.database.db, sql`select id, pii from customers where id in (${alice.id}, ${bob.id})`);
    const piiOf = (id: string) => {
      const value = rows.find((row) => row.id === id)?.pii ?? {};
      return typeof value === 'string' ? (JSON.parse(value) as Record<string, string>) : value;
    };
    // One value per customer: every field travels inside it, so no field can be moved to another.
    const aliceSealed = piiOf(alice.id);
    assert.deepEqual(Object.keys(aliceSealed), [sealedRecordKey]);
    assert.match(String(aliceSealed[sealedRecordKey]), /^v1\./);
    const at = (rowId: string, merchantId = merchant.id, table = 'customers') => ({ merchantId, table, rowId });
    assert.deepEqual(openRecord(context.keyRing, at(alice.id), aliceSealed), { firstName: 'Alice', lastName: 'Liddell' });
    assert.throws(() => openRecord(context.keyRing, at(bob.id), aliceSealed), 'bound to its row');
    assert.throws(() => openRecord(context.keyRing, at(alice.id, 'mer_other'), aliceSealed), 'bound to its merchant');
    assert.throws(() => openRecord(context.keyRing, at(alice.id, merchant.id, 'fraud_reports'), aliceSealed), 'bound to its table');
    // The record's own column: read as a single field of the per-field format (any name), it does not decrypt.
    for (const field of ['pii', 'firstName', sealedRecordKey]) {
      assert.throws(() => openFields(context.keyRing, at(alice.id), { [field]: String(aliceSealed[sealedRecordKey]) }), `bound to its column, not a field named ${field}`);
    }
    // A per-field ciphertext cannot pose as a record either.
    const field = sealFields(context.keyRing, at(alice.id), { firstName: '{"firstName":"Mallory"}' });
    assert.throws(() => openRecord(context.keyRing, at(alice.id), { [sealedRecordKey]: String(field.firstName) }), 'a field is not a record');

    await context.database.db.execute(sql`update customers set pii = ${JSON.stringify(aliceSealed)}::jsonb where id = ${bob.id}`);
    const read = await context.request({ method: 'GET', url: `/v1/customers/${bob.id}`, apiKey: merchant.apiKey });
    const error = assertError(read, 500, 'INTERNAL_ERROR');
    assert.doesNotMatch(read.body, /Alice|Bob|decrypt|stack/i);
    assert.doesNotMatch(error.errorMessage, /key|cipher/i);
  });

  test('rows sealed field by field (the earlier format) still read, and re-encryption rewrites them as one record', async () => {
    const owner = await context.createMerchant();
    const customer = await createCustomer(context, owner.apiKey, { referenceId: 'legacy', ...canary });
    const [stored] = await queryRows<{ pii: Record<string, string> | string }>(context.database.db, sql`select pii from customers where id = ${customer.id}`);
    const sealed = typeof stored?.pii === 'string' ? (JSON.parse(stored.pii) as Record<string, string>) : (stored?.pii ?? {});
    const location = { merchantId: owner.id, table: 'customers', rowId: customer.id };
    const fields = openRecord(context.keyRing, location, sealed);
    assert.equal(fields.lastName, canary.lastName);
    assert.equal(fields['address.city'], canary.address.city);
    // Written back the way earlier versions stored it: one ciphertext per field.
    const perField = sealFields(context.keyRing, location, fields);
    assert.ok(Object.keys(perField).length >= 10);
    await context.database.db.execute(sql`update customers set pii = ${JSON.stringify(perField)}::jsonb where id = ${customer.id}`);

    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: owner.apiKey }));
    assert.equal((await decryptPii(context, owner.id, String(read.lastName))).plaintext, canary.lastName);
    assert.equal((await decryptPii(context, owner.id, String(read.address?.line2))).plaintext, canary.address.line2);
    assert.equal(read.email, canary.email);

    assert.ok((await context.platform.services.customers.reencryptAll()) >= 1, 'the per-field row is rewritten');
    const [rewritten] = await queryRows<{ pii: Record<string, string> | string }>(context.database.db, sql`select pii from customers where id = ${customer.id}`);
    const record = typeof rewritten?.pii === 'string' ? (JSON.parse(rewritten.pii) as Record<string, string>) : (rewritten?.pii ?? {});
    assert.deepEqual(Object.keys(record), [sealedRecordKey]);
    assert.deepEqual(openRecord(context.keyRing, location, record), fields);
    assert.equal(await context.platform.services.customers.reencryptAll(), 0, 'nothing left to rewrite');
    assert.deepEqual(assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: owner.apiKey })).email, canary.email);
  });

  test('key-ring rotation: a new first key plus re-encryption keeps everything readable, then the old key can go', async () => {
    const oldKey = parseKeySpec(generateKeySpec('old'));
    const newKey = parseKeySpec(generateKeySpec('new'));
    const before = await createTestContext({ keyRing: createKeyRing(oldKey) });
    try {
      const owner = await before.createMerchant();
      const customers = [
        await createCustomer(before, owner.apiKey, { referenceId: 'rot-1', ...canary }),
        await createCustomer(before, owner.apiKey, { referenceId: 'rot-2', firstName: 'Second', email: 'second@example.com' }),
      ];
      const countRows = async (query: SQL) => (await queryRows<{ count: number }>(before.database.db, query))[0]?.count;

      // Rotation: the new key encrypts, both decrypt.
      const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: before.database });
      try {
        const mixed = assertSucceeded<CustomerData>(await rotating.request({ method: 'GET', url: `/v1/customers/${String(customers[0]?.id)}`, apiKey: owner.apiKey }));
        assert.equal((await decryptPii(rotating, owner.id, String(mixed.lastName))).plaintext, canary.lastName, 'old ciphertexts read under the new ring');
        const reencrypted = await rotating.platform.services.customers.reencryptAll();
        assert.ok(reencrypted >= 2, `re-encrypted ${reencrypted} customers`);
        assert.ok((await rotating.platform.services.merchants.reencryptPiiKeys()) >= 1);
        assert.equal(await rotating.platform.services.customers.reencryptAll(), 0, 'a second run has nothing left to do');
        assert.equal(await rotating.platform.services.merchants.reencryptPiiKeys(), 0);
      } finally {
        await rotating.close();
      }
      assert.equal(await countRows(sql`select count(*)::int as count from customers, jsonb_each_text(pii) as field where field.value not like 'v1.new.%'`), 0, 'every PII field is under the new key');
      assert.equal(await countRows(sql`select count(*)::int as count from merchant_pii_keys where key_ciphertext not like 'v1.new.%'`), 0);

      // The old key is gone: everything still reads.
      const after = await createTestContext({ keyRing: createKeyRing(newKey), database: before.database });
      try {
        for (const customer of customers) {
          const read = assertSucceeded<CustomerData>(await after.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: owner.apiKey }));
          assert.equal(read.email, customer.email);
          assert.equal((await decryptPii(after, owner.id, String(read.firstName))).plaintext, customer.referenceId === 'rot-1' ? canary.firstName : 'Second');
        }
        // The merchant's PII key itself did not change: JWE issued before the rotation still open with it.
        const [piiKey] = await after.platform.services.merchants.revealPiiKeys(owner.id);
        const { plaintext } = await compactDecrypt(String(customers[0]?.firstName), Buffer.from(String(piiKey?.key), 'base64url'));
        assert.equal(new TextDecoder().decode(plaintext), canary.firstName);
      } finally {
        await after.close();
      }
    } finally {
      await before.close();
    }
  });

  test('merchant PII key rotation: new answers use the new kid; the old key still opens older JWE', async () => {
    const owner = await context.createMerchant();
    const customer = await createCustomer(context, owner.apiKey, { referenceId: 'kid-rotation', firstName: 'Kid' });
    const kidOf = (jwe: string) => (JSON.parse(Buffer.from(jwe.split('.')[0] ?? '', 'base64url').toString('utf8')) as { kid: string }).kid;
    const oldKid = kidOf(String(customer.firstName));
    context.clock.advance(1_000);
    const keys = assertSucceeded<Array<{ id: string; key: string; active: boolean }>>(await context.admin('POST', `/admin/v1/merchants/${owner.id}/pii_keys/rotate`));
    const newKid = keys.find((key) => key.active)?.id;
    assert.ok(newKid && newKid !== oldKid);
    const read = assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: owner.apiKey }));
    assert.equal(kidOf(String(read.firstName)), newKid);
    const oldKey = keys.find((key) => key.id === oldKid);
    const { plaintext } = await compactDecrypt(String(customer.firstName), Buffer.from(String(oldKey?.key), 'base64url'));
    assert.equal(new TextDecoder().decode(plaintext), 'Kid');
  });
});
