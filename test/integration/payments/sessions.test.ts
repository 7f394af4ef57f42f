import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { paymentPages, payments } from '../../../src/db/schema/index.ts';
import { createProcessorsByMode } from '../../../src/modules/card-processor/by-mode.ts';
import type { CardProcessor, PaymentState } from '../../../src/modules/card-processor/types.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { cardBody, createPage, eventsOf, testCards } from '../../helpers/payment-pages.ts';

/**
 * The processor port's session flow (processor-hosted card entry), with a scripted live processor:
 * the one outside party. The test decides what the processor reports for each of our payment ids
 * (the customer confirmed, was declined, or walked away); everything else is the real code.
 */
class ScriptedLiveProcessor implements CardProcessor {
  readonly name = 'scripted-live';
  readonly created: Array<{ paymentId: string; amount: number; currency: string; saveCard: boolean }> = [];
  readonly states = new Map<string, PaymentState>();
  canceled: string[] = [];

  createPayment(input: Parameters<CardProcessor['createPayment']>[0]) {
    if (!this.created.some((entry) => entry.paymentId === input.paymentId)) {
      this.created.push({ paymentId: input.paymentId, amount: input.amount, currency: input.currency, saveCard: input.saveCard });
      this.states.set(input.paymentId, { status: 'PENDING', processorReference: `pi_${input.paymentId}` });
    }
    return Promise.resolve({ processorReference: `pi_${input.paymentId}`, clientSecret: `pi_${input.paymentId}_secret_x` });
  }

  retrievePayment(input: { paymentId: string }) {
    return Promise.resolve(this.states.get(input.paymentId) ?? null);
  }

  cancelPayment(input: { paymentId: string }) {
    const state = this.states.get(input.paymentId);
    if (state && state.status !== 'PENDING') {
      return Promise.resolve(state);
    }
    this.canceled.push(input.paymentId);
    const canceled = { status: 'DECLINED' as const, declineReason: 'canceled', card: null };
    this.states.set(input.paymentId, canceled);
    return Promise.resolve(canceled);
  }

  succeed(paymentId: string): void {
    this.states.set(paymentId, {
      status: 'SUCCEEDED',
      processorReference: `pi_${paymentId}`,
      networkTransactionId: '123456789012345',
      card: { bin: '555555', last4: '4444', scheme: 'MASTERCARD', cardType: 'DEBIT', issuer: 'Live Test Bank', expMonth: 4, expYear: 2031 },
      token: null,
    });
  }

  chargeSaved(): Promise<never> {
    return Promise.reject(new Error('not used here'));
  }

  refund(): Promise<never> {
    return Promise.reject(new Error('not used here'));
  }

  retrieveRefund() {
    return Promise.resolve(null);
  }
}

