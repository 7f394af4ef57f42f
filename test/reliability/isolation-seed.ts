import assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { completeKyc, createCustomer } from '../helpers/assertions.ts';
import { createPage as createPayoutPage } from '../helpers/payout-pages.ts';
import { cardBody, createPage as createPaymentPage, testCards } from '../helpers/payment-pages.ts';
import { startSubscription } from '../helpers/subscriptions.ts';
import { createEndpoint } from '../helpers/webhooks.ts';
import { queryRows } from '../../src/db/client.ts';
import type { IdKind } from '../../src/crypto/ids.ts';
import { createProcessorsByMode } from '../../src/modules/card-processor/by-mode.ts';
import type { CardProcessor } from '../../src/modules/card-processor/types.ts';

// The isolation matrix's seeding (isolation.test.ts): merchant A's real objects of every kind, in
// sandbox and in live, and every id and distinctive value of A's that no other caller may see.

export type Mode = 'sandbox' | 'live';
export type Owned = Partial<Record<IdKind, Partial<Record<Mode, string>>>>;

/** What the seeding found of A's: its ids by kind and mode, and every id and distinctive value (`secrets`). */
export interface Seeded {
  owned: Owned;
  secrets: Set<string>;
}

function own(seeded: Seeded, kind: IdKind, mode: Mode, id: unknown): void {
  if (typeof id !== 'string' || id === '') {
    return;
  }
  (seeded.owned[kind] ??= {})[mode] ??= id;
  seeded.secrets.add(id);
}

function harvest(seeded: Seeded, value: unknown): void {
  // Every id-looking string and every distinctive value in A's answers is A's data.
  if (typeof value === 'string') {
    if (/^[a-z_]+_[0-9a-z]{20,}$/.test(value) || value.includes('iso-a-')) {
      seeded.secrets.add(value);
    }
  } else if (Array.isArray(value)) {
    value.forEach((item) => harvest(seeded, item));
  } else if (value !== null && typeof value === 'object') {
    Object.values(value).forEach((item) => harvest(seeded, item));
  }
}

/**
 * A live card processor for the seeding only. No supported path makes a live card payment on this
 * installation: the platform is built without a live processor (`src/platform.ts`,
 * `createProcessorsByMode({ …, live: null })`), so live checkouts answer 403. Rather than insert
 * rows by hand, the test plugs this stand-in into the platform's router through the processor port
 * (`CardProcessor`, the interface a live adapter implements) while it pays one live page; everything
 * after the charge (payment row, subscription, invoice, entitlement, events, webhook deliveries, the
 * fraud report of an operator import) is written by the production code. The router is restored
 * before the matrix runs, so the matrix sees the installation as it is.
 */
const liveSessions = new Map<string, { amount: number; saveCard: boolean; networkTransactionId: string }>();
const liveStandIn: CardProcessor = {
  name: 'isolation-live-stand-in',
  createPayment(input) {
    if (!liveSessions.has(input.paymentId)) {
      liveSessions.set(input.paymentId, { amount: input.amount, saveCard: input.saveCard, networkTransactionId: String(randomInt(10 ** 14, 2 * 10 ** 14)) });
    }
    return Promise.resolve({ processorReference: `iso_live_${input.paymentId}`, clientSecret: `iso_live_secret_${input.paymentId}` });
  },
  // The customer confirmed in the processor's own fields: the processor reports the payment succeeded.
  retrievePayment(input) {
    const session = liveSessions.get(input.paymentId);
    if (!session) {
      return Promise.resolve(null);
    }
    return Promise.resolve({
      status: 'SUCCEEDED',
      processorReference: `iso_live_${input.paymentId}`,
      networkTransactionId: session.networkTransactionId,
      card: { bin: testCards.visaCredit.slice(0, 6), last4: testCards.visaCredit.slice(-4), scheme: 'VISA', cardType: 'CREDIT', issuer: 'Isolation Live Bank', expMonth: 12, expYear: new Date().getUTCFullYear() + 3 },
      token: session.saveCard ? `iso_live_token_${input.paymentId}` : null,
    });
  },
  cancelPayment() {
    return Promise.reject(new Error('the isolation seeding cancels nothing in live'));
  },
  chargeSaved() {
    return Promise.reject(new Error('the isolation seeding renews nothing in live'));
  },
  refund() {
    return Promise.reject(new Error('the isolation seeding refunds nothing in live'));
  },
  retrieveRefund() {
    return Promise.resolve(null);
  },
};

