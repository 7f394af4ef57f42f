import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import Stripe from 'stripe';
import { queryRows } from '../../src/db/client.ts';
import { createTestContext, type TestContext, type TestMerchant } from './context.ts';
import { assertLedgerInvariants } from './ledger.ts';
import { createPage } from './payment-pages.ts';
import { startStripeReplica, type StripeReplica } from '../providers/stripe/replica.ts';

export interface StripeSuite {
  replica: StripeReplica;
  context: TestContext;
  merchant: TestMerchant;
}

/**
 * A Stripe suite's `before`: the Stripe replica with `secretKey`, a test context whose platform is
 * configured with it (the live keys, or with `testAccount` the STRIPE_TEST_* keys behind sandbox mode;
 * `env` adds to them) and one merchant, live-enabled unless `testAccount`.
 */
export async function openStripeSuite(options: { secretKey: string; webhookSecret: string; testAccount?: boolean; env?: Record<string, string>; merchantName?: string }): Promise<StripeSuite> {
  const replica = await startStripeReplica({ secretKey: options.secretKey });
  const keys: Record<string, string> = options.testAccount
    ? { STRIPE_TEST_SECRET_KEY: options.secretKey, STRIPE_TEST_PUBLISHABLE_KEY: 'pk_test_replica', STRIPE_TEST_WEBHOOK_SECRET: options.webhookSecret }
    : { STRIPE_SECRET_KEY: options.secretKey, STRIPE_PUBLISHABLE_KEY: 'pk_live_replica', STRIPE_WEBHOOK_SECRET: options.webhookSecret };
  const context = await createTestContext({ env: { ...keys, STRIPE_API_URL: replica.url, ...options.env } });
  const merchant = await context.createMerchant({ live: !options.testAccount, ...(options.merchantName ? { name: options.merchantName } : {}) });
  return { replica, context, merchant };
}

/** A Stripe suite's `after`: the ledger balances (unless `ledger` is false), then the context and the replica close. */
export async function closeStripeSuite(suite: { replica: StripeReplica; context: TestContext }, options: { ledger?: boolean } = {}): Promise<void> {
  if (options.ledger !== false) {
    await assertLedgerInvariants(suite.context.database);
  }
  await suite.context.close();
  await suite.replica.close();
}

const signer = new Stripe('sk_test_signer_only');

/** A Stripe-Signature header for `payload`, as Stripe signs with the endpoint's `secret` (at `timestamp`, seconds, default now). */
export function stripeSignature(payload: string, secret: string, timestamp?: number): string {
  return signer.webhooks.generateTestHeaderString({ payload, secret, ...(timestamp === undefined ? {} : { timestamp }) });
}

/** POST /providers/stripe/webhooks with `payload` under `signature`, as Stripe delivers it. */
export function deliverStripeEvent(context: TestContext, payload: string, signature: string) {
  return context.app.inject({ method: 'POST', url: '/providers/stripe/webhooks', headers: { 'content-type': 'application/json', 'stripe-signature': signature }, payload });
}

/** How many jobs a Stripe event made (one, however often it is delivered). */
export async function stripeEventJobs(context: TestContext, eventId: string): Promise<number> {
  const rows = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from jobs where dedupe_key = ${`provider-event:stripe:${eventId}`}`);
  return rows[0]?.count ?? 0;
}

/**
 * A live page paid in Stripe's Payment Element with `card`; with `settle` (default) settled from the
 * PaymentIntent, without it our payment stays PROCESSING (its webhook not arrived yet).
 */
export async function paidStripePage(
  suite: StripeSuite,
  amount: number,
  card: string,
  settle = true,
): Promise<{ pageId: string; paymentId: string; intentId: string; clientReferenceId: string }> {
  const { context, replica, merchant } = suite;
  const page = await createPage(context, merchant, { amount }, '?livemode=true');
  const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
  const [state] = [...replica.intents.values()].filter((entry) => entry.intent.metadata['paysail_payment_id'] === session.paymentId);
  assert.ok(state);
  replica.confirm(state.intent.id, card);
  if (settle) {
    const completed = await context.platform.services.paymentPages.completeCheckout(page.id);
    assert.equal(completed.status, 'PAID');
  }
  return { pageId: page.id, paymentId: session.paymentId, intentId: state.intent.id, clientReferenceId: page.clientReferenceId };
}

/** A Stripe event of `type` carrying `object`, as JSON text the way Stripe sends it. */
export function stripeEventPayload<T extends Stripe.Event>(type: T['type'], object: T['data']['object'], id: string, livemode: boolean): string {
  const event = { id, object: 'event', api_version: '2025-01-01', created: Math.floor(Date.now() / 1000), data: { object }, livemode, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type } as T;
  return JSON.stringify(event);
}
