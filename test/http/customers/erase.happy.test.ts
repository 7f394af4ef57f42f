import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, sql } from 'drizzle-orm';
import { createKeyRing, generateKeySpec, parseKeySpec, type KeyRing } from '../../../src/crypto/keyring.ts';
import { queryRows } from '../../../src/db/client.ts';
import { kycVerifications, sandboxProviderRecords } from '../../../src/db/schema/index.ts';
import { reencryptAll } from '../../../src/platform.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { assertError, assertSucceeded } from '../../helpers/assertions.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage as createPaymentPage, payPage, testCards } from '../../helpers/payment-pages.ts';
import { advanceAndDrain, confirmPage, createPage as createPayoutPage, getPage as getPayoutPage } from '../../helpers/payout-pages.ts';

/** Values that exist only in this customer's data: none may be found anywhere once they are erased. */
const canary = {
  firstName: 'Erasmina',
  lastName: 'Forgettington',
  dateOfBirth: '1977-05-04',
  phone: '+14155550166',
  email: 'erase.me.q7@example.org',
  line1: '12 Oblivion Lane',
  city: 'Lethebury',
  accountHolderName: 'Erasmina Bankholder',
  accountNumber: '7766554433',
  cardholderName: 'Erasmina Cardholder',
};

/**
 * `POST /v1/customers/:id/erase` (the right to erasure): with every kind of PII present — identity
 * data and KYC, a paid-out payout page with a bank destination, a paid card payment with a
 * cardholder name, a fraud report, e-mails, an idempotent create — every trace goes: no plaintext
 * anywhere in the database, and no sealed value that opens to one (every sealed value is opened by
 * a full key rotation, whose key ring records what it decrypts). Money records stay and balance.
 */
