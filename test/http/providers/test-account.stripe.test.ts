import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import type Stripe from 'stripe';
import { queryRows } from '../../../src/db/client.ts';
import { ConfigError, loadConfig } from '../../../src/config/index.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { closeStripeSuite, deliverStripeEvent, openStripeSuite, stripeEventPayload, stripeSignature, type StripeSuite } from '../../helpers/stripe.ts';
import { createPage, eventsOf, payPage } from '../../helpers/payment-pages.ts';
import { runInProcess } from '../../cli/helpers.ts';
import type { StripeReplica } from '../../providers/stripe/replica.ts';

const secretKey = 'sk_test_replica';
const publishableKey = 'pk_test_replica';
const webhookSecret = 'whsec_test_account_0123456789';

/**
 * STRIPE_TEST_*: sandbox card payments through a Stripe test account (the official package pointed
 * at the replica) instead of the built-in sandbox processor, with its own webhook secret on the
 * same webhook URL.
 */
describe('Stripe test account backing sandbox mode (replica)', () => {
  let suite: StripeSuite;
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    suite = await openStripeSuite({ secretKey, webhookSecret, testAccount: true });
    ({ replica, context, merchant } = suite);
  });
  after(async () => closeStripeSuite(suite));

  function intentOf(paymentId: string) {
    const [state] = [...replica.intents.values()].filter((entry) => entry.intent.metadata['paysail_payment_id'] === paymentId);
    assert.ok(state, `a PaymentIntent for ${paymentId}`);
    return state;
  }

  function deliver(type: 'payment_intent.succeeded', intentId: string, id: string, secret = webhookSecret) {
    const payload = stripeEventPayload<Stripe.PaymentIntentSucceededEvent>(type, replica.expanded(intentId), id, false);
    return deliverStripeEvent(context, payload, stripeSignature(payload, secret));
  }

  test('boot validation: the three test keys together or none, each a test key of its kind; messages name the variable, never the value', () => {
    const base = { NODE_ENV: 'test', PUBLIC_URL: 'http://paysail.test' };
    const keys = { STRIPE_TEST_SECRET_KEY: secretKey, STRIPE_TEST_PUBLISHABLE_KEY: publishableKey, STRIPE_TEST_WEBHOOK_SECRET: webhookSecret };
    const refused = (env: Record<string, string>, variable: string, message?: RegExp) =>
      assert.throws(
        () => loadConfig({ ...base, ...env }, []),
        (error: Error) => error instanceof ConfigError && error.variable === variable && (message === undefined || message.test(error.message)) && !Object.values(env).some((value) => value.length > 8 && error.message.includes(value)),
        `${variable} refused`,
      );
    refused({ STRIPE_TEST_SECRET_KEY: secretKey }, 'STRIPE_TEST_PUBLISHABLE_KEY', /all three/);
    refused({ STRIPE_TEST_PUBLISHABLE_KEY: publishableKey, STRIPE_TEST_WEBHOOK_SECRET: webhookSecret }, 'STRIPE_TEST_SECRET_KEY', /all three/);
    refused({ ...keys, STRIPE_TEST_SECRET_KEY: 'sk_live_abcdefghij' }, 'STRIPE_TEST_SECRET_KEY', /live keys go in STRIPE_SECRET_KEY/);
    refused({ ...keys, STRIPE_TEST_PUBLISHABLE_KEY: 'pk_live_abcdefghij' }, 'STRIPE_TEST_PUBLISHABLE_KEY', /test publishable key/);
    refused({ ...keys, STRIPE_TEST_WEBHOOK_SECRET: 'not-a-secret' }, 'STRIPE_TEST_WEBHOOK_SECRET', /whsec_/);
    refused({ STRIPE_SECRET_KEY: 'sk_test_abcdefghij', STRIPE_PUBLISHABLE_KEY: 'pk_live_x', STRIPE_WEBHOOK_SECRET: webhookSecret }, 'STRIPE_SECRET_KEY', /put test keys in STRIPE_TEST_SECRET_KEY/);
    assert.equal(loadConfig(base, []).stripeTest, undefined, 'none: the built-in sandbox processor');
    const both = loadConfig({ ...base, ...keys, STRIPE_SECRET_KEY: 'sk_live_abc', STRIPE_PUBLISHABLE_KEY: 'pk_live_abc', STRIPE_WEBHOOK_SECRET: 'whsec_live_abc' }, []);
    assert.equal(both.stripe?.secretKey, 'sk_live_abc');
    assert.equal(both.stripeTest?.secretKey, secretKey);
    assert.equal(context.config.stripeTest?.apiUrl, replica.url);
    assert.equal(context.config.stripe, undefined);
  });

  test('paysail providers check reads the test account with its keys', async () => {
    const checks = context.platform.providerChecks.filter((check) => check.provider === 'stripe');
    assert.deepEqual(
      checks.map((check) => check.environment),
      ['test'],
    );
    const before = replica.requests.length;
    const cli = await runInProcess(context.platform, ['providers', 'check']);
    assert.equal(cli.code, 0, cli.stderr);
    assert.match(cli.stdout, /^ok +stripe \(test\): balance readable/m);
    assert.ok(replica.requests.slice(before).some((request) => request.method === 'GET' && request.path === '/v1/balance'));
  });

  test('a sandbox page is paid through the Stripe test account: the Payment Element with the test key, never a card form; settled from the PaymentIntent; the sandbox balance credited', async () => {
    assert.equal(context.platform.services.cardProcessor.processorName(false), 'stripe');
    assert.equal(context.platform.services.cardProcessor.isAvailable(true), false, 'live payments still need STRIPE_*');
    const page = await createPage(context, merchant, { amount: 4100 });
    // The built-in sandbox's card numbers (its test helper included) are refused, and nothing is written.
    const typed = await payPage(context, merchant, page.id, '4242424242424242');
    assert.equal(typed.statusCode, 403, typed.body);
    assert.equal(json<{ errorCode: string }>(typed).errorCode, 'FORBIDDEN');
    assert.match(json<{ errorMessage: string }>(typed).errorMessage, /backed by a Stripe test account \(STRIPE_TEST_\*\)/);
    assert.deepEqual(await queryRows(context.database.db, sql`select id from payments where page_id = ${page.id}`), []);
    const hosted = await context.app.inject({ method: 'GET', url: `/payment-page/${page.id}` });
    assert.equal(hosted.statusCode, 200);
    assert.ok(hosted.body.includes(publishableKey), "the Payment Element mounts with the test account's publishable key");
    assert.doesNotMatch(hosted.body, /name="cardNumber"/, "no card number field of Paysail's own");
    assert.match(hosted.body, /Sandbox: no money moves/);

    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const state = intentOf(session.paymentId);
    assert.equal(state.intent.livemode, false);
    assert.equal(session.clientSecret, state.intent.client_secret);
    assert.equal(replica.requests.find((request) => request.method === 'POST' && request.path === '/v1/payment_intents')?.idempotencyKey, `paysail:payment:${session.paymentId}`);
    const before = await balanceOf(context.database, merchant.id, false, 'USD');
    replica.confirm(state.intent.id, '4242424242424242');
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.livemode, false);
    const [row] = await queryRows<{ processor: string; livemode: boolean; processor_reference: string }>(context.database.db, sql`select processor, livemode, processor_reference from payments where id = ${session.paymentId}`);
    assert.deepEqual(row, { processor: 'stripe', livemode: false, processor_reference: state.intent.id });
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USD')).available, before.available + 4100);

    // A sandbox refund goes to the test account, idempotent on our refund id.
    const refund = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', apiKey: merchant.apiKey, body: { paymentPageId: page.id, amount: 1000 } });
    assert.equal(refund.statusCode, 200, refund.body);
    const refundId = json<{ data: { id: string } }>(refund).data.id;
    await context.drainJobs();
    const made = [...replica.refunds.values()].filter((candidate) => candidate.metadata?.['paysail_refund_id'] === refundId);
    assert.equal(made.length, 1);
    assert.equal(made[0]?.amount, 1000);
  });

  test("the test account's webhooks on the same URL: verified with STRIPE_TEST_WEBHOOK_SECRET and acted on with the test account; another secret answers 400", async () => {
    const page = await createPage(context, merchant, { amount: 2600 });
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    const state = intentOf(session.paymentId);
    replica.confirm(state.intent.id, '4242424242424242');

    const forged = await deliver('payment_intent.succeeded', state.intent.id, 'evt_test_forged', 'whsec_someone_else');
    assert.equal(forged.statusCode, 400, forged.body);
    assert.match(json<{ errorMessage: string }>(forged).errorMessage, /STRIPE_TEST_WEBHOOK_SECRET/);

    const response = await deliver('payment_intent.succeeded', state.intent.id, 'evt_test_account_1');
    assert.equal(response.statusCode, 200, response.body);
    const [job] = await queryRows<{ payload: { environment?: string } }>(context.database.db, sql`select payload from jobs where dedupe_key = 'provider-event:stripe:evt_test_account_1'`);
    assert.equal(job?.payload.environment, 'test', 'recorded with the account that signed it');
    const fetched = replica.requests.length;
    await context.drainJobs();
    assert.ok(replica.requests.slice(fetched).some((request) => request.method === 'GET' && request.path === `/v1/payment_intents/${state.intent.id}`), 'the PaymentIntent was fetched from the test account');
    const read = json<{ data: { status: string } }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.id}?livemode=false`, apiKey: merchant.apiKey })).data;
    assert.equal(read.status, 'PAID');
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
  });
});
