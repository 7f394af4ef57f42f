import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, asc, eq, sql } from 'drizzle-orm';
import { createKeyRing, generateKeySpec, parseKeySpec } from '../../../src/crypto/keyring.ts';
import { sealedColumns } from '../../../src/crypto/rotation.ts';
import { queryRows } from '../../../src/db/client.ts';
import { dashboardUsers, emails, idempotencyKeys, paymentPages, webhookEndpoints } from '../../../src/db/schema/index.ts';
import { createTwoFactor } from '../../../src/modules/dashboard/two-factor.ts';
import { enqueueEmail } from '../../../src/modules/email/enqueue.ts';
import { openEmailContent } from '../../../src/modules/email/sealing.ts';
import { reencryptStoredResponses } from '../../../src/http/idempotency.ts';
import { keyRingStatus, reencryptAll } from '../../../src/platform.ts';
import { assertSucceeded, completeKyc, decryptPii, uniqueReference, type CustomerData } from '../../helpers/assertions.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage as createPaymentPage, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage as createPayoutPage, fullKyc, getPage as getPayoutPage } from '../../helpers/payout-pages.ts';
import { createEndpoint, emitEvent } from '../../helpers/webhooks.ts';
import { assertVerified, WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { runInProcess } from '../../cli/helpers.ts';

/**
 * Key-ring rotation end to end: data of every sealed kind is written under an old key, the ring
 * gets a new first key, the orchestrator re-seals everything, and then (1) no column of any table
 * holds a ciphertext (or a keyed lookup hash) under the old key — found by scanning every text and jsonb column, so a sealed
 * column the orchestrator does not know fails here — and (2) a ring with only the new key serves
 * every read: customer, payout page (destination and e-mail), payment page, fraud report, webhook
 * signing with the same (current and previous) secrets, idempotent replay, stored e-mail.
 */
describe('key-ring rotation re-seals every sealed value', () => {
  const oldKey = parseKeySpec(generateKeySpec('rotold'));
  const newKey = parseKeySpec(generateKeySpec('rotnew'));
  let original: TestContext;
  let receiver: WebhookReceiver;
  const opened: TestContext[] = [];

  before(async () => {
    original = await createTestContext({ keyRing: createKeyRing(oldKey) });
    receiver = await WebhookReceiver.start();
  });
  after(async () => {
    for (const context of opened.reverse()) {
      await context.close();
    }
    await original.close();
    await receiver.close();
  });

  /** Every (table.column) of the application's tables holding a value sealed under `keyId`, with counts. */
  async function columnsHoldingKey(context: TestContext, keyId: string): Promise<Map<string, number>> {
    const columns = await queryRows<{ table_name: string; column_name: string }>(
      context.database.db,
      sql`select table_name, column_name from information_schema.columns
          where table_schema = current_schema() and data_type in ('text', 'jsonb', 'character varying', 'json') order by 1, 2`,
    );
    assert.ok(columns.length > 20, 'the scan sees the schema');
    const found = new Map<string, number>();
    // Ciphertexts (`v1.<kid>.…`) and keyed lookup hashes (`h1.<kid>.…`) are both under a ring key.
    const patterns = [`%v1.${keyId}.%`, `%h1.${keyId}.%`];
    for (const { table_name: table, column_name: column } of columns) {
      const [row] = await queryRows<{ count: string | number }>(
        context.database.db,
        sql`select count(*) as count from ${sql.identifier(table)} where ${sql.identifier(column)}::text like ${patterns[0]} or ${sql.identifier(column)}::text like ${patterns[1]}`,
      );
      const count = Number(row?.count ?? 0);
      if (count > 0) {
        found.set(`${table}.${column}`, count);
      }
    }
    return found;
  }

  test('every sealed column moves to the new key; a ring with only the new key reads everything', async () => {
    const merchant: TestMerchant = await original.createMerchant();

    // Customer PII (and an idempotent POST whose stored answer carries it).
    const idempotencyKey = `rotation-${uniqueReference('idem')}`;
    const customerBody = { referenceId: uniqueReference('rotation'), signupAt: 1_700_000_000_000, email: 'ada@example.com', ...completeKyc };
    const first = await original.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: customerBody, headers: { 'idempotency-key': idempotencyKey } });
    const customer = assertSucceeded<CustomerData>(first);

    // A payout page confirmed with bank details (MANUAL: it waits for release after KYC).
    const payout = await createPayoutPage(original, merchant, { releaseMethod: 'MANUAL', customer: { referenceId: uniqueReference('payee'), email: 'payee@example.com' } });
    assert.equal((await confirmPage(original, merchant, payout.id, { payoutMethod: bankMethod, kyc: fullKyc })).statusCode, 200);

    // A payment page paid with a cardholder name, and a fraud report on that payment.
    const paymentPage: PageBody = await createPaymentPage(original, merchant);
    const paid = await payPage(original, merchant, paymentPage.id, testCards.visaCredit, { cardholderName: 'Grace Hopper' });
    assert.equal(paid.statusCode, 200, paid.body);
    const paymentId = json<{ data: PageBody }>(paid).data.paymentId;
    assert.ok(paymentId, 'the paid page names its payment');
    const report = await original.request({ method: 'POST', url: '/v1/test_helpers/fraud_reports?livemode=false', apiKey: merchant.apiKey, body: { paymentId, fraudReason: 'Card reported stolen' } });
    assert.equal(report.statusCode, 200, report.body);

    // A webhook endpoint whose secret was rotated (current and previous secret both sealed).
    const endpoint = await createEndpoint(original, merchant, { url: receiver.url() });
    const rotated = await original.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/rotate_secret?livemode=false`, apiKey: merchant.apiKey, body: { gracePeriodSeconds: 86_400 } });
    const currentSecret = assertSucceeded<{ secret: string }>(rotated).secret;
    assert.notEqual(currentSecret, endpoint.secret);

    // An e-mail (payout pages send some too).
    const emailId = await original.database.transaction((tx) =>
      enqueueEmail(tx, original.clock.now(), original.keyRing, { merchantId: merchant.id, livemode: false, to: 'ada@example.com', template: 'rotation_test', subject: 'Hello Ada', text: 'Hi Ada', html: '<p>Hi Ada</p>' }),
    );
    await advanceAndDrain(original); // KYC decides, e-mails go to the outbox, webhooks are delivered

    // A dashboard user's TOTP secret (two-factor sign-in being set up).
    const [user] = await original.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.merchantId, merchant.id));
    assert.ok(user);
    const twoFactorOf = (context: TestContext) => createTwoFactor({ database: context.database, clock: context.clock, keyRing: context.keyRing });
    const totpSecret = (await twoFactorOf(original).enrolment(user.id, user.email))?.secret;
    assert.ok(totpSecret);

    // Before: every sealed column holds values under the old key, and nothing else does.
    const expected = sealedColumns.map(({ table, column }) => `${table}.${column}`).sort();
    assert.deepEqual([...(await columnsHoldingKey(original, 'rotold')).keys()].sort(), expected, 'data of every sealed kind exists, and no other column holds ciphertext');

    const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: original.database, clock: original.clock });
    opened.push(rotating);
    const pending = await keyRingStatus(rotating.platform);
    assert.equal(pending.activeKeyId, 'rotnew');
    assert.ok((pending.staleByKey.rotold ?? 0) >= expected.length && pending.stale === pending.staleByKey.rotold, JSON.stringify(pending.staleByKey));
    const statusBefore = await runInProcess(rotating.platform, ['crypto', 'status']);
    assert.equal(statusBefore.code, 0, statusBefore.stderr);
    assert.match(statusBefore.stdout, /^webhook_endpoints\tprevious_secret_ciphertext\trotold\t1$/m);
    assert.match(statusBefore.stdout, /sealed values are not under the active key rotnew \(\d+ under rotold\): run crypto reencrypt\n$/);

    const progress = new Map<string, Array<[number, number]>>();
    const finished: string[] = [];
    const results = await reencryptAll(rotating.platform, (label) => ({
      onProgress: (done, total) => progress.set(label, [...(progress.get(label) ?? []), [done, total]]),
      finish: () => finished.push(label),
    }));
    const labels = ['customers', 'e-mails', 'payout pages', 'payment pages', 'payments', 'fraud reports', 'webhook endpoints', 'idempotent responses', 'authenticator secrets', 'merchant PII keys'];
    assert.deepEqual(
      results.map((result) => result.label),
      labels,
    );
    assert.deepEqual(finished, labels, 'every step finished its progress bar');
    for (const result of results) {
      assert.ok(result.reencrypted >= 1, `${result.label}: re-encrypted ${result.reencrypted}`);
      const reports = progress.get(result.label) ?? [];
      const last = reports.at(-1);
      assert.ok(last && last[0] === last[1] && last[1] >= result.reencrypted, `${result.label} progress ends complete: ${JSON.stringify(reports)}`);
    }

    // After: not one value anywhere under the old key; a second run has nothing to do.
    assert.deepEqual([...(await columnsHoldingKey(original, 'rotold')).entries()], [], 'no value under the old key in any column');
    assert.deepEqual([...(await columnsHoldingKey(original, 'rotnew')).keys()].sort(), expected, 'every sealed column is under the new key');
    assert.deepEqual(
      (await reencryptAll(rotating.platform)).filter((result) => result.reencrypted !== 0),
      [],
      'nothing left to re-encrypt',
    );
    const done = await keyRingStatus(rotating.platform);
    assert.equal(done.stale, 0, JSON.stringify(done.staleByKey));
    assert.ok(done.counts.length >= expected.length && done.counts.every((entry) => entry.keyId === 'rotnew'));
    assert.match((await runInProcess(rotating.platform, ['crypto', 'status'])).stdout, /every sealed value is under the active key rotnew: other keys can be removed\n$/);

    // A ring with only the new key: the old one is gone, everything still opens.
    const only = await createTestContext({ keyRing: createKeyRing(newKey), database: original.database, clock: original.clock });
    opened.push(only);

    const customerRead = assertSucceeded<CustomerData>(await only.request({ method: 'GET', url: `/v1/customers/${customer.id}`, apiKey: merchant.apiKey }));
    assert.equal(customerRead.email, 'ada@example.com');
    assert.equal((await decryptPii(only, merchant.id, String(customerRead.firstName))).plaintext, 'Ada');

    const payoutRead = await getPayoutPage(only, merchant, payout.id);
    assert.equal(payoutRead.customer.email, 'payee@example.com');
    assert.equal(payoutRead.payoutMethod?.routingNumber, bankMethod.routingNumber, 'the sealed destination opens');
    assert.equal(payoutRead['sub-status'], 'AWAITING_RELEASE');
    // The rail gets the full destination (account number) from the sealed fields.
    assert.equal((await only.request({ method: 'POST', url: `/v1/payout_pages/${payout.id}/release`, apiKey: merchant.apiKey })).statusCode, 200);
    await advanceAndDrain(only);
    assert.equal((await getPayoutPage(only, merchant, payout.id))['sub-status'], 'PAID');

    const paymentRead = assertSucceeded<PageBody>(await only.request({ method: 'GET', url: `/v1/payment_pages/${paymentPage.id}?livemode=false`, apiKey: merchant.apiKey }));
    assert.equal(paymentRead.customer.email, 'buyer@example.com');

    const reportRead = assertSucceeded<{ checkoutFraudReport: { cardholderName: string; customerEmail: string } }>(
      await only.request({ method: 'GET', url: `/v1/fraud_reports/${paymentId}?livemode=false`, apiKey: merchant.apiKey }),
    );
    assert.equal(reportRead.checkoutFraudReport.cardholderName, 'Grace Hopper');
    assert.equal(reportRead.checkoutFraudReport.customerEmail, 'buyer@example.com');

    receiver.reset();
    await emitEvent(only, merchant);
    await only.drainJobs();
    assert.equal(receiver.requests.length, 1, 'one delivery after the rotation');
    const [delivered] = receiver.requests;
    assert.ok(delivered);
    // Signed with the same secrets as before the key-ring rotation: the current one, and (grace period) the previous one.
    assertVerified(delivered, currentSecret, [currentSecret, endpoint.secret]);
    assertVerified(delivered, endpoint.secret, [currentSecret, endpoint.secret]);

    const replay = await only.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: customerBody, headers: { 'idempotency-key': idempotencyKey } });
    assert.equal(replay.statusCode, first.statusCode);
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body, 'the stored answer is replayed byte for byte');

    assert.equal((await twoFactorOf(only).enrolment(user.id, user.email))?.secret, totpSecret, 'the TOTP secret opens under the new key');

    const [emailRow] = await only.database.db.select().from(emails).where(eq(emails.id, emailId));
    assert.ok(emailRow);
    assert.deepEqual(openEmailContent(only.keyRing, emailRow.merchantId, emailRow.id, emailRow), { to: 'ada@example.com', subject: 'Hello Ada', text: 'Hi Ada', html: '<p>Hi Ada</p>' });

    // The old key alone no longer opens it: the value really moved.
    assert.throws(() => openEmailContent(createKeyRing(oldKey), emailRow.merchantId, emailRow.id, emailRow), /unknown key id rotnew/);
  });

  test('a write between the read and the update wins; older plaintext responses are sealed; a value that does not open stops the run naming its row', async () => {
    const merchant = await original.createMerchant();
    const endpoint = await createEndpoint(original, merchant, { url: receiver.url() });
    // An idempotent answer stored in plaintext, as versions before sealed responses did.
    const idempotencyKey = `legacy-${uniqueReference('idem')}`;
    const body = { referenceId: uniqueReference('legacy'), signupAt: 1_700_000_000_000, email: 'legacy@example.com' };
    const first = await original.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': idempotencyKey } });
    assert.equal(first.statusCode, 200, first.body);
    const legacy = and(eq(idempotencyKeys.merchantId, merchant.id), eq(idempotencyKeys.key, idempotencyKey));
    await original.database.db.update(idempotencyKeys).set({ responseBody: first.body }).where(legacy);

    const rotating = await createTestContext({ keyRing: createKeyRing([...newKey, ...oldKey]), database: original.database, clock: original.clock });
    opened.push(rotating);
    assert.ok(((await keyRingStatus(rotating.platform)).staleByKey.plaintext ?? 0) >= 1, 'the plaintext answer counts as not sealed yet');

    // The endpoint's secret is rotated (through the API, by a process that knows the new key) after
    // the re-encryption read the row and before it writes: the rotation must survive.
    const order = (await rotating.database.db.select({ id: webhookEndpoints.id }).from(webhookEndpoints).orderBy(asc(webhookEndpoints.id))).map((row) => row.id);
    const index = order.indexOf(endpoint.id);
    assert.ok(index >= 0);
    let concurrentSecret = '';
    const changed = await rotating.platform.services.webhooks.reencryptAll({
      batchSize: 2,
      beforeRow: async (row) => {
        if (row === index) {
          const rotated = await rotating.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpoint.id}/rotate_secret?livemode=false`, apiKey: merchant.apiKey, body: { gracePeriodSeconds: 0 } });
          concurrentSecret = assertSucceeded<{ secret: string }>(rotated).secret;
        }
      },
    });
    assert.equal(changed, 0, 'the only endpoint under the old key was changed meanwhile: its update matched nothing');
    assert.ok(concurrentSecret !== '' && concurrentSecret !== endpoint.secret);
    const [stored] = await rotating.database.db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, endpoint.id));
    assert.ok(stored?.secretCiphertext.startsWith('v1.rotnew.'), 'the concurrent write sealed under the new key');
    receiver.reset();
    await emitEvent(rotating, merchant);
    await rotating.drainJobs();
    const [delivered] = receiver.requests;
    assert.ok(delivered, 'delivered after the rotation');
    assertVerified(delivered, concurrentSecret, [concurrentSecret]);
    assert.throws(() => assertVerified(delivered, endpoint.secret, [endpoint.secret]), 'the old secret was not written back over the rotation');

    // The plaintext answer is sealed, and replays unchanged.
    assert.ok((await reencryptStoredResponses(rotating.platform)) >= 1);
    const [sealedRecord] = await rotating.database.db.select().from(idempotencyKeys).where(legacy);
    assert.ok(sealedRecord?.responseBody?.startsWith('v1.rotnew.'), 'sealed under the new key');
    const replay = await rotating.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body, headers: { 'idempotency-key': idempotencyKey } });
    assert.equal(replay.headers['idempotent-replayed'], 'true');
    assert.equal(replay.body, first.body);

    // A value under a key no longer in any ring: the run stops and names the row (never the value).
    const page = await createPaymentPage(rotating, merchant);
    const lost = `v1.gone.${Buffer.alloc(40, 1).toString('base64url')}`;
    await rotating.database.db.update(paymentPages).set({ customerEmailCiphertext: lost }).where(eq(paymentPages.id, page.id));
    const stalled = await keyRingStatus(rotating.platform);
    assert.equal(stalled.staleByKey.gone, 1, 'status shows the value under the unknown key');
    await assert.rejects(rotating.platform.services.paymentPages.reencryptAll(), (error: Error) => error.message.includes(`"${page.id}"`) && /unknown key id gone/.test(error.message));
    const cli = await runInProcess(rotating.platform, ['crypto', 'reencrypt']);
    assert.equal(cli.code, 1);
    assert.match(cli.stderr, new RegExp(`payment pages: re-encryption stopped at "${page.id}": unknown key id gone`));
    assert.ok(!cli.stderr.includes(lost), 'the value itself is not printed');
  });
});

