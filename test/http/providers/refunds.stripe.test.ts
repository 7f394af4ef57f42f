import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import Stripe from 'stripe';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { closeStripeSuite, deliverStripeEvent, openStripeSuite, paidStripePage, stripeEventPayload, stripeSignature, type StripeSuite } from '../../helpers/stripe.ts';
import { ledgerMovements, refundEvents, type RefundBody } from '../../helpers/refunds.ts';
import type { StripeReplica } from '../../providers/stripe/replica.ts';

const webhookSecret = 'whsec_replica_0123456789';
const secretKey = 'sk_live_replica';

/** Live refunds through Stripe: the official package pointed at the replica, Stripe's refund webhooks verified and handled in jobs. */
describe('Stripe refunds (replica)', () => {
  let suite: StripeSuite;
  let replica: StripeReplica;
  let context: TestContext;
  let merchant: TestMerchant;
  let eventCounter = 0;

  before(async () => {
    suite = await openStripeSuite({ secretKey, webhookSecret });
    ({ replica, context, merchant } = suite);
  });
  after(async () => closeStripeSuite(suite));

  const envelope = <T extends Stripe.Event>(type: T['type'], object: T['data']['object']) => stripeEventPayload<T>(type, object, `evt_refund_${(eventCounter += 1)}`, true);

  const deliver = (payload: string) => deliverStripeEvent(context, payload, stripeSignature(payload, webhookSecret));

  const paidLivePage = (amount: number, card: string) => paidStripePage(suite, amount, card);

  async function refund(body: Record<string, unknown>): Promise<RefundBody> {
    const response = await context.request({ method: 'POST', url: '/v1/refunds?livemode=true', apiKey: merchant.apiKey, body });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: RefundBody }>(response).data;
  }

  async function read(refundId: string): Promise<RefundBody> {
    return json<{ data: RefundBody }>(await context.request({ method: 'GET', url: `/v1/refunds/${refundId}`, apiKey: merchant.apiKey })).data;
  }

  function stripeRefundOf(refundId: string): Stripe.Refund {
    const found = [...replica.refunds.values()].filter((candidate) => candidate.metadata?.['paysail_refund_id'] === refundId);
    assert.equal(found.length, 1, `one Stripe refund for ${refundId}`);
    const [only] = found;
    assert.ok(only);
    return only;
  }

  test('a live payment credits the live balance; a refund is made in Stripe with our refund id as idempotency key and settles from charge.refunded', async () => {
    const before = await balanceOf(context.database, merchant.id, true, 'USD');
    const page = await paidLivePage(4000, '4242424242424242');
    assert.equal((await balanceOf(context.database, merchant.id, true, 'USD')).available, before.available + 4000);

    const made = await refund({ paymentPageId: page.pageId, amount: 1500, reason: 'DUPLICATE' });
    assert.equal(made.livemode, true);
    await context.drainJobs();
    const stripeRefund = stripeRefundOf(made.id);
    assert.equal(stripeRefund.amount, 1500);
    assert.equal(stripeRefund.payment_intent, page.intentId);
    const creates = replica.requests.filter((request) => request.method === 'POST' && request.path === '/v1/refunds' && request.idempotencyKey === `paysail:refund:${made.id}`);
    assert.equal(creates.length, 1, 'created once, idempotent on our refund id');
    assert.equal((await read(made.id)).status, 'PENDING', 'Stripe says pending');

    replica.updateRefund(stripeRefund.id, 'succeeded');
    const state = replica.intents.get(page.intentId);
    assert.ok(state?.charge);
    const response = await deliver(envelope<Stripe.ChargeRefundedEvent>('charge.refunded', state.charge));
    assert.equal(response.statusCode, 200, response.body);
    const listed = replica.requests.length;
    await context.drainJobs();
    assert.ok(replica.requests.slice(listed).some((request) => request.method === 'GET' && request.path === '/v1/refunds'), 'fetched from Stripe before acting');
    const settled = await read(made.id);
    assert.equal(settled.status, 'SUCCEEDED');
    assert.deepEqual(await refundEvents(context, made.id), [{ type: 'PAYMENT_REFUNDED', data: { ...settled, clientReferenceId: page.clientReferenceId } }]);
    assert.equal((await balanceOf(context.database, merchant.id, true, 'USD')).available, before.available + 2500);

    // A replayed or late event changes nothing.
    await deliver(envelope<Stripe.RefundUpdatedEvent>('refund.updated', stripeRefundOf(made.id)));
    await context.drainJobs();
    assert.equal((await refundEvents(context, made.id)).length, 1);
  });

  test('card 4000000000005126: the refund succeeds, then refund.updated reports it failed → FAILED, REFUND_FAILED, money and amount back', async () => {
    const page = await paidLivePage(2000, '4000000000005126');
    const credited = await balanceOf(context.database, merchant.id, true, 'USD');
    const made = await refund({ paymentPageId: page.pageId });
    await context.drainJobs();
    assert.equal((await read(made.id)).status, 'SUCCEEDED', 'Stripe answered succeeded');
    context.clock.advance(60_000);
    const failed = replica.updateRefund(stripeRefundOf(made.id).id, 'failed');
    // Forged data in the event is never trusted: the job reads the refund from Stripe.
    const response = await deliver(envelope<Stripe.RefundUpdatedEvent>('refund.updated', { ...failed, amount: 1 }));
    assert.equal(response.statusCode, 200, response.body);
    await context.drainJobs();
    const after = await read(made.id);
    assert.equal(after.status, 'FAILED');
    assert.equal(after.failureReason, 'expired_or_canceled_card');
    assert.deepEqual((await refundEvents(context, made.id)).map((event) => event.type), ['PAYMENT_REFUNDED', 'REFUND_FAILED']);
    const page2 = json<{ data: { refundedAmount: number } }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.pageId}`, apiKey: merchant.apiKey })).data;
    assert.equal(page2.refundedAmount, 0);
    assert.equal((await balanceOf(context.database, merchant.id, true, 'USD')).available, credited.available);
    assert.deepEqual(await ledgerMovements(context, made.id), [{ kind: 'refund', currency: 'USD' }, { kind: 'refund_failed', currency: 'USD' }]);
  });

  test('a lost answer to refunds.create is settled by looking the refund up: Stripe holds one refund', async () => {
    const page = await paidLivePage(1200, '4242424242424242');
    const made = await refund({ paymentPageId: page.pageId, amount: 200 });
    // Every answer to the create is lost (the package's own retries too): the job fails and is retried.
    replica.loseAnswers('/v1/refunds', 3);
    await context.drainJobs();
    assert.equal(stripeRefundOf(made.id).amount, 200, 'Stripe received it');
    const createsBefore = replica.requests.filter((request) => request.method === 'POST' && request.path === '/v1/refunds').length;
    context.clock.advance(10 * 60_000);
    await context.drainJobs();
    const createsAfter = replica.requests.filter((request) => request.method === 'POST' && request.path === '/v1/refunds').length;
    assert.equal(createsAfter, createsBefore, 'the retry looked it up instead of creating it again');
    stripeRefundOf(made.id);
    assert.equal((await read(made.id)).status, 'PENDING', 'pending at Stripe');
    replica.updateRefund(stripeRefundOf(made.id).id, 'succeeded');
    await deliver(envelope<Stripe.RefundUpdatedEvent>('refund.updated', stripeRefundOf(made.id)));
    await context.drainJobs();
    assert.equal((await read(made.id)).status, 'SUCCEEDED');
  });

  function createsOf(refundId: string): number {
    return replica.requests.filter((request) => request.method === 'POST' && request.path === '/v1/refunds' && request.idempotencyKey === `paysail:refund:${refundId}`).length;
  }

  test('a refund Stripe refuses outright (HTTP 400: already refunded there) → FAILED with its reason, REFUND_FAILED, amount and money back, never asked again', async () => {
    const page = await paidLivePage(3000, '4242424242424242');
    const credited = await balanceOf(context.database, merchant.id, true, 'USD');
    // The whole charge is refunded in Stripe's own dashboard, outside Paysail.
    const url = new URL(replica.url);
    const outside = new Stripe(secretKey, { host: url.hostname, port: Number(url.port), protocol: 'http', maxNetworkRetries: 0 });
    await outside.refunds.create({ payment_intent: page.intentId });

    const made = await refund({ paymentPageId: page.pageId, amount: 1000 });
    assert.equal(made.status, 'PENDING');
    context.clock.advance(1_000);
    await context.drainJobs();
    const failed = await read(made.id);
    assert.equal(failed.status, 'FAILED');
    assert.equal(failed.failureReason, 'amount_too_large', "Stripe's error code");
    assert.deepEqual(await refundEvents(context, made.id), [{ type: 'REFUND_FAILED', data: { ...failed, clientReferenceId: page.clientReferenceId } }]);
    assert.deepEqual(await ledgerMovements(context, made.id), [{ kind: 'refund', currency: 'USD' }, { kind: 'refund_failed', currency: 'USD' }]);
    assert.equal((await balanceOf(context.database, merchant.id, true, 'USD')).available, credited.available, 'the debit is reversed');
    const readPage = json<{ data: { refundedAmount: number } }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${page.pageId}`, apiKey: merchant.apiKey })).data;
    assert.equal(readPage.refundedAmount, 0);
    assert.equal(createsOf(made.id), 1, 'a refusal is final: not submitted again');

    context.clock.advance(60 * 60_000);
    await context.drainJobs();
    assert.equal(createsOf(made.id), 1);
    assert.equal((await refundEvents(context, made.id)).length, 1);
  });

  test('an unknown outcome (Stripe answers 500) stays PENDING and is looked up by our id before it is made once', async () => {
    const page = await paidLivePage(1500, '4242424242424242');
    const made = await refund({ paymentPageId: page.pageId, amount: 500 });
    // The first attempt and the package's own two retries all get 500.
    replica.failRequests('/v1/refunds', 3);
    await context.drainJobs();
    assert.equal(createsOf(made.id), 3, 'asked three times with the same key');
    const pending = await read(made.id);
    assert.equal(pending.status, 'PENDING', 'a 500 is not a refusal');
    assert.equal(pending.failureReason, undefined);
    assert.deepEqual(await refundEvents(context, made.id), []);
    assert.deepEqual(await ledgerMovements(context, made.id), [{ kind: 'refund', currency: 'USD' }]);
    assert.equal([...replica.refunds.values()].filter((candidate) => candidate.metadata?.['paysail_refund_id'] === made.id).length, 0, 'Stripe made nothing');

    const before = replica.requests.length;
    context.clock.advance(10 * 60_000);
    await context.drainJobs();
    const retry = replica.requests.slice(before);
    const lookup = retry.findIndex((request) => request.method === 'GET' && request.path === '/v1/refunds');
    const create = retry.findIndex((request) => request.method === 'POST' && request.path === '/v1/refunds');
    assert.ok(lookup >= 0 && create > lookup, 'looked up by our id before it was made');
    assert.equal(stripeRefundOf(made.id).amount, 500);
    assert.equal((await read(made.id)).status, 'PENDING', 'pending at Stripe');
  });
});
