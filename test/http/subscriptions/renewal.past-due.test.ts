import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import {
  cancelSubscription,
  dayMs,
  entitlementEvents,
  entitlementsOf,
  listEntitlements,
  readSubscription,
  renewNow,
  renewalPayments,
  runUntil,
  startSubscription,
  type SubscriptionBody,
  openSubscriptionSuite,
  utc,
} from '../../helpers/subscriptions.ts';

/**
 * The sandbox decides renewals by the saved card's test behaviour: a card that expires at the end of
 * the month it was used in pays the first period and is declined (`expired_card`) at every renewal.
 */
describe('renewal declined: PAST_DUE, retries after 1, 3 and 5 days, then CANCELED', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const expiringCard = { expMonth: 3, expYear: 2024 };

  before(async () => ({ context, merchant } = await openSubscriptionSuite('2024-03-15T09:00:00')));
  after(async () => context.close());

  test('every attempt is declined: no entitlement, PAST_DUE with the retry schedule, CANCELED after the last retry', async () => {
    context.clock.set(utc('2024-03-15T09:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH', card: expiringCard });
    const periodEnd = utc('2024-04-15T09:00:00');
    assert.equal(subscription.currentPeriodEnd, periodEnd);

    await runUntil(context, periodEnd);
    let current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.status, 'PAST_DUE');
    assert.equal(current.failedRenewalAttempts, 1);
    assert.equal(current.lastDeclineReason, 'expired_card');
    assert.equal(current.nextRenewalAttemptAt, periodEnd + 1 * dayMs);
    assert.equal(current.currentPeriodEnd, periodEnd, 'the period does not move without payment');
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1, 'no entitlement for an unpaid period');
    assert.equal((await listEntitlements(context, merchant, { subscriptionId: subscription.id, isActive: true })).entitlements.length, 0, 'not entitled while PAST_DUE');

    // Nothing runs before the retry time.
    await runUntil(context, periodEnd + 1 * dayMs - 1);
    assert.equal((await renewalPayments(context, subscription)).length, 1);

    await runUntil(context, periodEnd + 1 * dayMs);
    current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.status, 'PAST_DUE');
    assert.equal(current.failedRenewalAttempts, 2);
    assert.equal(current.nextRenewalAttemptAt, periodEnd + 3 * dayMs);

    await runUntil(context, periodEnd + 3 * dayMs);
    current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.failedRenewalAttempts, 3);
    assert.equal(current.nextRenewalAttemptAt, periodEnd + 5 * dayMs);

    await runUntil(context, periodEnd + 5 * dayMs);
    current = await readSubscription(context, merchant, subscription.id);
    assert.equal(current.status, 'CANCELED');
    assert.equal(current.failedRenewalAttempts, 4);
    assert.equal(current.endedAt, periodEnd + 5 * dayMs);
    assert.equal('nextRenewalAttemptAt' in current, false);
    assert.equal(current.lastDeclineReason, 'expired_card');

    const payments = await renewalPayments(context, subscription);
    assert.equal(payments.length, 4, 'one card payment per attempt');
    assert.equal(new Set(payments.map((payment) => payment.id)).size, 4, 'each attempt has its own payment id');
    assert.ok(payments.every((payment) => payment.status === 'DECLINED' && payment.declineReason === 'expired_card'));
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1);
    assert.equal((await entitlementEvents(context, subscription.id)).length, 1);

    await runUntil(context, utc('2024-07-01T00:00:00'));
    assert.equal((await renewalPayments(context, subscription)).length, 4, 'nothing after CANCELED');
  });

  test('canceling a PAST_DUE subscription ends it at once and stops the retries', async () => {
    context.clock.set(utc('2024-03-20T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'WEEK', card: expiringCard });
    // WEEK from Mar 20 → Mar 27, still inside the card's month: the first renewal succeeds.
    await runUntil(context, utc('2024-03-27T00:00:00'));
    assert.equal((await readSubscription(context, merchant, subscription.id)).status, 'ACTIVE');
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 2);
    // Apr 3: the card has expired.
    await runUntil(context, utc('2024-04-03T00:00:00'));
    assert.equal((await readSubscription(context, merchant, subscription.id)).status, 'PAST_DUE');

    context.clock.set(utc('2024-04-03T06:00:00'));
    const response = await cancelSubscription(context, merchant, subscription.id);
    assert.equal(response.statusCode, 200, response.body);
    const canceled = json<{ data: SubscriptionBody }>(response).data;
    assert.equal(canceled.status, 'CANCELED');
    assert.equal(canceled.endedAt, utc('2024-04-03T06:00:00'));
    assert.equal(canceled.canceledAt, utc('2024-04-03T06:00:00'));

    await runUntil(context, utc('2024-04-20T00:00:00'));
    const payments = await renewalPayments(context, subscription);
    assert.deepEqual(
      payments.map((payment) => payment.status),
      ['SUCCEEDED', 'DECLINED'],
      'no retry after the cancel',
    );
  });

  test('sandbox renew of a PAST_DUE subscription retries at once; the scheduled retries still happen exactly once each', async () => {
    context.clock.set(utc('2024-03-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH', card: expiringCard });
    const periodEnd = utc('2024-04-01T00:00:00');
    await runUntil(context, periodEnd);
    assert.equal((await readSubscription(context, merchant, subscription.id)).failedRenewalAttempts, 1);

    context.clock.set(periodEnd + 2 * 60 * 60 * 1000);
    const response = await renewNow(context, merchant, subscription.id);
    assert.equal(response.statusCode, 200, response.body);
    const retried = json<{ data: SubscriptionBody }>(response).data;
    assert.equal(retried.status, 'PAST_DUE');
    assert.equal(retried.failedRenewalAttempts, 2);
    assert.equal(retried.currentPeriodEnd, periodEnd, 'a PAST_DUE period is not shortened');
    assert.equal(retried.nextRenewalAttemptAt, periodEnd + 3 * dayMs);

    // The retry scheduled at +1 day waits for the new retry time instead of charging again.
    await runUntil(context, periodEnd + 1 * dayMs);
    assert.equal((await renewalPayments(context, subscription)).length, 2);
    await runUntil(context, periodEnd + 3 * dayMs);
    assert.equal((await renewalPayments(context, subscription)).length, 3);
    assert.equal((await readSubscription(context, merchant, subscription.id)).failedRenewalAttempts, 3);
    await runUntil(context, periodEnd + 5 * dayMs);
    const ended = await readSubscription(context, merchant, subscription.id);
    assert.equal(ended.status, 'CANCELED');
    assert.equal((await renewalPayments(context, subscription)).length, 4);
  });
});
