import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage } from '../../helpers/payment-pages.ts';
import { readSubscription, renewalPayments, runUntil } from '../../helpers/subscriptions.ts';
import { startStripeReplica, type StripeReplica } from '../../providers/stripe/replica.ts';

const secretKey = 'sk_live_replica';

/** Subscription renewals on a card saved through Stripe: charged off-session on the saved PaymentMethod. */
describe('Stripe: off-session renewals (replica)', () => {
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    replica = await startStripeReplica({ secretKey });
    context = await createTestContext({ env: { STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_live_replica', STRIPE_WEBHOOK_SECRET: 'whsec_replica_renewals', STRIPE_API_URL: replica.url } });
    merchant = await context.createMerchant({ live: true });
  });
  after(async () => {
    await context.close();
    await replica.close();
  });

  test('a live subscription page saves the card at Stripe; renewals succeed off-session, and a card that now needs authentication fails like a decline (PAST_DUE)', async () => {
    const page = await createPage(context, merchant, { amount: 1900, subscription: { productId: 'prod_stripe', interval: 'DAY' } }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [first] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(first);
    assert.equal(first.intent.setup_future_usage, 'off_session', 'the page starts a subscription: the card is saved');
    replica.confirm(first.intent.id, '4242424242424242');
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.equal(paid.status, 'PAID');
    assert.ok(paid.subscriptionId);
    const subscription = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(subscription.status, 'ACTIVE');

    await runUntil(context, subscription.currentPeriodEnd + 1000);
    const renewed = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(renewed.status, 'ACTIVE');
    assert.ok(renewed.currentPeriodEnd > subscription.currentPeriodEnd);
    const [renewal] = await renewalPayments(context, { pageId: page.id });
    assert.equal(renewal?.status, 'SUCCEEDED');
    const [renewalIntent] = [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === renewal?.id);
    assert.equal(renewalIntent?.intent.status, 'succeeded');
    assert.equal(renewalIntent?.intent.customer, first.intent.customer, 'charged on the saved customer and PaymentMethod');
    assert.equal(renewalIntent?.intent.payment_method, replica.expanded(first.intent.id).payment_method);

    // The issuer now asks for authentication on this card: off-session, that is a failed renewal.
    replica.requireAuthentication(String(replica.expanded(first.intent.id).payment_method));
    await runUntil(context, renewed.currentPeriodEnd + 1000);
    const pastDue = await readSubscription(context, merchant, paid.subscriptionId);
    assert.equal(pastDue.status, 'PAST_DUE');
    assert.equal(pastDue.lastDeclineReason, 'authentication_required');
    const payments = await renewalPayments(context, { pageId: page.id });
    assert.deepEqual(payments.map((payment) => [payment.status, payment.declineReason]), [['SUCCEEDED', null], ['DECLINED', 'authentication_required']]);
  });
});
