import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { customers, emails, idempotencyKeys, jobs, kycVerifications, sandboxProviderRecords, webhookDeliveryAttempts } from '../../../src/db/schema/index.ts';
import { keyRingStatus, reencryptAll } from '../../../src/platform.ts';
import { enqueueEmail } from '../../../src/modules/email/enqueue.ts';
import { renderEmail } from '../../../src/modules/email/templates.ts';
import { retentionQueue, scheduleRetention, type RetentionStatusEntry } from '../../../src/modules/retention/service.ts';
import type { RetentionCategory } from '../../../src/config/retention.ts';
import { assertSucceeded, completeKyc, createCustomer, uniqueReference, type CustomerData } from '../../helpers/assertions.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { createPage, payPage, testCards } from '../../helpers/payment-pages.ts';
import { createPage as createPayoutPage } from '../../helpers/payout-pages.ts';
import { WebhookReceiver } from '../../helpers/webhook-receiver.ts';
import { createEndpoint, emitEvent } from '../../helpers/webhooks.ts';

const hour = 60 * 60 * 1000;
const day = 24 * hour;

/**
 * Retention with a moved clock, on the real database: for each category, a row exactly at its
 * cutoff stays and a row one millisecond past it goes — exactly those, reported as due beforehand
 * by `status()`. Money records (payments, ledger entries) and events stay. A customer with recent
 * activity keeps their KYC details.
 */
