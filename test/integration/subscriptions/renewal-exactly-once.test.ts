import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { isUniqueViolation } from '../../../src/db/errors.ts';
import { Worker } from '../../../src/jobs/worker.ts';
import type { RenewalOutcome } from '../../../src/modules/subscriptions/service.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { dayMs, entitlementEvents, entitlementsOf, readSubscription, renewNow, renewalPayments, startSubscription } from '../../helpers/subscriptions.ts';

const utc = (iso: string) => new Date(`${iso}Z`).getTime();

/** The sandbox processor's own record of charges made under one payment id (what the "bank" saw). */
async function processorCharges(context: TestContext, paymentId: string): Promise<number> {
  const [row] = await queryRows<{ count: number }>(
    context.database.db,
    sql`select count(*)::int as count from sandbox_provider_records where provider = 'sandbox-card' and reference = ${paymentId}`,
  );
  return row?.count ?? 0;
}

async function invoicesOf(context: TestContext, subscriptionId: string): Promise<Array<{ periodNumber: number; paymentId: string }>> {
  return queryRows(context.database.db, sql`select period_number as "periodNumber", payment_id as "paymentId" from invoices where subscription_id = ${subscriptionId} order by period_number`);
}

describe('renewal runs exactly once per period (several workers, parallel runs, crashes)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext({ clock: new TestClock(utc('2025-01-10T00:00:00')) });
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  function worker(): Worker {
    return new Worker({ database: context.database, registry: context.platform.jobs, clock: context.clock, logger: context.platform.logger, concurrency: 4, pollIntervalMs: 60_000 });
  }

  function renewDirectly(subscriptionId: string, periodEnd: number): Promise<RenewalOutcome> {
    return context.platform.services.subscriptions.renew(subscriptionId, new Date(periodEnd), { transaction: (work) => context.database.transaction((tx) => work(tx)), force: false });
  }

  test('two workers, four direct runs and the sandbox helper racing: every period paid once, periods contiguous', async () => {
    context.clock.set(utc('2025-01-10T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const periodEnd = subscription.currentPeriodEnd;
    context.clock.set(periodEnd);

    const [first, second] = [worker(), worker()];
    assert.ok(first && second);
    const results = await Promise.all([first.drain(), second.drain(), ...Array.from({ length: 4 }, () => renewDirectly(subscription.id, periodEnd)), renewNow(context, merchant, subscription.id)]);
    const outcomes = results.slice(2, 6) as RenewalOutcome[];
    assert.ok(outcomes.filter((outcome) => outcome.kind === 'renewed').length <= 1, JSON.stringify(outcomes));

    // The due period is renewed once, by whichever runner wins. The helper, if it runs after that
    // renewal, legitimately ends the new period and renews once more; nothing is ever paid twice.
    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    const payments = await renewalPayments(context, subscription);
    const invoices = await invoicesOf(context, subscription.id);
    assert.ok(invoices.length === 2 || invoices.length === 3, `${invoices.length} invoices`);
    assert.equal(payments.length, invoices.length - 1, 'one renewal payment per renewed period');
    assert.deepEqual(
      invoices.slice(1).map((invoice) => invoice.paymentId),
      payments.map((payment) => payment.id),
    );
    assert.equal(entitlements.length, invoices.length);
    assert.equal(entitlements[1]?.startPeriod, periodEnd);
    assert.deepEqual(
      invoices.map((invoice) => invoice.periodNumber),
      Array.from({ length: invoices.length }, (_, index) => index + 1),
    );
    for (const payment of payments) {
      assert.equal(payment.status, 'SUCCEEDED');
      assert.equal(await processorCharges(context, payment.id), 1, 'the processor charged each payment id once');
    }
    assert.equal(new Set(entitlements.map((entitlement) => entitlement.idempotencyKey)).size, entitlements.length);
    for (let index = 1; index < entitlements.length; index += 1) {
      assert.equal(entitlements[index]?.startPeriod, entitlements[index - 1]?.endPeriod, 'contiguous periods: nothing renewed twice');
    }
    assert.equal((await entitlementEvents(context, subscription.id)).length, entitlements.length);
  });

  test('two workers and parallel runs, with the sandbox helper left out: exactly one renewal of the due period', async () => {
    context.clock.set(utc('2025-03-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const periodEnd = subscription.currentPeriodEnd;
    context.clock.set(periodEnd);
    const [first, second] = [worker(), worker()];
    assert.ok(first && second);
    const results = await Promise.all([first.drain(), second.drain(), ...Array.from({ length: 6 }, () => renewDirectly(subscription.id, periodEnd))]);
    const outcomes = results.slice(2) as RenewalOutcome[];
    assert.ok(outcomes.every((outcome) => outcome.kind === 'renewed' || outcome.kind === 'stale'));

    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    assert.equal(entitlements.length, 2);
    assert.equal(entitlements[1]?.startPeriod, periodEnd);
    const payments = await renewalPayments(context, subscription);
    assert.equal(payments.length, 1);
    assert.equal(await processorCharges(context, payments[0]?.id ?? ''), 1);
    const invoices = await invoicesOf(context, subscription.id);
    assert.deepEqual(
      invoices.map((invoice) => invoice.periodNumber),
      [1, 2],
    );
    assert.equal(invoices[1]?.paymentId, payments[0]?.id);
    const after = await readSubscription(context, merchant, subscription.id);
    assert.equal(after.currentPeriodStart, periodEnd);
    assert.equal((await entitlementEvents(context, subscription.id)).length, 2);
  });

  test('many subscriptions over several days, drained by two workers at once: one entitlement per subscription and period', async () => {
    context.clock.set(utc('2025-05-01T00:00:00'));
    const started = [];
    for (let index = 0; index < 4; index += 1) {
      started.push((await startSubscription(context, merchant, { interval: 'DAY' })).subscription);
    }
    for (let day = 1; day <= 3; day += 1) {
      context.clock.set(utc('2025-05-01T00:00:00') + day * dayMs);
      const [first, second] = [worker(), worker()];
      assert.ok(first && second);
      await Promise.all([first.drain(), second.drain()]);
    }
    for (const subscription of started) {
      const entitlements = await entitlementsOf(context, merchant, subscription.id);
      assert.deepEqual(
        entitlements.map((entitlement) => entitlement.startPeriod),
        [0, 1, 2, 3].map((day) => utc('2025-05-01T00:00:00') + day * dayMs),
      );
      assert.equal((await renewalPayments(context, subscription)).length, 3);
      assert.equal((await context.request({ method: 'POST', url: `/v1/subscriptions/${subscription.id}/cancel`, apiKey: merchant.apiKey })).statusCode, 200);
    }
  });

  test('a crash after the charge and before the outcome commits: the retry records that same charge, once', async () => {
    context.clock.set(utc('2025-07-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const periodEnd = subscription.currentPeriodEnd;
    context.clock.set(periodEnd);

    const crash = new Error('simulated crash: the process died before the outcome committed');
    await assert.rejects(
      context.platform.services.subscriptions.renew(subscription.id, new Date(periodEnd), {
        transaction: async () => {
          throw crash;
        },
        force: false,
      }),
      crash,
    );
    const charged = await renewalPayments(context, subscription);
    assert.equal(charged.length, 1, 'the card was charged before the crash');
    assert.equal(charged[0]?.status, 'SUCCEEDED');
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1, 'but nothing was recorded');
    const [reserved] = await queryRows<{ pending: string | null }>(context.database.db, sql`select pending_renewal_payment_id as pending from subscriptions where id = ${subscription.id}`);
    assert.equal(reserved?.pending, charged[0]?.id, 'the attempt keeps its payment id');

    // The scheduled renewal job runs the same attempt again: same payment id, the first answer.
    await context.drainJobs();
    const entitlements = await entitlementsOf(context, merchant, subscription.id);
    assert.equal(entitlements.length, 2);
    const payments = await renewalPayments(context, subscription);
    assert.equal(payments.length, 1, 'no second charge');
    assert.equal(await processorCharges(context, payments[0]?.id ?? ''), 1);
    const renewed = await readSubscription(context, merchant, subscription.id);
    assert.equal(renewed.latestInvoice?.paymentId, payments[0]?.id);
    assert.equal(renewed.currentPeriodStart, periodEnd);
    const [cleared] = await queryRows<{ pending: string | null }>(context.database.db, sql`select pending_renewal_payment_id as pending from subscriptions where id = ${subscription.id}`);
    assert.equal(cleared?.pending, null);
  });

  test('the unique idempotency key makes a second entitlement for a period impossible', async () => {
    context.clock.set(utc('2025-09-01T00:00:00'));
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const [entitlement] = await entitlementsOf(context, merchant, subscription.id);
    assert.ok(entitlement);
    await assert.rejects(
      context.database.transaction((tx) =>
        context.platform.services.entitlements.createEntitlement(
          tx,
          {
            merchantId: merchant.id,
            livemode: false,
            customerId: entitlement.customerId,
            subscriptionId: subscription.id,
            productId: entitlement.productId,
            invoiceId: entitlement.invoiceId ?? '',
            startPeriod: new Date(entitlement.startPeriod),
            endPeriod: new Date(entitlement.endPeriod),
          },
          context.clock.now(),
        ),
      ),
      (error) => isUniqueViolation(error, 'entitlements_idempotency_key_unique'),
    );
    assert.equal((await entitlementsOf(context, merchant, subscription.id)).length, 1);
    assert.equal((await entitlementEvents(context, subscription.id)).length, 1, 'the event rolled back with it');
  });
});