describe('payment sessions: processor-hosted card entry (live mode)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: ScriptedLiveProcessor;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ live: true });
    live = new ScriptedLiveProcessor();
    const router = context.platform.services.cardProcessor;
    const installed = { ...router };
    const sandbox = createProcessorsByMode({ sandbox: { ...installed, name: installed.processorName(false) }, live });
    Object.assign(router, { ...sandbox, cardForm: installed.cardForm });
  });
  after(async () => context.close());

  async function attemptsOf(pageId: string) {
    return context.database.db.select().from(payments).where(eq(payments.pageId, pageId));
  }

  test('live mode never takes a card number: the card form is refused and nothing is recorded', async () => {
    const page = await createPage(context, merchant, {}, '?livemode=true');
    const response = await context.request({ method: 'POST', url: `/payment-page/${page.id}`, body: cardBody(testCards.visaCredit) });
    assert.notEqual(response.statusCode, 303, 'a live page never accepts the posted card');
    await assert.rejects(
      context.platform.services.paymentPages.payPage({ pageId: page.id }, cardBody(testCards.visaCredit) as never),
      (error: Error & { code?: string }) => error.code === 'FORBIDDEN' && /not accepted in live mode/.test(error.message),
    );
    assert.equal((await attemptsOf(page.id)).length, 0);
    assert.equal(live.created.length, 0);
  });

  test('a session is created once per attempt (idempotent on our payment id); the page settles PAID from the processor record', async () => {
    const page = await createPage(context, merchant, { amount: 4200, currency: 'EUR' }, '?livemode=true');
    const first = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const again = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    assert.equal(again.paymentId, first.paymentId, 'a reload gets the same session back');
    assert.equal(first.clientSecret, `pi_${first.paymentId}_secret_x`);
    assert.deepEqual(live.created.filter((entry) => entry.paymentId === first.paymentId), [{ paymentId: first.paymentId, amount: 4200, currency: 'EUR', saveCard: false }]);
    const [attempt] = await attemptsOf(page.id);
    assert.equal(attempt?.status, 'PROCESSING');
    assert.equal(attempt?.cardholderNameCiphertext, null, 'no card data is known before the processor reports it');

    // Still waiting for the customer: nothing changes.
    assert.equal((await context.platform.services.paymentPages.completeCheckout(page.id)).status, 'CREATED');
    live.succeed(first.paymentId);
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.paymentId, first.paymentId);
    assert.deepEqual(paid.payinDetails, { amount: 4200, currency: 'EUR', type: 'CARD', scheme: 'MASTERCARD', last4: '4444', cardType: 'DEBIT', bin: '555555', issuer: 'Live Test Bank' });
    const [settled] = await attemptsOf(page.id);
    assert.equal(settled?.expMonth, 4);
    assert.equal(settled?.processorReference, `pi_${first.paymentId}`);
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    // Coming back again changes nothing.
    assert.equal((await context.platform.services.paymentPages.completeCheckout(page.id)).status, 'PAID');
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    await assert.rejects(context.platform.services.paymentPages.openCheckoutSession(page.id), /already PAID/);
  });

  test('a declined session releases the page; the next session is a new payment', async () => {
    const page = await createPage(context, merchant, {}, '?livemode=true');
    const first = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    live.states.set(first.paymentId, { status: 'DECLINED', declineReason: 'card_declined', card: null });
    assert.equal((await context.platform.services.paymentPages.completeCheckout(page.id)).status, 'CREATED');
    const [row] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
    assert.equal(row?.attemptPaymentId, null);
    const second = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    assert.notEqual(second.paymentId, first.paymentId);
    assert.deepEqual((await attemptsOf(page.id)).map((payment) => payment.status).sort(), ['DECLINED', 'PROCESSING']);
  });

  test('an open session is never canceled while its page lives (the customer may still be paying); the resolve job settles only what is final', async () => {
    const open = await createPage(context, merchant, {}, '?livemode=true');
    const completed = await createPage(context, merchant, {}, '?livemode=true');
    const a = await context.platform.services.paymentPages.openCheckoutSession(open.id);
    const b = await context.platform.services.paymentPages.openCheckoutSession(completed.id);
    live.succeed(b.paymentId);
    context.clock.advance(3 * 60_000);
    await context.drainJobs();
    context.clock.advance(60 * 60_000);
    await context.drainJobs();
    assert.ok(!live.canceled.includes(a.paymentId), 'an hour later the session is still open');
    const [openRow] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, open.id));
    assert.equal(openRow?.attemptPaymentId, a.paymentId);
    assert.equal((await attemptsOf(open.id))[0]?.status, 'PROCESSING');
    const [completedRow] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, completed.id));
    assert.equal(completedRow?.status, 'PAID', 'a payment the webhook never reported is settled by the resolve job');
    // The customer comes back after an hour and pays in the same session.
    assert.equal((await context.platform.services.paymentPages.openCheckoutSession(open.id)).paymentId, a.paymentId);
    live.succeed(a.paymentId);
    context.clock.advance(2 * 60 * 60_000);
    await context.drainJobs();
    const [paidRow] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, open.id));
    assert.equal(paidRow?.status, 'PAID');
  });

  test('the page expiring closes its session at the processor (a payment completed meanwhile wins); expiring by API does the same', async () => {
    const expiring = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 10 * 60_000 }, '?livemode=true');
    const racing = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 10 * 60_000 }, '?livemode=true');
    const byApi = await createPage(context, merchant, {}, '?livemode=true');
    const a = await context.platform.services.paymentPages.openCheckoutSession(expiring.id);
    const b = await context.platform.services.paymentPages.openCheckoutSession(racing.id);
    const c = await context.platform.services.paymentPages.openCheckoutSession(byApi.id);
    context.clock.advance(9 * 60_000);
    await context.drainJobs();
    assert.ok(!live.canceled.includes(a.paymentId));
    live.succeed(b.paymentId);
    context.clock.advance(2 * 60_000);
    await context.drainJobs();
    assert.ok(live.canceled.includes(a.paymentId), 'canceled at the page expiry');
    const [expired] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, expiring.id));
    assert.equal(expired?.status, 'EXPIRED');
    assert.equal(expired?.attemptPaymentId, null);
    assert.equal((await attemptsOf(expiring.id))[0]?.declineReason, 'canceled');
    const [paid] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, racing.id));
    assert.equal(paid?.status, 'PAID');
    assert.ok(!live.canceled.includes(b.paymentId));

    const response = await context.request({ method: 'POST', url: `/v1/payment_pages/${byApi.id}/expire?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(live.canceled.includes(c.paymentId));
    assert.equal((await attemptsOf(byApi.id))[0]?.status, 'DECLINED');
  });
});