describe('retention purges exactly what is due (moved clock)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let receiver: WebhookReceiver;

  before(async () => {
    receiver = await WebhookReceiver.start();
    context = await createTestContext();
    merchant = await context.createMerchant();
    // KYC details after 30 days (an operator override), so that every test's flush clears them too.
    const settings = await context.admin('POST', '/admin/v1/retention', { kycDetailsDays: 30 });
    assert.equal(settings.statusCode, 200, settings.body);
  });
  after(async () => {
    await context.close();
    await receiver.close();
  });

  const retention = () => context.platform.services.retention;

  async function statusOf(category: RetentionCategory): Promise<RetentionStatusEntry> {
    const entry = (await retention().status()).find((candidate) => candidate.category === category);
    assert.ok(entry, category);
    return entry;
  }

  async function purgedIn(category: RetentionCategory): Promise<number> {
    const result = (await retention().purgeNow()).find((candidate) => candidate.category === category);
    assert.ok(result, category);
    return result.purged;
  }

  /** Moves far past every window and purges, so each test starts with nothing due. */
  async function flush(): Promise<void> {
    context.clock.advance(40 * day);
    await retention().purgeNow();
    for (const entry of await retention().status()) {
      assert.equal(entry.due, 0, `${entry.category}: nothing due after a flush`);
    }
  }

  async function countRows(table: string): Promise<number> {
    const [row] = await queryRows<{ count: number | string }>(context.database.db, sql`select count(*) as count from ${sql.identifier(table)}`);
    return Number(row?.count ?? 0);
  }

  test('idempotency records: kept at least the 24 h replay window; one past it goes, one at it stays and still replays', async () => {
    await flush();
    const post = (key: string) =>
      context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, headers: { 'idempotency-key': key }, body: { referenceId: `idem-${key}`, signupAt: 1_700_000_000_000 } });
    assert.equal((await post('old-key')).statusCode, 200);
    const oldAt = context.clock.now().getTime();
    context.clock.advance(1);
    const fresh = await post('fresh-key');
    assert.equal(fresh.statusCode, 200);

    context.clock.set(oldAt + 24 * hour);
    assert.equal((await statusOf('idempotencyRecords')).due, 0, 'exactly 24 h old: still inside the window');
    assert.equal(await purgedIn('idempotencyRecords'), 0);

    context.clock.set(oldAt + 24 * hour + 1);
    const status = await statusOf('idempotencyRecords');
    assert.equal(status.value, 24);
    assert.equal(status.unit, 'hours');
    assert.equal(status.cutoff.getTime(), oldAt + 1);
    assert.equal(status.due, 1);
    assert.equal(await purgedIn('idempotencyRecords'), 1);
    const left = await context.database.db.select({ key: idempotencyKeys.key }).from(idempotencyKeys).where(inArray(idempotencyKeys.key, ['old-key', 'fresh-key']));
    assert.deepEqual(left.map((row) => row.key), ['fresh-key']);

    const replay = await post('fresh-key');
    assert.equal(replay.headers['idempotent-replayed'], 'true', 'the key still inside its window replays');
    assert.equal(replay.body, fresh.body);
    assert.equal(await purgedIn('idempotencyRecords'), 0, 'a second run finds nothing');
  });

  test('e-mail bodies: sealed content of a finished e-mail past 30 days is emptied, the record stays; a queued one keeps its content', async () => {
    await flush();
    const queue = async (label: string) => {
      const content = renderEmail({ subject: `Hello ${label}`, paragraphs: [`Hello ${label}, your code is 123456.`] });
      return context.database.transaction((tx) =>
        enqueueEmail(tx, context.clock.now(), context.keyRing, { merchantId: merchant.id, livemode: false, to: `${label}@example.com`, template: 'payout_page_verification_code', relatedId: `rel_${label}`, ...content }),
      );
    };
    const oldId = await queue('old');
    const stuckId = await queue('stuck');
    const oldAt = context.clock.now().getTime();
    context.clock.advance(1);
    const freshId = await queue('fresh');
    await context.drainJobs();
    // An e-mail still in the outbox (its sending not finished) needs its content whatever its age.
    await context.database.db.update(emails).set({ status: 'queued' }).where(eq(emails.id, stuckId));

    context.clock.set(oldAt + 30 * day);
    assert.equal((await statusOf('emailBodies')).due, 0);
    context.clock.set(oldAt + 30 * day + 1);
    assert.equal((await statusOf('emailBodies')).due, 1);
    assert.equal(await purgedIn('emailBodies'), 1);

    const rows = await context.database.db.select().from(emails).where(inArray(emails.id, [oldId, stuckId, freshId]));
    const byId = new Map(rows.map((row) => [row.id, row]));
    const old = byId.get(oldId);
    assert.ok(old);
    assert.deepEqual([old.toCiphertext, old.subject, old.text, old.html], ['', '', '', ''], 'recipient, subject and bodies are gone');
    assert.equal(old.contentPurgedAt?.getTime(), oldAt + 30 * day + 1);
    assert.equal(old.status, 'stored', 'the record that it went out stays');
    assert.equal(old.template, 'payout_page_verification_code');
    assert.equal(old.relatedId, 'rel_old');
    for (const id of [stuckId, freshId]) {
      const row = byId.get(id);
      assert.ok(row && row.contentPurgedAt === null && row.text !== '' && row.toCiphertext !== '', `${id} keeps its content`);
    }
    const listed = await context.admin('GET', `/admin/v1/emails?relatedId=rel_old`);
    assert.equal(listed.statusCode, 200, listed.body);
    assert.doesNotMatch(listed.body, /old@example\.com|123456/);
    assert.equal(await purgedIn('emailBodies'), 0, 'a second run finds nothing');

    // A purged e-mail holds nothing to seal: key rotation leaves it empty and the key count skips it.
    await reencryptAll(context.platform);
    const [afterRotation] = await context.database.db.select().from(emails).where(eq(emails.id, oldId));
    assert.deepEqual([afterRotation?.toCiphertext, afterRotation?.subject, afterRotation?.text, afterRotation?.html], ['', '', '', '']);
    assert.equal((await keyRingStatus(context.platform)).stale, 0, 'no value counted as plaintext');
  });

  test('webhook delivery logs: attempts past 30 days go, the delivery and its event stay', async () => {
    await flush();
    const endpoint = await createEndpoint(context, merchant, { url: `http://127.0.0.1:${receiver.port}/hook`, enabledEvents: ['*'] });
    const oldEvent = await emitEvent(context, merchant);
    await context.drainJobs();
    context.clock.advance(1);
    const freshEvent = await emitEvent(context, merchant);
    await context.drainJobs();
    const attempts = await queryRows<{ event_id: string; delivery_id: string; attempted_at: Date | string }>(
      context.database.db,
      sql`select d.event_id, a.delivery_id, a.attempted_at from webhook_delivery_attempts a join webhook_deliveries d on d.id = a.delivery_id where d.endpoint_id = ${endpoint.id} order by a.attempted_at`,
    );
    assert.deepEqual(attempts.map((attempt) => attempt.event_id), [oldEvent.id, freshEvent.id]);
    const oldAt = new Date(attempts[0]?.attempted_at ?? 0).getTime();
    assert.equal(new Date(attempts[1]?.attempted_at ?? 0).getTime(), oldAt + 1);

    context.clock.set(oldAt + 30 * day);
    assert.equal((await statusOf('webhookDeliveryLogs')).due, 0);
    context.clock.set(oldAt + 30 * day + 1);
    assert.equal((await statusOf('webhookDeliveryLogs')).due, 1);
    const eventsBefore = await countRows('events');
    const deliveriesBefore = await countRows('webhook_deliveries');
    assert.equal(await purgedIn('webhookDeliveryLogs'), 1);

    const left = await context.database.db
      .select({ deliveryId: webhookDeliveryAttempts.deliveryId })
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, attempts.map((attempt) => attempt.delivery_id)));
    assert.deepEqual(left.map((row) => row.deliveryId), [attempts[1]?.delivery_id]);
    assert.equal(await countRows('events'), eventsBefore, 'events stay');
    assert.equal(await countRows('webhook_deliveries'), deliveriesBefore, 'deliveries stay');
  });

  test('KYC details: an inactive customer loses identity details (e-mail and KYC outcome stay); recent activity keeps them; money records and events stay', async () => {
    await flush();

    const create = (label: string) => createCustomer(context, merchant.apiKey, { referenceId: uniqueReference(label), email: `${label}@example.com`, ...completeKyc });
    const inactive = await create('inactive');
    const updatedLater = await create('updated');
    const paidLater = await create('paid');
    // An open payout page needs its customer's details whatever the dates.
    const withOpenPayout = await create('open-payout');
    await createPayoutPage(context, merchant, { customer: { referenceId: withOpenPayout.referenceId, email: 'open-payout@example.com' } });
    // The sandbox KYC provider decides after 2 s.
    for (let round = 0; round < 3; round += 1) {
      context.clock.advance(2_500);
      await context.drainJobs();
    }
    assert.equal((await context.database.db.select().from(customers).where(eq(customers.id, inactive.id)))[0]?.kycStatus, 'APPROVED');
    // The inactive customer pays once: a money record that must outlive its KYC details.
    const page = await createPage(context, merchant, { customer: { referenceId: inactive.referenceId, email: 'inactive@example.com' } });
    assert.equal((await payPage(context, merchant, page.id, testCards.visaCredit)).statusCode, 200);
    await context.drainJobs();

    context.clock.advance(10 * day);
    const update = await context.request({ method: 'POST', url: `/v1/customers/${updatedLater.id}?livemode=false`, apiKey: merchant.apiKey, body: { address: { line2: 'Suite 6' } } });
    assert.equal(update.statusCode, 200, update.body);
    await createPage(context, merchant, { customer: { referenceId: paidLater.referenceId, email: 'paid@example.com' } });

    // The inactive customer's last activity: the newest of its record, its verification and its payment page.
    const [activity] = await queryRows<{ last: Date | string }>(
      context.database.db,
      sql`select greatest(
            (select updated_at from customers where id = ${inactive.id}),
            (select max(greatest(created_at, coalesce(decided_at, created_at))) from kyc_verifications where customer_id = ${inactive.id}),
            (select max(updated_at) from payment_pages where customer_id = ${inactive.id})) as last`,
    );
    const lastActivity = new Date(activity?.last ?? 0).getTime();
    assert.ok(lastActivity > 0);

    context.clock.set(lastActivity + 30 * day);
    assert.equal((await statusOf('kycDetails')).due, 0, 'exactly 30 days: still kept');
    context.clock.set(lastActivity + 30 * day + 1);
    const status = await statusOf('kycDetails');
    assert.equal(status.source, 'override');
    assert.equal(status.value, 30);
    assert.equal(status.due, 1);

    const moneyBefore = { payments: await countRows('payments'), ledgerEntries: await countRows('ledger_entries'), events: await countRows('events') };
    assert.equal(await purgedIn('kycDetails'), 1);
    assert.deepEqual({ payments: await countRows('payments'), ledgerEntries: await countRows('ledger_entries'), events: await countRows('events') }, moneyBefore);
    await assertLedgerInvariants(context.database);

    const read = async (customer: CustomerData) =>
      assertSucceeded<CustomerData>(await context.request({ method: 'GET', url: `/v1/customers/${customer.id}?livemode=false`, apiKey: merchant.apiKey }));
    const purged = await read(inactive);
    assert.equal(purged.kycStatus, 'APPROVED', 'the KYC outcome stays');
    assert.ok(purged.email, 'the e-mail stays');
    for (const field of ['firstName', 'middleName', 'lastName', 'dateOfBirth', 'phoneNumber', 'address'] as const) {
      assert.equal(purged[field], undefined, `${field} is gone`);
    }
    for (const kept of [updatedLater, paidLater, withOpenPayout]) {
      const customer = await read(kept);
      assert.ok(customer.firstName && customer.dateOfBirth && customer.address, `${kept.referenceId} keeps its details (recent activity, or an open payout page)`);
    }
    // The KYC provider is asked to delete its applicant of the purged customer only.
    await context.drainJobs();
    const verificationsOf = (customerId: string) => context.database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId));
    const purgedVerifications = await verificationsOf(inactive.id);
    assert.ok(purgedVerifications.length > 0 && purgedVerifications.every((verification) => verification.providerApplicantId !== null && verification.applicantDeletedAt !== null), 'applicant deletion recorded');
    for (const verification of purgedVerifications) {
      assert.equal((await context.database.db.select().from(sandboxProviderRecords).where(eq(sandboxProviderRecords.reference, verification.providerApplicantId ?? ''))).length, 0, 'the provider no longer holds the applicant');
    }
    assert.ok((await verificationsOf(updatedLater.id)).every((verification) => verification.applicantDeletedAt === null), 'an active customer keeps its applicant');
    const [row] = await context.database.db.select({ purgedAt: customers.kycDetailsPurgedAt }).from(customers).where(eq(customers.id, inactive.id));
    assert.equal(row?.purgedAt?.getTime(), lastActivity + 30 * day + 1);
    assert.equal(await purgedIn('kycDetails'), 0, 'a second run finds nothing');
  });

  test('the hourly job purges what is due and schedules its next run; concurrent purges purge each row once', async () => {
    await flush();
    for (const label of ['a', 'b', 'c']) {
      await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, headers: { 'idempotency-key': `job-${label}` }, body: { referenceId: `job-${label}`, signupAt: 1_700_000_000_000 } });
    }
    context.clock.advance(25 * hour);
    assert.equal((await statusOf('idempotencyRecords')).due, 3);
    const [first, second] = await Promise.all([retention().purgeNow(), retention().purgeNow()]);
    const purged = (results: typeof first) => results.find((result) => result.category === 'idempotencyRecords')?.purged ?? 0;
    assert.equal(purged(first) + purged(second), 3, 'each record is purged by one run only');

    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, headers: { 'idempotency-key': 'job-d' }, body: { referenceId: 'job-d', signupAt: 1_700_000_000_000 } });
    await context.database.transaction((tx) => scheduleRetention(tx, context.clock.now()));
    context.clock.advance(25 * hour);
    await context.drainJobs();
    assert.equal((await statusOf('idempotencyRecords')).due, 0, 'the job purged it');
    const pending = await context.database.db.select({ runAt: jobs.runAt }).from(jobs).where(sql`${jobs.queue} = ${retentionQueue} and ${jobs.status} = 'pending'`);
    assert.equal(pending.length, 1, 'the next run is scheduled');
    assert.ok((pending[0]?.runAt.getTime() ?? 0) > context.clock.now().getTime());
  });
});
