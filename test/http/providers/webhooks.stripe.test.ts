import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { queryRows } from '../../../src/db/client.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeStripeSuite, deliverStripeEvent, openStripeSuite, stripeEventJobs, stripeEventPayload, stripeSignature, type StripeSuite } from '../../helpers/stripe.ts';
import { createPage, eventsOf } from '../../helpers/payment-pages.ts';
import type { StripeReplica } from '../../providers/stripe/replica.ts';

const webhookSecret = 'whsec_replica_0123456789';
const secretKey = 'sk_live_replica';

/** Live card payments through Stripe, end to end: the platform configured with live keys, the official package pointed at the replica. */
describe('Stripe: configuration, webhooks and settlement (replica)', () => {
  let suite: StripeSuite;
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;
  let eventCounter = 0;

  before(async () => {
    suite = await openStripeSuite({ secretKey, webhookSecret });
    ({ replica, context, merchant } = suite);
  });
  after(async () => closeStripeSuite(suite, { ledger: false }));

  const eventFor = (type: 'payment_intent.succeeded' | 'payment_intent.payment_failed', intentId: string, id = `evt_${(eventCounter += 1)}`) =>
    stripeEventPayload<Stripe.PaymentIntentSucceededEvent | Stripe.PaymentIntentPaymentFailedEvent>(type, replica.expanded(intentId), id, false);

  const deliver = (payload: string, signature = stripeSignature(payload, webhookSecret)) => deliverStripeEvent(context, payload, signature);

  test('boot validation: the three keys together, each of its kind; messages name the variable, never the value', () => {
    const base = { NODE_ENV: 'test', PUBLIC_URL: 'http://paysail.test' };
    assert.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: secretKey }, []), (error: Error) => error instanceof ConfigError && error.variable === 'STRIPE_PUBLISHABLE_KEY' && /all three/.test(error.message));
    assert.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: 'sk_test_abc', STRIPE_PUBLISHABLE_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: webhookSecret }, []), (error: Error) => error instanceof ConfigError && error.variable === 'STRIPE_SECRET_KEY' && !error.message.includes('sk_test_abc'));
    assert.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_test_x', STRIPE_WEBHOOK_SECRET: webhookSecret }, []), (error: Error) => error instanceof ConfigError && error.variable === 'STRIPE_PUBLISHABLE_KEY');
    assert.throws(() => loadConfig({ ...base, STRIPE_SECRET_KEY: secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: 'nope' }, []), (error: Error) => error instanceof ConfigError && error.variable === 'STRIPE_WEBHOOK_SECRET');
    assert.equal(loadConfig(base, []).stripe, undefined);
    assert.equal(context.config.stripe?.apiUrl, replica.url);
  });

  test('paysail providers check: a harmless read with the live keys', async () => {
    const checks = context.platform.providerChecks.filter((check) => check.provider === 'stripe');
    const [check] = checks;
    assert.equal(checks.length, 1);
    assert.ok(check);
    assert.equal(check.environment, 'live');
    assert.match(await check.check(), /^balance readable/);
    assert.ok(replica.requests.some((request) => request.method === 'GET' && request.path === '/v1/balance'));
  });

  test('a signed payment_intent.succeeded settles the page in a job, from the PaymentIntent fetched from Stripe; replays and out-of-order events change nothing', async () => {
    const page = await createPage(context, merchant, { amount: 3100 }, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [state] = [...replica.intents.values()].filter((entry) => entry.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(state && session.clientSecret === state.intent.client_secret);
    replica.confirm(state.intent.id, '4242424242424242');

    const succeeded = eventFor('payment_intent.succeeded', state.intent.id, 'evt_succeeded_1');
    const response = await deliver(succeeded);
    assert.equal(response.statusCode, 200, response.body);
    assert.deepEqual(json(response).data, { received: true });
    assert.equal(await stripeEventJobs(context, 'evt_succeeded_1'), 1);
    assert.equal((await deliver(succeeded)).statusCode, 200, 'a replay is acknowledged');
    assert.equal(await stripeEventJobs(context, 'evt_succeeded_1'), 1, 'and recorded once');
    await context.drainJobs();
    const paid = await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}?livemode=true`, apiKey: merchant.apiKey });
    const body = json<{ data: { status: string; paymentId: string; payinDetails: Record<string, unknown> } }>(paid).data;
    assert.equal(body.status, 'PAID');
    assert.equal(body.paymentId, session.paymentId);
    assert.deepEqual(body.payinDetails, { amount: 3100, currency: 'USD', type: 'CARD', scheme: 'VISA', last4: '4242', cardType: 'CREDIT', bin: '424242', issuer: 'Stripe Test Bank' });
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    assert.ok(replica.requests.some((request) => request.method === 'GET' && request.path === `/v1/payment_intents/${state.intent.id}`), 'the object was fetched before acting');

    // An older failure event arriving late: Stripe says succeeded now, so nothing changes.
    assert.equal((await deliver(eventFor('payment_intent.payment_failed', state.intent.id))).statusCode, 200);
    await context.drainJobs();
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    const [row] = await queryRows<{ status: string }>(context.database.db, sql`select status from payment_pages where id = ${page.id}`);
    assert.equal(row?.status, 'PAID');
  });

  test('a wrong, stale or missing signature answers 400 WRONG_PARAMETER and records nothing', async () => {
    const page = await createPage(context, merchant, {}, '?livemode=true');
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const [state] = [...replica.intents.values()].filter((entry) => entry.intent.metadata['paysail_payment_id'] === session.paymentId);
    assert.ok(state);
    replica.confirm(state.intent.id, '4242424242424242');
    const payload = eventFor('payment_intent.succeeded', state.intent.id, 'evt_forged');
    const forged = stripeSignature(payload, 'whsec_someone_else');
    const stale = stripeSignature(payload, webhookSecret, Math.floor(Date.now() / 1000) - 3600);
    for (const signature of [forged, stale, '']) {
      const response = await deliver(payload, signature);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<{ errorCode: string }>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<{ errorMessage: string }>(response).errorMessage, /Stripe-Signature/);
    }
    const tampered = await deliver(payload.replace('"livemode":false', '"livemode":true'), stripeSignature(payload, webhookSecret));
    assert.equal(tampered.statusCode, 400);
    assert.equal(await stripeEventJobs(context, 'evt_forged'), 0);
    await context.drainJobs();
    const [row] = await queryRows<{ status: string }>(context.database.db, sql`select status from payment_pages where id = ${page.id}`);
    assert.equal(row?.status, 'CREATED');
  });
});