describe('POST /v1/customers/:id/erase', () => {
  // The server's ring decrypts under all three keys; each check re-seals everything under the next one.
  const keys = ['erase0', 'erase1', 'erase2'].map((id) => parseKeySpec(generateKeySpec(id))[0] as { id: string; key: Buffer });
  let checks = 0;
  let context: TestContext;
  let merchant: TestMerchant;
  const opened: TestContext[] = [];
  let customerId: string;
  let payoutPageId: string;
  let paymentPageId: string;
  const referenceId = 'erase-ref-1';

  before(async () => {
    context = await createTestContext({ keyRing: createKeyRing(keys) });
    merchant = await context.createMerchant();
    const created = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      headers: { 'idempotency-key': 'erase-create-1' },
      body: {
        referenceId,
        signupAt: context.clock.now().getTime(),
        email: canary.email,
        firstName: canary.firstName,
        lastName: canary.lastName,
        dateOfBirth: canary.dateOfBirth,
        phoneNumber: canary.phone,
        address: { line1: canary.line1, city: canary.city, state: 'CA', postalCode: '94105', country: 'US' },
      },
    });
    customerId = assertSucceeded<{ id: string }>(created).id;
    await advanceAndDrain(context); // KYC decides (sandbox: APPROVED)
    const payout = await createPayoutPage(context, merchant, { customer: { referenceId, email: canary.email } });
    payoutPageId = payout.id;
    const confirmed = await confirmPage(context, merchant, payoutPageId, {
      payoutMethod: { type: 'BANK_TRANSFER', accountHolderName: canary.accountHolderName, routingNumber: '021000021', accountNumber: canary.accountNumber, accountType: 'CHECKING' },
    });
    assert.equal(confirmed.statusCode, 200, confirmed.body);
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    assert.equal((await getPayoutPage(context, merchant, payoutPageId)).status, 'PROCESSED');
    const paymentPage = await createPaymentPage(context, merchant, { customer: { referenceId, email: canary.email } });
    paymentPageId = paymentPage.id;
    const paid = await payPage(context, merchant, paymentPageId, testCards.visaCredit, { cardholderName: canary.cardholderName });
    assert.equal(paid.statusCode, 200, paid.body);
    const paymentId = assertSucceeded<{ paymentId: string }>(paid).paymentId;
    const report = await context.request({ method: 'POST', url: '/v1/test_helpers/fraud_reports?livemode=false', apiKey: merchant.apiKey, body: { paymentId, fraudReason: 'Card reported stolen' } });
    assert.equal(report.statusCode, 200, report.body);
    await context.drainJobs();
  });
  after(async () => {
    for (const each of opened.reverse()) {
      await each.close();
    }
    await context.close();
  });

  /** Every text and jsonb value of every table, as text. */
  async function wholeDatabase(): Promise<string> {
    const columns = await queryRows<{ table_name: string; column_name: string }>(
      context.database.db,
      sql`select table_name, column_name from information_schema.columns where table_schema = current_schema() and data_type in ('text', 'jsonb', 'character varying', 'json')`,
    );
    const parts: string[] = [];
    for (const { table_name: table, column_name: column } of columns) {
      const rows = await queryRows<{ value: string | null }>(context.database.db, sql`select ${sql.identifier(column)}::text as value from ${sql.identifier(table)}`);
      parts.push(...rows.map((row) => row.value ?? ''));
    }
    return parts.join('\n');
  }

  /** Every plaintext the database's sealed values open to: a full re-encryption under another key, through a ring that records what it decrypts. */
  async function everySealedPlaintext(): Promise<string> {
    checks += 1;
    const active = keys[checks] as { id: string; key: Buffer };
    const ring = createKeyRing([active, ...keys.filter((key) => key !== active)]);
    const seen: string[] = [];
    const recording: KeyRing = { ...ring, decrypt: (ciphertext, associatedData) => {
      const plaintext = ring.decrypt(ciphertext, associatedData);
      seen.push(plaintext);
      return plaintext;
    } };
    const rotating = await createTestContext({ keyRing: recording, database: context.database, clock: context.clock });
    opened.push(rotating);
    await reencryptAll(rotating.platform);
    return seen.join('\n');
  }

  const found = (text: string) => Object.entries(canary).filter(([, value]) => text.toLowerCase().includes(value.toLowerCase())).map(([name]) => name);

  test('erases every trace; the tombstone answers from then on; CUSTOMER_ERASED once; money records stay and balance', async () => {
    assert.ok(found(await everySealedPlaintext()).length > 0, 'before the erase the sealed data does hold the canaries (the check can fail)');
    const response = await context.request({ method: 'POST', url: `/v1/customers/${customerId}/erase`, apiKey: merchant.apiKey, headers: { 'idempotency-key': 'erase-1' } });
    const erased = assertSucceeded<Record<string, unknown>>(response);
    assert.deepEqual(Object.keys(erased).sort(), ['createdAt', 'erasedAt', 'id', 'livemode', 'merchantId', 'referenceId']);
    assert.equal(erased.id, customerId);
    assert.equal(erased.referenceId, referenceId);
    const read = assertSucceeded<Record<string, unknown>>(await context.request({ method: 'GET', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey }));
    assert.deepEqual(read, erased);
    const listed = json<{ data: { customers: Array<Record<string, unknown>> } }>(await context.request({ method: 'GET', url: `/v1/customers?referenceId=${referenceId}`, apiKey: merchant.apiKey })).data.customers;
    assert.deepEqual(listed, [erased]);

    await context.drainJobs();
    assert.deepEqual(found(await wholeDatabase()), [], 'no plaintext trace in any table');
    assert.deepEqual(found(await everySealedPlaintext()), [], 'no sealed value opens to a trace');

    const payout = await getPayoutPage(context, merchant, payoutPageId);
    assert.equal(payout.status, 'PROCESSED');
    assert.equal(payout.customer.email, '');
    assert.equal(payout.payoutMethod?.last4, canary.accountNumber.slice(-4), 'the masked payout method stays (not personal data)');
    const page = assertSucceeded<{ status: string; amount: number }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${paymentPageId}`, apiKey: merchant.apiKey }));
    assert.equal(page.status, 'PAID');
    await assertLedgerInvariants(context.database);

    const events = await queryRows<{ data: Record<string, unknown> }>(context.database.db, sql`select data from events where type = 'CUSTOMER_ERASED'`);
    assert.deepEqual(events.map((event) => event.data), [{ id: customerId, referenceId, erasedAt: erased.erasedAt }]);
    const emails = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from emails where related_id in (${payoutPageId}, ${paymentPageId})`);
    assert.equal(emails[0]?.count, 0, 'the e-mails to the customer are gone from the outbox');
  });

  test('the KYC provider’s applicant is deleted by the job and the outcome recorded', async () => {
    const verifications = await context.database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId));
    assert.ok(verifications.length > 0 && verifications.every((row) => row.applicantDeletedAt !== null), 'every applicant deletion recorded');
    for (const verification of verifications) {
      const records = await context.database.db.select().from(sandboxProviderRecords).where(eq(sandboxProviderRecords.reference, verification.providerApplicantId ?? ''));
      assert.equal(records.length, 0, 'the sandbox provider no longer holds the applicant');
    }
  });

  test('again: the same tombstone, no second event; the customer cannot be changed or paid again; the stored create answer is gone', async () => {
    const first = assertSucceeded(await context.request({ method: 'GET', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey }));
    assert.deepEqual(assertSucceeded(await context.request({ method: 'POST', url: `/v1/customers/${customerId}/erase`, apiKey: merchant.apiKey })), first);
    const events = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from events where type = 'CUSTOMER_ERASED'`);
    assert.equal(events[0]?.count, 1);
    assertError(await context.request({ method: 'POST', url: `/v1/customers/${customerId}`, apiKey: merchant.apiKey, body: { email: 'new@example.com' } }), 409, 'INVALID_STATE');
    const page = await context.request({ method: 'POST', url: '/v1/payout_pages?livemode=false', apiKey: merchant.apiKey, body: { amount: 100, fundingCurrency: 'USDC', clientReferenceId: 'after-erase', releaseMethod: 'AUTOMATIC', customer: { referenceId, email: canary.email } } });
    assertError(page, 409, 'INVALID_STATE');
    const replay = await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, headers: { 'idempotency-key': 'erase-create-1' }, body: { referenceId } });
    assert.notEqual(replay.statusCode, 200);
    assert.ok(!replay.body.includes(canary.email) && !replay.body.includes('eyJ'), 'the replay carries none of the erased data');
  });
});
