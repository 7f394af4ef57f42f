import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { JobRegistry, Worker } from '../../../src/jobs/worker.ts';
import { createSandboxCardProcessor, type SandboxCardProcessor } from '../../../src/modules/card-processor/sandbox.ts';
import { createProcessorsByMode } from '../../../src/modules/card-processor/by-mode.ts';
import type { CardProcessor, ChargeResult } from '../../../src/modules/card-processor/types.ts';
import type { Merchant } from '../../../src/modules/merchants/service.ts';
import { createPaymentPagesService } from '../../../src/modules/payment-pages/service.ts';
import { clientReferenceIdOfPage } from '../../../src/modules/payment-pages/references.ts';
import { createPaymentsService } from '../../../src/modules/payments/index.ts';
import { createSubscriptionsService, type SubscriptionsService } from '../../../src/modules/subscriptions/service.ts';
import { TestClock } from '../../helpers/clock.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { dayMs, entitlementsOf, readSubscription, renewalPayments, type SubscriptionBody } from '../../helpers/subscriptions.ts';

const utc = (iso: string) => new Date(`${iso}Z`).getTime();

/**
 * The card processor is the one outside system here, so it is the one thing scripted: it wraps the
 * real sandbox processor and can decline the next renewals, drop the saved-card token, or hold a
 * renewal charge "in flight" until the test lets it answer. Everything else is the real code.
 */
class ScriptedProcessor implements CardProcessor {
  readonly name: string;
  declineNextRenewals = 0;
  saveCards = true;
  private gate: Promise<void> | null = null;

  constructor(private readonly sandbox: SandboxCardProcessor) {
    this.name = sandbox.name;
  }

  createPayment(input: Parameters<CardProcessor['createPayment']>[0]): ReturnType<CardProcessor['createPayment']> {
    return this.sandbox.createPayment(input);
  }

  /** The sandbox card form, with the saved-card token dropped when told to. */
  async confirmWithCard(input: Parameters<SandboxCardProcessor['confirmWithCard']>[0]): Promise<ChargeResult | null> {
    const result = await this.sandbox.confirmWithCard(input);
    return result && result.status === 'SUCCEEDED' && !this.saveCards ? { ...result, token: null } : result;
  }

  async chargeSaved(input: Parameters<CardProcessor['chargeSaved']>[0]): Promise<ChargeResult> {
    if (this.gate) {
      await this.gate;
    }
    if (this.declineNextRenewals > 0) {
      this.declineNextRenewals -= 1;
      return { status: 'DECLINED', declineReason: 'insufficient_funds', card: null };
    }
    return this.sandbox.chargeSaved(input);
  }

  retrievePayment(input: { paymentId: string; livemode: boolean }): ReturnType<CardProcessor['retrievePayment']> {
    return this.sandbox.retrievePayment(input);
  }

  cancelPayment(input: { paymentId: string; livemode: boolean }): ReturnType<CardProcessor['cancelPayment']> {
    return this.sandbox.cancelPayment(input);
  }

  refund(input: Parameters<CardProcessor['refund']>[0]): ReturnType<CardProcessor['refund']> {
    return this.sandbox.refund(input);
  }

  retrieveRefund(input: Parameters<CardProcessor['retrieveRefund']>[0]): ReturnType<CardProcessor['retrieveRefund']> {
    return this.sandbox.retrieveRefund(input);
  }

  /** The next renewal charges wait until `release()` is called. */
  hold(): () => void {
    let open: (() => void) | undefined;
    this.gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    return () => {
      this.gate = null;
      open?.();
    };
  }
}

