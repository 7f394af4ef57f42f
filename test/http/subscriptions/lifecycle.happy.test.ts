import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { cancelSubscription, entitlementEvents, entitlementFields, entitlementsOf, listEntitlements, readSubscription, renewNow, renewalPayments, runUntil, startSubscription, type SubscriptionBody, openSubscriptionSuite, utc } from '../../helpers/subscriptions.ts';


describe('subscriptions: start, renew, cancel, sandbox renew', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openSubscriptionSuite('2024-01-31T10:00:00')));
  after(async () => context.close());

  test('a paid page with `subscription` starts an ACTIVE subscription: first period, invoice, one entitlement, ENTITLEMENT_CREATED', async () => {
    context.clock.set(utc('2024-01-31T10:00:00'));
    const { page, subscription } = await startSubscription(context, merchant, { interval: 'MONTH', productId: 'prod_gold', amount: 4200, currency: 'EUR' });
    const paidAt = utc('2024-01-31T10:00:00');
    assert.equal(page.status, 'PAID');
    assert.equal(page.paidAt, paidAt);
    assert.equal(subscription.status, 'ACTIVE');
    assert.equal(subscription.merchantId, merchant.id);
    assert.equal(subscription.livemode, false);
    assert.equal(subscription.customerId, page.customer.id);
    assert.equal(subscription.pageId, page.id);
    assert.equal(subscription.productId, 'prod_gold');
    assert.equal(subscription.interval, 'MONTH');
    assert.equal(subscription.intervalCount, 1);
    assert.equal(subscription.amount, 4200);
    assert.equal(subscription.currency, 'EUR');
    assert.equal(subscription.currentPeriodStart, paidAt);
    // A month from Jan 31 (2024, a leap year) is Feb 29.
    assert.equal(subscription.currentPeriodEnd, utc('2024-02-29T10:00:00'));
    assert.equal(subscription.cancelAtPeriodEnd, false);
    assert.equal(subscription.failedRenewalAttempts, 0);
    for (const absent of ['canceledAt', 'endedAt', 'nextRenewalAttemptAt', 'lastDeclineReason']) {
      assert.equal(absent in subscription, false, `${absent} is absent on a new subscription`);
    }
    const invoice = subscription.latestInvoice;
    assert.ok(invoice);
    assert.match(invoice.id, /^inv_[0-9a-z]{36}$/);
    assert.deepEqual({ ...invoice, id: '', createdAt: 0 }, { id: '', status: 'PAID', amount: 4200, currency: 'EUR', paymentId: String(page.paymentId), periodStart: paidAt, periodEnd: utc('2024-02-29T10:00:00'), paidAt, createdAt: 0 });

    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    assert.equal(entitlements.length, 1);
    const [entitlement] = entitlements;
    assert.ok(entitlement);
    assert.match(entitlement.id, /^ent_[0-9a-z]{36}$/);
    assert.deepEqual(
      Object.keys(entitlement).sort(),
      entitlementFields.filter((field) => field !== 'updatedAt').sort(),
      'exactly the interface fields (updatedAt only once changed)',
    );
    assert.deepEqual(entitlement, {
      id: entitlement.id,
      createdAt: paidAt,
      subscriptionId: subscription.id,
      productId: 'prod_gold',
      invoiceId: invoice.id,
      livemode: false,
      customerId: page.customer.id,
      merchantId: merchant.id,
      startPeriod: paidAt,
      endPeriod: utc('2024-02-29T10:00:00'),
      idempotencyKey: `${subscription.id}-${paidAt}-${utc('2024-02-29T10:00:00')}`,
    });
    assert.deepEqual(await entitlementEvents(context, subscription.id), [entitlement], 'ENTITLEMENT_CREATED carries the entitlement');

    const [job] = await queryRows<{ runAt: Date; status: string }>(context.database.db, sql`select run_at as "runAt", status from jobs where dedupe_key = ${`renew:${subscription.id}:${utc('2024-02-29T10:00:00')}`}`);
    assert.ok(job, 'the renewal is scheduled at the period end');
    assert.equal(new Date(job.runAt).getTime(), utc('2024-02-29T10:00:00'));
    assert.equal(job.status, 'pending');

    const readPage = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { subscriptionId: string } }>(readPage).data.subscriptionId, subscription.id);
  });

  test('renews at each period end by charging the saved card; the anchor day comes back (Jan 31 → Feb 29 → Mar 31 → Apr 30)', async () => {
    context.clock.set(utc('2024-01-31T10:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH', amount: 999 });

    // Nothing happens before the period ends.
    await runUntil(context, utc('2024-02-29T09:59:59'));
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1);

    await runUntil(context, utc('2024-02-29T10:00:00'));
    let current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.status, 'ACTIVE');
    assert.equal(current.currentPeriodStart, utc('2024-02-29T10:00:00'));
    assert.equal(current.currentPeriodEnd, utc('2024-03-31T10:00:00'));

    await runUntil(context, utc('2024-03-31T10:00:00'));
    current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.currentPeriodEnd, utc('2024-04-30T10:00:00'));

    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    assert.deepEqual(
      entitlements.map((entitlement) => [entitlement.startPeriod, entitlement.endPeriod]),
      [
        [utc('2024-01-31T10:00:00'), utc('2024-02-29T10:00:00')],
        [utc('2024-02-29T10:00:00'), utc('2024-03-31T10:00:00')],
        [utc('2024-03-31T10:00:00'), utc('2024-04-30T10:00:00')],
      ],
    );
    for (const entitlement of entitlements) {
      assert.equal(entitlement.idempotencyKey, `${subscription.id}-${entitlement.startPeriod}-${entitlement.endPeriod}`);
    }
    assert.equal(new Set(entitlements.map((entitlement) => entitlement.invoiceId)).size, 3, 'one invoice per paid period');

    const payments = await renewalPayments(context, subscription);
    assert.equal(payments.length, 2, 'one card payment per renewal');
    for (const payment of payments) {
      assert.match(payment.id, /^pay_[0-9a-z]{36}$/);
      assert.equal(payment.status, 'SUCCEEDED');
      assert.equal(payment.amount, 999);
    }
    assert.equal(current.latestInvoice?.paymentId, payments[1]?.id);
    assert.equal(current.latestInvoice?.periodStart, utc('2024-03-31T10:00:00'));

    const events = await entitlementEvents(context, subscription.id);
    assert.deepEqual(events, entitlements, 'one ENTITLEMENT_CREATED per entitlement, with the entitlement as data');

    const active = await listEntitlements(context, merchant, { subscriptionId: subscription.id, isActive: true });
    assert.deepEqual(
      active.entitlements.map((entitlement) => entitlement.startPeriod),
      [utc('2024-03-31T10:00:00')],
    );

    // Draining again changes nothing: every period was renewed exactly once.
    await context.drainJobs();
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 3);
  });

  test('WEEK × 2 and DAY intervals renew on exact multiples of 24 h', async () => {
    context.clock.set(utc('2024-02-27T00:00:00'));
    const weekly = (await startSubscription(context, merchant, { interval: 'WEEK', intervalCount: 2 })).subscription;
    const daily = (await startSubscription(context, merchant, { interval: 'DAY' })).subscription;
    assert.equal(weekly.currentPeriodEnd, utc('2024-03-12T00:00:00'));
    assert.equal(daily.currentPeriodEnd, utc('2024-02-28T00:00:00'));
    for (const day of ['2024-02-28', '2024-02-29', '2024-03-01']) {
      await runUntil(context, utc(`${day}T00:00:00`));
    }
    assert.deepEqual(
      (await entitlementsOf(context, merchant, daily.id)).map((entitlement) => entitlement.endPeriod),
      [utc('2024-02-28T00:00:00'), utc('2024-02-29T00:00:00'), utc('2024-03-01T00:00:00'), utc('2024-03-02T00:00:00')],
    );
    assert.equal((await entitlementsOf(context, merchant, weekly.id)).length, 1);
    // Keep them from renewing through the later tests' clock moves.
    for (const subscription of [weekly, daily]) {
      assert.equal((await cancelSubscription(context, merchant, subscription.id)).statusCode, 200);
    }
  });

  test('cancel: stays ACTIVE until the period end, is not renewed, then becomes CANCELED', async () => {
    context.clock.set(utc('2024-05-10T12:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    context.clock.set(utc('2024-05-20T08:00:00'));
    const canceled = await cancelSubscription(context, merchant, subscription.id);
    assert.equal(canceled.statusCode, 200, canceled.body);
    const body = json<{ status: string; data: SubscriptionBody }>(canceled);
    assert.equal(body.status, 'SUCCEEDED');
    assert.equal(body.data.status, 'ACTIVE');
    assert.equal(body.data.cancelAtPeriodEnd, true);
    assert.equal(body.data.canceledAt, utc('2024-05-20T08:00:00'));
    assert.equal(body.data.currentPeriodEnd, utc('2024-06-10T12:00:00'));
    assert.equal('endedAt' in body.data, false);

    // Canceling again while it is pending answers the same subscription.
    context.clock.set(utc('2024-05-21T08:00:00'));
    const again = await cancelSubscription(context, merchant, subscription.id);
    assert.equal(again.statusCode, 200);
    assert.equal(json<{ data: SubscriptionBody }>(again).data.canceledAt, utc('2024-05-20T08:00:00'));

    // Still entitled until the period ends.
    const activeBefore = await listEntitlements(context, merchant, { subscriptionId: subscription.id, isActive: true });
    assert.equal(activeBefore.entitlements.length, 1);

    await runUntil(context, utc('2024-06-10T12:00:00'));
    const ended = await readSubscription(context, merchant, subscription.id);
    assert.equal(ended.status, 'CANCELED');
    assert.equal(ended.endedAt, utc('2024-06-10T12:00:00'));
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1, 'no renewal after a cancel');
    assert.equal((await renewalPayments(context, subscription)).length, 0, 'the card is not charged');
    assert.equal((await listEntitlements(context, merchant, { subscriptionId: subscription.id, isActive: true })).entitlements.length, 0);

    await runUntil(context, utc('2024-08-01T00:00:00'));
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1);

    const canceledAgain = await cancelSubscription(context, merchant, subscription.id);
    assert.equal(canceledAgain.statusCode, 409);
    assert.equal(json<ErrorBody>(canceledAgain).errorCode, 'INVALID_STATE');
  });

  test('sandbox renew: ends the current period now (its entitlement with it) and renews at once, through the same code', async () => {
    context.clock.set(utc('2024-09-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const originalEnd = subscription.currentPeriodEnd;
    const renewedAt = utc('2024-09-11T15:30:00');
    context.clock.set(renewedAt);

    const response = await renewNow(context, merchant, subscription.id);
    assert.equal(response.statusCode, 200, response.body);
    const renewed = json<{ status: string; data: SubscriptionBody }>(response);
    assert.equal(renewed.status, 'SUCCEEDED');
    assert.equal(renewed.data.status, 'ACTIVE');
    assert.equal(renewed.data.currentPeriodStart, renewedAt);
    assert.equal(renewed.data.currentPeriodEnd, utc('2024-10-11T15:30:00'));

    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    assert.equal(entitlements.length, 2);
    const [first, second] = entitlements;
    assert.ok(first && second);
    assert.equal(first.startPeriod, utc('2024-09-01T00:00:00'));
    assert.equal(first.endPeriod, renewedAt, 'the ended period is shortened to now');
    assert.equal(first.updatedAt, renewedAt);
    assert.equal(first.idempotencyKey, `${subscription.id}-${first.startPeriod}-${renewedAt}`);
    assert.equal(second.startPeriod, renewedAt);
    assert.equal(second.endPeriod, utc('2024-10-11T15:30:00'));
    assert.equal(second.idempotencyKey, `${subscription.id}-${renewedAt}-${second.endPeriod}`);
    assert.equal('updatedAt' in second, false);
    const active = await listEntitlements(context, merchant, { subscriptionId: subscription.id, isActive: true });
    assert.deepEqual(
      active.entitlements.map((entitlement) => entitlement.id),
      [second.id],
      'exactly one entitlement is active after the renewal',
    );
    assert.equal((await renewalPayments(context, subscription)).length, 1);
    assert.equal((await entitlementEvents(context, subscription.id)).length, 2);

    // The renewal scheduled for the original period end finds the period moved on and does nothing.
    await runUntil(context, originalEnd);
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 2);
    assert.equal((await renewalPayments(context, subscription)).length, 1);

    // Renewing again at once works the same way.
    context.clock.set(utc('2024-09-12T00:00:00'));
    const twice = await renewNow(context, merchant, subscription.id);
    assert.equal(twice.statusCode, 200);
    assert.equal(json<{ data: SubscriptionBody }>(twice).data.currentPeriodStart, utc('2024-09-12T00:00:00'));
    const all = await entitlementsOf(context, merchant, subscription.id);
    assert.equal(all.length, 3);
    assert.deepEqual(
      all.map((entitlement) => [entitlement.startPeriod, entitlement.endPeriod]),
      [
        [utc('2024-09-01T00:00:00'), renewedAt],
        [renewedAt, utc('2024-09-12T00:00:00')],
        [utc('2024-09-12T00:00:00'), utc('2024-10-12T00:00:00')],
      ],
      'periods stay contiguous',
    );
  });

  test('sandbox renew of a subscription canceled at period end ends it now without charging', async () => {
    context.clock.set(utc('2024-11-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'YEAR' });
    assert.equal(subscription.currentPeriodEnd, utc('2025-11-01T00:00:00'));
    assert.equal((await cancelSubscription(context, merchant, subscription.id)).statusCode, 200);
    context.clock.set(utc('2024-11-05T00:00:00'));
    const response = await renewNow(context, merchant, subscription.id);
    assert.equal(response.statusCode, 200, response.body);
    const ended = json<{ data: SubscriptionBody }>(response).data;
    assert.equal(ended.status, 'CANCELED');
    assert.equal(ended.endedAt, utc('2024-11-05T00:00:00'));
    assert.equal((await renewalPayments(context, subscription)).length, 0);
    const renewAgain = await renewNow(context, merchant, subscription.id);
    assert.equal(renewAgain.statusCode, 409);
    assert.equal(json<ErrorBody>(renewAgain).errorCode, 'INVALID_STATE');
  });

  test('a page without `subscription` starts none', async () => {
    context.clock.set(utc('2025-01-01T00:00:00'));
    const rows = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from subscriptions`);
    const before = rows[0]?.count ?? 0;
    const page = await context.request({ method: 'POST', url: '/v1/payment_pages?livemode=false', apiKey: merchant.apiKey, body: { amount: 100, currency: 'USD', clientReferenceId: `plain-${Date.now()}`, customer: { referenceId: 'plain', email: 'plain@example.com' } } });
    const pageId = json<{ data: { id: string } }>(page).data.id;
    const paid = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${pageId}/pay?livemode=false`, apiKey: merchant.apiKey, body: { cardNumber: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', cardholderName: 'A B' } });
    assert.equal(paid.statusCode, 200, paid.body);
    assert.equal('subscriptionId' in json<{ data: Record<string, unknown> }>(paid).data, false);
    const after = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from subscriptions`);
    assert.equal(after[0]?.count, before);
  });
});