/** A's live subscription, payment, invoice, entitlement and fraud report, and with them live events and webhook deliveries. */
async function seedLivePaidObjects(context: TestContext, a: TestMerchant, seeded: Seeded): Promise<void> {
  const router = context.platform.services.cardProcessor;
  const installed = { ...router };
  Object.assign(router, createProcessorsByMode({ sandbox: { ...installed, name: installed.processorName(false) }, live: liveStandIn }));
  try {
    const page = await createPaymentPage(
      context,
      a,
      { clientReferenceId: 'iso-a-subscription-live', amount: 1500, currency: 'USD', subscription: { productId: 'iso-a-product-live', interval: 'MONTH' }, customer: { referenceId: 'iso-a-subscriber-live', email: 'iso-a-subscriber-live@example.com' } },
      '?livemode=true',
    );
    // The same service calls the live hosted checkout makes: open the processor's payment, then settle it on the customer's return.
    const session = await context.platform.services.paymentPages.openCheckoutSession(page.id);
    assert.ok(session.clientSecret);
    const paid = await context.platform.services.paymentPages.completeCheckout(page.id);
    const outcome = { outcome: paid.status, page: paid };
    assert.equal(outcome.outcome, 'PAID', JSON.stringify(outcome));
    assert.equal(outcome.page.livemode, true);
    harvest(seeded, outcome.page);
    own(seeded, 'payment', 'live', outcome.page.paymentId);
    own(seeded, 'subscription', 'live', outcome.page.subscriptionId);
    // A live refund of it, made while the live processor stands in (refunds need one).
    const refund = await context.request({ method: 'POST', url: '/v1/refunds?livemode=true', apiKey: a.apiKey, body: { paymentPageId: outcome.page.id, amount: 100 } });
    assert.equal(refund.statusCode, 200, refund.body);
    harvest(seeded, json(refund));
    own(seeded, 'refund', 'live', json<{ data: { id: string } }>(refund).data.id);
  } finally {
    Object.assign(router, installed);
  }
  const paymentId = String(seeded.owned.payment?.live);
  const subscriptionId = String(seeded.owned.subscription?.live);
  // The live fraud report comes from an operator import of a Visa issuer-fraud file, matched by the network transaction id.
  const [payment] = await queryRows<{ networkTransactionId: string; decidedAt: Date }>(context.database.db, sql`select network_transaction_id as "networkTransactionId", decided_at as "decidedAt" from payments where id = ${paymentId}`);
  assert.ok(payment, paymentId);
  const day = new Date(payment.decidedAt).toISOString().slice(0, 10);
  const csv = ['transaction_id,card_bin,card_last4,transaction_date,transaction_amount,transaction_currency,fraud_type,fraud_reported_date,fraud_amount,fraud_currency', `${payment.networkTransactionId},424242,4242,${day},15.00,USD,6,${day},,`].join('\n');
  const imported = await context.admin('POST', '/admin/v1/fraud_imports', { network: 'visa', livemode: true, csv });
  assert.equal(imported.statusCode, 200, imported.body);
  assert.deepEqual(json<{ data: { createdReports: Array<{ checkoutPaymentId: string }> } }>(imported).data.createdReports.map((row) => row.checkoutPaymentId), [paymentId], imported.body);
  // Positive controls: each live id is real and read by its owner in live.
  for (const url of [`/v1/subscriptions/${subscriptionId}?livemode=true`, `/v1/fraud_reports/${paymentId}?livemode=true`]) {
    const response = await context.request({ method: 'GET', url, apiKey: a.apiKey });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    harvest(seeded, json(response));
  }
  const subscription = await context.request({ method: 'GET', url: `/v1/subscriptions/${subscriptionId}?livemode=true`, apiKey: a.apiKey });
  assert.equal(json<{ data: { livemode?: boolean } }>(subscription).data.livemode, true, subscription.body);
}