describe('renewal recovery with a scripted card processor', () => {
  let context: TestContext;
  let testMerchant: TestMerchant;
  let merchant: Merchant;
  let processor: ScriptedProcessor;
  let subscriptions: SubscriptionsService;
  let pages: ReturnType<typeof createPaymentPagesService>;
  let worker: Worker;

  before(async () => {
    context = await createTestContext({ clock: new TestClock(utc('2025-01-15T12:00:00')) });
    testMerchant = await context.createMerchant();
    const authenticated = await context.platform.services.merchants.authenticate(testMerchant.apiKey);
    assert.ok(authenticated);
    merchant = authenticated.merchant;
    const { database, clock, logger } = context.platform;
    processor = new ScriptedProcessor(createSandboxCardProcessor({ database, clock }));
    const payments = createPaymentsService({
      database,
      clock,
      keyRing: context.keyRing,
      customers: context.platform.services.customers,
      cardProcessor: createProcessorsByMode({ sandbox: processor, live: null }),
      ledger: context.platform.services.ledger,
      logger,
      clientReferenceIdOfPage,
    });
    pages = createPaymentPagesService({ database, clock, keyRing: context.keyRing, publicUrl: context.config.publicUrl, customers: context.platform.services.customers, payments });
    subscriptions = createSubscriptionsService({ database, keyRing: context.keyRing, clock, entitlements: context.platform.services.entitlements, savedCards: payments });
    pages.onPaid((tx, paid, now) => subscriptions.startFromPayment(tx, paid, now));
    const registry = new JobRegistry();
    registry.register(subscriptions.renewalJob());
    registry.register(payments.resolveAttemptJob());
    worker = new Worker({ database, registry, clock, logger, concurrency: 4, pollIntervalMs: 60_000 });
  });
  after(async () => context.close());

  async function start(interval: 'DAY' | 'MONTH'): Promise<SubscriptionBody> {
    const page = await pages.createPage(merchant, false, {
      amount: 1200,
      currency: 'USD',
      clientReferenceId: randomUUID(),
      customer: { referenceId: `subscriber-${randomUUID()}`, email: 'subscriber@example.com' },
      subscription: { productId: 'prod_recovery', interval },
    });
    const paid = await pages.payPage({ pageId: page.id, merchantId: merchant.id, livemode: false }, { cardNumber: '4242424242424242', expMonth: 12, expYear: 2030, cvc: '123', cardholderName: 'Grace Hopper' });
    assert.equal(paid.outcome, 'PAID');
    assert.ok(paid.page.subscriptionId);
    return readSubscription(context, testMerchant, paid.page.subscriptionId);
  }

  async function runUntil(time: number): Promise<void> {
    context.clock.set(time);
    await worker.drain();
  }

  test('declined, then paid by the retry a day later: ACTIVE again, the due period is the one paid, the anchor is kept', async () => {
    context.clock.set(utc('2025-01-15T12:00:00'));
    const subscription = await start('MONTH');
    const periodEnd = utc('2025-02-15T12:00:00');
    processor.declineNextRenewals = 1;
    await runUntil(periodEnd);
    let current = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(current.status, 'PAST_DUE');
    assert.equal(current.lastDeclineReason, 'insufficient_funds');

    await runUntil(periodEnd + dayMs);
    current = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(current.status, 'ACTIVE');
    assert.equal(current.failedRenewalAttempts, 0);
    assert.equal('nextRenewalAttemptAt' in current, false);
    assert.equal('lastDeclineReason' in current, false);
    assert.equal(current.currentPeriodStart, periodEnd);
    assert.equal(current.currentPeriodEnd, utc('2025-03-15T12:00:00'));
    assert.equal(current.latestInvoice?.paidAt, periodEnd + dayMs);

    const entitlements = await entitlementsOf(context, testMerchant, subscription.id);
    assert.deepEqual(
      entitlements.map((entitlement) => [entitlement.startPeriod, entitlement.endPeriod]),
      [
        [utc('2025-01-15T12:00:00'), periodEnd],
        [periodEnd, utc('2025-03-15T12:00:00')],
      ],
    );
    assert.deepEqual(
      (await renewalPayments(context, subscription)).map((payment) => payment.status),
      ['DECLINED', 'SUCCEEDED'],
    );

    // The old retries are spent; the next renewal happens at the next period end, as usual.
    await runUntil(utc('2025-03-15T11:59:59'));
    assert.equal((await entitlementsOf(context, testMerchant, subscription.id)).length, 2);
    await runUntil(utc('2025-03-15T12:00:00'));
    assert.equal((await entitlementsOf(context, testMerchant, subscription.id)).length, 3);
    await subscriptions.cancelSubscription(merchant, false, subscription.id);
  });

  test('a DAY subscription paid by a late retry does not buy a period that is already over: it restarts at the payment', async () => {
    context.clock.set(utc('2025-04-01T00:00:00'));
    const subscription = await start('DAY');
    processor.declineNextRenewals = 2;
    await runUntil(utc('2025-04-02T00:00:00'));
    await runUntil(utc('2025-04-03T00:00:00'));
    assert.equal((await readSubscription(context, testMerchant, subscription.id)).failedRenewalAttempts, 2);
    await runUntil(utc('2025-04-05T00:00:00'));
    const current = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(current.status, 'ACTIVE');
    assert.equal(current.currentPeriodStart, utc('2025-04-05T00:00:00'));
    assert.equal(current.currentPeriodEnd, utc('2025-04-06T00:00:00'));
    const [, renewed] = await entitlementsOf(context, testMerchant, subscription.id);
    assert.equal(renewed?.startPeriod, utc('2025-04-05T00:00:00'));
    await subscriptions.cancelSubscription(merchant, false, subscription.id);
  });

  test('without a saved card every renewal is declined (no_saved_card) without charging, then CANCELED', async () => {
    context.clock.set(utc('2025-06-01T00:00:00'));
    processor.saveCards = false;
    const subscription = await start('MONTH');
    processor.saveCards = true;
    const periodEnd = utc('2025-07-01T00:00:00');
    for (const offset of [0, 1, 3, 5]) {
      await runUntil(periodEnd + offset * dayMs);
    }
    const ended = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(ended.status, 'CANCELED');
    assert.equal(ended.failedRenewalAttempts, 4);
    assert.equal(ended.lastDeclineReason, 'no_saved_card');
    assert.equal((await renewalPayments(context, subscription)).length, 0, 'nothing to charge');
    assert.equal((await entitlementsOf(context, testMerchant, subscription.id)).length, 1);
  });

  test('a cancel while a renewal charge is in flight: the charge is honoured, and the cancel takes effect at the end of what it paid for', async () => {
    context.clock.set(utc('2025-08-01T00:00:00'));
    const subscription = await start('MONTH');
    const periodEnd = utc('2025-09-01T00:00:00');
    context.clock.set(periodEnd);
    const release = processor.hold();
    const renewal = worker.drain();
    // Let the renewal reserve its payment and reach the processor.
    for (let turn = 0; turn < 50 && (await renewalPayments(context, subscription)).length === 0; turn += 1) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal((await renewalPayments(context, subscription)).length, 1, 'the renewal charge is in flight');

    const response = await context.request({ method: 'POST', url: `/v1/subscriptions/${subscription.id}/cancel`, apiKey: testMerchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(json<{ data: SubscriptionBody }>(response).data.cancelAtPeriodEnd, true);
    release();
    await renewal;

    const current = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(current.status, 'ACTIVE', 'the customer paid for the new period');
    assert.equal(current.cancelAtPeriodEnd, true);
    assert.equal(current.currentPeriodEnd, utc('2025-10-01T00:00:00'));
    assert.equal((await entitlementsOf(context, testMerchant, subscription.id)).length, 2);

    await runUntil(utc('2025-10-01T00:00:00'));
    const ended = await readSubscription(context, testMerchant, subscription.id);
    assert.equal(ended.status, 'CANCELED');
    assert.equal(ended.endedAt, utc('2025-10-01T00:00:00'));
    assert.equal((await renewalPayments(context, subscription)).length, 1);
  });
});
