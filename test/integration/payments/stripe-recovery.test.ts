import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { paymentPages, payments } from '../../../src/db/schema/index.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { startStripeReplica, type StripeReplica } from '../../providers/stripe/replica.ts';

const secretKey = 'sk_live_replica_recovery';

/**
 * Unknown outcomes with Stripe, settled from Stripe's own record and never guessed: a cancel Stripe
 * refuses (the intent is processing), a search that does not find an intent yet (Stripe's search
 * lags up to a minute behind its writes). The real platform, the `stripe` package and the replica.
 */
describe('Stripe: refused cancels and lagging searches are never recorded as declines (replica)', () => {
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    replica = await startStripeReplica({ secretKey });
    context = await createTestContext({ env: { STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_live_replica_recovery', STRIPE_WEBHOOK_SECRET: 'whsec_replica_recovery', STRIPE_API_URL: replica.url } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await replica.close();
  });

  const intentOf = (paymentId: string) => [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === paymentId);
  const pageRow = async (pageId: string) => (await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, pageId)))[0];
  const paymentRow = async (paymentId: string) => (await context.database.db.select().from(payments).where(eq(payments.id, paymentId)))[0];

  test('the page expires while its payment is processing: Stripe refuses the cancel, the payment stays unsettled (not DECLINED) and is PAID when processing succeeds', async () => {
    const page = await createPage(context, merchant, { amount: 3100, expiresAt: context.clock.now().getTime() + 5 * 60_000 }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [state] = intentOf(session.paymentId);
    assert.ok(state);
    replica.startProcessing(state.intent.id, '4242424242424242');
    context.clock.advance(6 * 60_000);
    await context.drainJobs();
    const cancels = replica.requests.filter((request) => request.path === `/v1/payment_intents/${state.intent.id}/cancel`);
    assert.ok(cancels.length >= 1, 'the expiry asked Stripe to cancel');
    assert.equal(state.intent.status, 'processing', 'Stripe refused');
    assert.equal((await paymentRow(session.paymentId))?.status, 'PROCESSING', 'a refused cancel is not a decline');
    assert.equal((await pageRow(page.id))?.status, 'CREATED', 'the page waits for the payment');

    replica.finishProcessing(state.intent.id);
    context.clock.advance(60_000);
    await context.drainJobs();
    assert.equal((await paymentRow(session.paymentId))?.status, 'SUCCEEDED');
    assert.equal((await pageRow(page.id))?.status, 'PAID');
  });

  test('processing ends in a decline: the next cancel is not answered with the refusal Stripe stored for the first one', async () => {
    const page = await createPage(context, merchant, { amount: 3200, expiresAt: context.clock.now().getTime() + 5 * 60_000 }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [state] = intentOf(session.paymentId);
    assert.ok(state);
    replica.startProcessing(state.intent.id, '4000000000000002');
    context.clock.advance(6 * 60_000);
    await context.drainJobs();
    assert.equal((await paymentRow(session.paymentId))?.status, 'PROCESSING');
    replica.finishProcessing(state.intent.id);
    assert.equal(state.intent.status, 'requires_payment_method');
    context.clock.advance(60_000);
    await context.drainJobs();
    assert.equal(replica.intents.get(state.intent.id)?.intent.status, 'canceled');
    const settled = await paymentRow(session.paymentId);
    assert.equal(settled?.status, 'DECLINED');
    assert.equal(settled?.declineReason, 'generic_decline');
    assert.equal((await pageRow(page.id))?.status, 'EXPIRED');
  });

  test('a renewal whose answer was lost while Stripe search lags: UNKNOWN, looked at again, settled SUCCEEDED once the search finds it — never DECLINED on a miss', async () => {
    // A saved card from a paid subscription page.
    const page = await createPage(context, merchant, { amount: 1200, subscription: { productId: 'prod_recovery', interval: 'MONTH' } }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [first] = intentOf(session.paymentId);
    assert.ok(first);
    replica.confirm(first.intent.id, '4242424242424242');
    assert.equal((await context.platform.services.paymentPages.completeCheckout(page.id)).status, 'PAID');
    const cardTokenId = (await paymentRow(session.paymentId))?.cardTokenId;
    assert.ok(cardTokenId);

    replica.lagSearch(true);
    replica.loseAnswers('/v1/payment_intents', 3);
    const renewalId = 'pay_renewal_lost_answer_000000000000001';
    await assert.rejects(context.platform.services.payments.chargeSavedCard({ merchantId: merchant.id, livemode: true, cardTokenId, amount: 1200, currency: 'USD', paymentId: renewalId }));
    assert.equal(intentOf(renewalId).length, 1, 'Stripe charged it once');
    assert.equal(intentOf(renewalId)[0]?.intent.status, 'succeeded');
    assert.equal((await paymentRow(renewalId))?.processorReference, null, 'we were never told its id');

    context.clock.advance(3 * 60_000);
    await context.drainJobs();
    assert.ok(replica.requests.some((request) => request.path === '/v1/payment_intents/search'), 'the resolve job searched');
    assert.equal((await paymentRow(renewalId))?.status, 'PROCESSING', 'a search miss is not a decline');

    replica.indexSearch();
    replica.lagSearch(false);
    context.clock.advance(60 * 60_000);
    await context.drainJobs();
    const settled = await paymentRow(renewalId);
    assert.equal(settled?.status, 'SUCCEEDED');
    assert.equal(settled?.processorReference, intentOf(renewalId)[0]?.intent.id);
  });
});
