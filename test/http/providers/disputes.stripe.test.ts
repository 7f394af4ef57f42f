import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { closeStripeSuite, deliverStripeEvent, openStripeSuite, paidStripePage, stripeEventJobs, type StripeSuite } from '../../helpers/stripe.ts';
import { createEndpoint, deliveriesOf } from '../../helpers/webhooks.ts';
import type { StripeReplica } from '../../providers/stripe/replica.ts';
import { signedInClient } from '../dashboard/client.ts';

const webhookSecret = 'whsec_replica_disputes_0123';
const secretKey = 'sk_live_replica_disputes';

interface Dispute {
  id: string;
  paymentPageId: string | null;
  paymentId: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  evidenceDueBy: number | null;
  livemode: boolean;
}

/** Live disputes and early fraud warnings through Stripe: signed webhooks → jobs → the object fetched from the replica → our records. */
describe('Stripe disputes and early fraud warnings (replica)', () => {
  let suite: StripeSuite;
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    suite = await openStripeSuite({ secretKey, webhookSecret });
    ({ replica, context, merchant } = suite);
    // The live balance the disputes take from (funds received earlier).
    const credited = await context.admin('POST', `/admin/v1/merchants/${merchant.id}/balance/credit`, { currency: 'USD', amount: 1_000_000 });
    assert.equal(credited.statusCode, 200, credited.body);
  });
  after(async () => closeStripeSuite(suite));

  const paidIntent = (card: string, amount: number, settle = true) => paidStripePage(suite, amount, card, settle);

  const deliver = (event: { payload: string; signature: string }) => deliverStripeEvent(context, event.payload, event.signature);

  async function deliverAndRun(event: { payload: string; signature: string }): Promise<void> {
    const response = await deliver(event);
    assert.equal(response.statusCode, 200, response.body);
    await context.drainJobs();
  }

  async function availableUsd(): Promise<number> {
    const response = await context.request({ method: 'GET', url: '/v1/balance?livemode=true', apiKey: merchant.apiKey });
    const usd = json<{ data: Array<{ currency: string; available: number }> }>(response).data.find((balance) => balance.currency === 'USD');
    assert.ok(usd);
    return usd.available;
  }

  async function disputesOf(pageId: string): Promise<Dispute[]> {
    const response = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${pageId}&livemode=true`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: { disputes: Dispute[] } }>(response).data.disputes;
  }

  async function movements(disputeId: string): Promise<string[]> {
    const rows = await queryRows<{ kind: string }>(context.database.db, sql`select kind from ledger_transactions where reference = ${disputeId} order by kind`);
    return rows.map((row) => row.kind);
  }

  async function eventTypes(disputeId: string): Promise<string[]> {
    const rows = await queryRows<{ type: string }>(context.database.db, sql`select type from events where data->>'id' = ${disputeId} order by type`);
    return rows.map((row) => row.type);
  }

  test('created → updated → closed won: debit once, return once, the dispute fetched from Stripe each time; a replay is recorded once', async () => {
    const paid = await paidIntent('4000000000000259', 5_000);
    const before = await availableUsd();
    const opened = replica.dispute(paid.intentId, { reason: 'product_not_received' });
    const created = replica.signedEvent('charge.dispute.created', opened, webhookSecret);
    await deliverAndRun(created);
    assert.equal((await deliver(created)).statusCode, 200, 'a replay is acknowledged');
    assert.equal(await stripeEventJobs(context, created.id), 1, 'and recorded once');
    await context.drainJobs();
    assert.ok(replica.requests.some((request) => request.method === 'GET' && request.path === `/v1/disputes/${opened.id}`), 'the dispute was fetched before acting');

    const [dispute, ...more] = await disputesOf(paid.pageId);
    assert.ok(dispute);
    assert.equal(more.length, 0);
    assert.deepEqual(
      { paymentPageId: dispute.paymentPageId, paymentId: dispute.paymentId, amount: dispute.amount, currency: dispute.currency, reason: dispute.reason, status: dispute.status, livemode: dispute.livemode, evidenceDueBy: dispute.evidenceDueBy },
      { paymentPageId: paid.pageId, paymentId: paid.paymentId, amount: 5_000, currency: 'USD', reason: 'PRODUCT_NOT_RECEIVED', status: 'NEEDS_RESPONSE', livemode: true, evidenceDueBy: (opened.evidence_details.due_by ?? 0) * 1000 },
    );
    assert.equal(await availableUsd(), before - 5_000);

    await deliverAndRun(replica.signedEvent('charge.dispute.updated', replica.setDisputeStatus(opened.id, 'under_review'), webhookSecret));
    assert.equal((await disputesOf(paid.pageId))[0]?.status, 'UNDER_REVIEW');
    assert.equal(await availableUsd(), before - 5_000, 'under review moves no money');

    await deliverAndRun(replica.signedEvent('charge.dispute.closed', replica.setDisputeStatus(opened.id, 'won'), webhookSecret));
    assert.equal((await disputesOf(paid.pageId))[0]?.status, 'WON');
    assert.equal(await availableUsd(), before, 'won: the amount is back');
    // A late `updated` event (Stripe says won now) changes nothing.
    await deliverAndRun(replica.signedEvent('charge.dispute.updated', opened, webhookSecret));
    assert.equal((await disputesOf(paid.pageId))[0]?.status, 'WON');
    assert.deepEqual(await movements(dispute.id), ['dispute', 'dispute_won']);
    assert.deepEqual(await eventTypes(dispute.id), ['DISPUTE_CLOSED', 'DISPUTE_CREATED']);
    assert.equal(await availableUsd(), before);
  });

  test('out of order: `closed` (lost) arrives before `created`, on a payment whose own webhook has not come: settled, debited once, LOST; the late `created` changes nothing', async () => {
    const paid = await paidIntent('4000000000000259', 2_500, false);
    const before = await availableUsd();
    const opened = replica.dispute(paid.intentId);
    const createdEvent = replica.signedEvent('charge.dispute.created', opened, webhookSecret);
    await deliverAndRun(replica.signedEvent('charge.dispute.closed', replica.setDisputeStatus(opened.id, 'lost'), webhookSecret));
    const [dispute] = await disputesOf(paid.pageId);
    assert.ok(dispute);
    assert.equal(dispute.status, 'LOST');
    assert.equal(dispute.reason, 'FRAUDULENT');
    const page = await context.request({ method: 'GET', url: `/v1/payment_pages/${paid.pageId}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { status: string } }>(page).data.status, 'PAID', 'the payment was settled from Stripe first');
    await deliverAndRun(createdEvent);
    assert.equal((await disputesOf(paid.pageId))[0]?.status, 'LOST');
    assert.deepEqual(await movements(dispute.id), ['dispute']);
    assert.deepEqual(await eventTypes(dispute.id), ['DISPUTE_CLOSED', 'DISPUTE_CREATED']);
    // Settling the payment credited 2,500 (it was still unsettled when `before` was read); the lost
    // dispute took them: the balance is back where it was, with both movements recorded once.
    assert.equal(await availableUsd(), before + 2_500 - 2_500, 'lost: the amount stays taken');
  });

  test('a wrong or stale signature answers 400 and records nothing', async () => {
    const paid = await paidIntent('4242424242424242', 1_000);
    const opened = replica.dispute(paid.intentId);
    const good = replica.signedEvent('charge.dispute.created', opened, webhookSecret);
    for (const forged of [
      replica.signedEvent('charge.dispute.created', opened, 'whsec_someone_else', { id: good.id }),
      replica.signedEvent('charge.dispute.created', opened, webhookSecret, { id: good.id, timestamp: Math.floor(Date.now() / 1000) - 3600 }),
      { payload: good.payload.replace('"livemode":false', '"livemode":true'), signature: good.signature },
    ]) {
      const response = await deliver(forged);
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<{ errorCode: string }>(response).errorCode, 'WRONG_PARAMETER');
    }
    assert.equal(await stripeEventJobs(context, good.id), 0);
    await context.drainJobs();
    assert.deepEqual(await disputesOf(paid.pageId), []);
  });

  test('an early fraud warning becomes ONE fraud report (network from the card brand, fraudType = fraud_type) and ONE FRAUD_REPORTED webhook; a second warning changes nothing', async () => {
    const enabled = await context.admin('POST', `/admin/v1/merchants/${merchant.id}/settings`, { fraudReportWebhooksEnabled: true });
    assert.equal(enabled.statusCode, 200, enabled.body);
    const endpoint = await createEndpoint(context, merchant, { url: 'https://hooks.example.com/fraud', enabledEvents: ['FRAUD_REPORTED'] }, true);
    const paid = await paidIntent('5555555555554444', 3_300);
    const warning = replica.earlyFraudWarning(paid.intentId, 'made_with_stolen_card');
    await deliverAndRun(replica.signedEvent('radar.early_fraud_warning.created', warning, webhookSecret));
    assert.ok(replica.requests.some((request) => request.method === 'GET' && request.path === `/v1/radar/early_fraud_warnings/${warning.id}`), 'the warning was fetched before acting');

    const response = await context.request({ method: 'GET', url: `/v1/fraud_reports/${paid.paymentId}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    const report = json<{ data: { checkoutFraudReport: Record<string, unknown> } }>(response).data.checkoutFraudReport;
    assert.equal(report['network'], 'MASTERCARD');
    assert.equal(report['fraudType'], 'made_with_stolen_card');
    assert.equal(report['fraudReason'], 'Stolen card');
    assert.equal(report['fraudAmountUSD'], '33.00');
    assert.equal(report['cardNumber'], '555555******4444');

    // The same warning updated, and a second warning on the same payment: still one report.
    await deliverAndRun(replica.signedEvent('radar.early_fraud_warning.updated', warning, webhookSecret));
    await deliverAndRun(replica.signedEvent('radar.early_fraud_warning.created', replica.earlyFraudWarning(paid.intentId, 'misc'), webhookSecret));
    const reports = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from fraud_reports where payment_id = ${paid.paymentId}`);
    assert.equal(reports[0]?.count, 1);
    const events = await queryRows<{ id: string; data: Record<string, unknown> }>(context.database.db, sql`select id, data from events where type = 'FRAUD_REPORTED' and data->>'fraudReportId' = ${paid.paymentId}`);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, { pageId: paid.pageId, clientReferenceId: paid.clientReferenceId, fraudReportId: paid.paymentId, fraudReason: 'Stolen card' });
    const deliveries = await deliveriesOf(context, merchant, `eventId=${events[0]?.id}&livemode=true`);
    assert.deepEqual(deliveries.map((delivery) => delivery.endpointId), [endpoint.id], 'one FRAUD_REPORTED webhook, to the subscribed endpoint');
  });
  test("the dashboard links a live dispute and its payment to Stripe's dashboard", async () => {
    const paid = await paidIntent('4000000000000259', 1_800);
    const opened = replica.dispute(paid.intentId);
    await deliverAndRun(replica.signedEvent('charge.dispute.created', opened, webhookSecret));
    const client = await signedInClient(context, merchant);
    const list = await client.get('/dashboard/live/disputes');
    assert.equal(list.statusCode, 200);
    assert.ok(list.body.includes(`href="https://dashboard.stripe.com/disputes/${opened.id}"`), 'the dispute links to Stripe');
    assert.ok(list.body.includes(`href="https://dashboard.stripe.com/payments/${paid.intentId}"`), 'its payment links to Stripe');
    const detail = await client.get(`/dashboard/live/payment-pages/${paid.pageId}`);
    assert.equal(detail.statusCode, 200);
    assert.ok(detail.body.includes(`href="https://dashboard.stripe.com/disputes/${opened.id}"`));
    assert.ok(detail.body.includes(`href="https://dashboard.stripe.com/payments/${paid.intentId}"`), 'the card payment links to Stripe');
  });
});