/** A's disputes: in sandbox from the dispute test card; in live as a processor reports one (the Stripe webhook job's service call). */
async function seedDisputes(context: TestContext, a: TestMerchant, seeded: Seeded): Promise<void> {
  const page = await createPaymentPage(context, a, { clientReferenceId: 'iso-a-disputed', amount: 1200, customer: { referenceId: 'iso-a-disputer', email: 'iso-a-disputer@example.com' } });
  const paid = await context.request({ method: 'POST', url: `/v1/test_helpers/payment_pages/${page.id}/pay?livemode=false`, apiKey: a.apiKey, body: cardBody('4000000000000259') });
  assert.equal(paid.statusCode, 200, paid.body);
  context.clock.advance(5_000);
  await context.drainJobs();
  const listed = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}&livemode=false`, apiKey: a.apiKey });
  const [sandboxDispute] = json<{ data: { disputes: Array<{ id: string }> } }>(listed).data.disputes;
  assert.ok(sandboxDispute, listed.body);
  harvest(seeded, json(listed));
  own(seeded, 'dispute', 'sandbox', sandboxDispute.id);
  await context.admin('POST', `/admin/v1/merchants/${a.id}/balance/credit`, { amount: 100_000, currency: 'USD' });
  const live = await context.platform.services.disputes.applyReported({
    processor: 'isolation-live-stand-in',
    processorReference: 'iso_live_dispute',
    paymentId: String(seeded.owned.payment?.live),
    livemode: true,
    amount: 1500,
    currency: 'USD',
    reason: 'FRAUDULENT',
    status: 'NEEDS_RESPONSE',
    evidenceDueBy: null,
  });
  own(seeded, 'dispute', 'live', live.id);
  const read = await context.request({ method: 'GET', url: `/v1/disputes/${live.id}?livemode=true`, apiKey: a.apiKey });
  assert.equal(read.statusCode, 200, read.body);
  harvest(seeded, json(read));
}

/** Merchant A's objects of every kind the document's ids name, in sandbox and in live. */
export async function seedMerchantA(context: TestContext, a: TestMerchant): Promise<Seeded> {
  const seeded: Seeded = { owned: {}, secrets: new Set() };
  own(seeded, 'merchant', 'sandbox', a.id);
  own(seeded, 'merchant', 'live', a.id);
  await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: a.apiKey, body: { amount: 100_000_000, currency: 'USDC' } });
  await context.admin('POST', `/admin/v1/merchants/${a.id}/balance/credit`, { amount: 100_000_000, currency: 'USDC' });
  for (const mode of ['sandbox', 'live'] as const) {
    const livemode = mode === 'live';
    const customer = await createCustomer(context, a.apiKey, { ...completeKyc, referenceId: `iso-a-customer-${mode}`, email: `iso-a-${mode}@example.com` }, livemode);
    own(seeded, 'customer', mode, customer.id);
    const payout = await createPayoutPage(context, a, { clientReferenceId: `iso-a-payout-${mode}`, customer: { referenceId: `iso-a-payee-${mode}`, email: `iso-a-payee-${mode}@example.com` } }, `?livemode=${livemode}`);
    own(seeded, 'payoutPage', mode, payout.id);
    harvest(seeded, payout);
    const payment = await createPaymentPage(context, a, { clientReferenceId: `iso-a-payment-${mode}`, customer: { referenceId: `iso-a-buyer-${mode}`, email: `iso-a-buyer-${mode}@example.com` } }, `?livemode=${livemode}`);
    own(seeded, 'paymentPage', mode, payment.id);
    harvest(seeded, payment);
    // Live endpoints must be public (no SSRF in any default); nothing is delivered in this matrix.
    const endpoint = await createEndpoint(context, a, { url: livemode ? `https://iso-a-${mode}.example.com/hooks` : `http://127.0.0.1:9/iso-a-${mode}`, description: `iso-a-endpoint-${mode}` }, livemode);
    own(seeded, 'webhookEndpoint', mode, endpoint.id);
    seeded.secrets.add(endpoint.secret);
  }
  // Paid objects in sandbox: subscription, payment, entitlement, invoice, fraud report (test helper).
  const { page, subscription } = await startSubscription(context, a, { interval: 'MONTH', productId: 'iso-a-product', customerReferenceId: 'iso-a-subscriber' });
  harvest(seeded, page);
  harvest(seeded, subscription);
  own(seeded, 'subscription', 'sandbox', subscription.id);
  own(seeded, 'payment', 'sandbox', page.paymentId);
  const refund = await context.request({ method: 'POST', url: '/v1/refunds?livemode=false', apiKey: a.apiKey, body: { paymentPageId: page.id, amount: 100, reason: 'DUPLICATE' } });
  assert.equal(refund.statusCode, 200, refund.body);
  harvest(seeded, json(refund));
  own(seeded, 'refund', 'sandbox', json<{ data: { id: string } }>(refund).data.id);
  const report = await context.request({ method: 'POST', url: '/v1/test_helpers/fraud_reports?livemode=false', apiKey: a.apiKey, body: { paymentId: page.paymentId, fraudReason: 'iso-a-fraud' } });
  assert.equal(report.statusCode, 200, report.body);
  harvest(seeded, json(report));
  await seedLivePaidObjects(context, a, seeded);
  await seedDisputes(context, a, seeded);
  const key = json<{ data: Record<string, unknown> }>(await context.admin('POST', `/admin/v1/merchants/${a.id}/api_keys`, {})).data;
  own(seeded, 'apiKey', 'live', (key.apiKey as { id?: string } | undefined)?.id ?? key.id);
  own(seeded, 'apiKey', 'sandbox', (key.apiKey as { id?: string } | undefined)?.id ?? key.id);
  await context.drainJobs();
  const rows = await queryRows<{ kind: string; id: string; livemode: boolean }>(
    context.database.db,
    sql`select 'event' as kind, id, livemode from events where merchant_id = ${a.id}
        union all select 'webhookDelivery', d.id, d.livemode from webhook_deliveries d where d.merchant_id = ${a.id}
        union all select 'entitlement', id, livemode from entitlements where merchant_id = ${a.id}
        union all select 'invoice', id, livemode from invoices where merchant_id = ${a.id}`,
  );
  for (const row of rows) {
    own(seeded, row.kind as IdKind, row.livemode ? 'live' : 'sandbox', row.id);
  }
  for (const row of rows) {
    seeded.secrets.add(row.id);
  }
  seeded.secrets.add(a.apiKey);
  return seeded;
}
