import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createStripeCardProcessor, createStripeClient, paymentStateOf, stripeBrandSchemes, stripeFundingTypes, stripeIntentStates, stripeRefundStates } from '../../../src/modules/card-processor/stripe.ts';
import type { CardProcessor } from '../../../src/modules/card-processor/types.ts';
import { startStripeReplica, type StripeReplica } from '../../providers/stripe/replica.ts';

/** The Stripe adapter, exactly as it runs in live, with the official package pointed at the replica. */
describe('the Stripe card processor adapter (against the Stripe replica)', () => {
  let replica: StripeReplica;
  let processor: CardProcessor;
  let counter = 0;
  const paymentId = () => `pay_stripe${String((counter += 1)).padStart(30, '0')}`;
  const intentOf = (id: string) => [...replica.intents.values()].filter((state) => state.intent.metadata['paysail_payment_id'] === id);

  before(async () => {
    replica = await startStripeReplica();
    processor = createStripeCardProcessor(createStripeClient({ secretKey: 'sk_test_replica', apiUrl: replica.url }));
  });
  after(async () => replica.close());

  test('a session is one PaymentIntent per payment id (idempotency key from our id), restricted to cards; PENDING until confirmed', async () => {
    const id = paymentId();
    const first = await processor.createPayment({ paymentId: id, livemode: true, amount: 2500, currency: 'EUR', saveCard: false });
    const again = await processor.createPayment({ paymentId: id, livemode: true, amount: 2500, currency: 'EUR', saveCard: false });
    assert.deepEqual(again, first);
    assert.match(first.processorReference, /^pi_/);
    assert.equal(first.clientSecret, `${first.processorReference}_secret_${first.processorReference.slice(-8)}`);
    const [state] = intentOf(id);
    assert.equal(intentOf(id).length, 1);
    assert.equal(state?.intent.currency, 'eur');
    assert.deepEqual(state?.intent.allowed_payment_method_types, ['card']);
    assert.equal(state?.intent.setup_future_usage, null);
    assert.deepEqual(new Set(replica.requests.filter((request) => request.path === '/v1/payment_intents').map((request) => request.idempotencyKey)).has(`paysail:payment:${id}`), true);
    assert.deepEqual(await processor.retrievePayment({ paymentId: id, livemode: true }), { status: 'PENDING', processorReference: first.processorReference });
    // Search lags behind Stripe's writes: a miss says nothing (UNKNOWN), never "not received".
    assert.deepEqual(await processor.retrievePayment({ paymentId: paymentId(), livemode: true }), { status: 'UNKNOWN' });
    // By the id Stripe gave us the lookup is direct.
    assert.deepEqual(await processor.retrievePayment({ paymentId: id, livemode: true, processorReference: first.processorReference }), { status: 'PENDING', processorReference: first.processorReference });
    // A session read back by its id (a page outlives Stripe's 24-hour idempotency keys) is the same session, not a new intent.
    assert.deepEqual(await processor.createPayment({ paymentId: id, livemode: true, amount: 2500, currency: 'EUR', saveCard: false, processorReference: first.processorReference }), first);
  });

  test('a cancel Stripe refuses (the intent is processing) answers PENDING, never DECLINED; once processing ends the cancel answers the real state', async () => {
    const id = paymentId();
    const session = await processor.createPayment({ paymentId: id, livemode: true, amount: 300, currency: 'USD', saveCard: false });
    replica.startProcessing(session.processorReference, '4242424242424242');
    assert.deepEqual(await processor.cancelPayment({ paymentId: id, livemode: true, processorReference: session.processorReference }), { status: 'PENDING', processorReference: session.processorReference });
    replica.finishProcessing(session.processorReference);
    assert.equal((await processor.cancelPayment({ paymentId: id, livemode: true, processorReference: session.processorReference })).status, 'SUCCEEDED');

    const unseen = paymentId();
    replica.lagSearch(true);
    const lagging = await processor.createPayment({ paymentId: unseen, livemode: true, amount: 300, currency: 'USD', saveCard: false });
    assert.deepEqual(await processor.cancelPayment({ paymentId: unseen, livemode: true }), { status: 'UNKNOWN' }, 'not found by a lagging search: nothing concluded, nothing canceled');
    assert.equal(replica.intents.get(lagging.processorReference)?.intent.status, 'requires_payment_method');
    replica.indexSearch();
    replica.lagSearch(false);
    const canceled = await processor.cancelPayment({ paymentId: unseen, livemode: true });
    assert.equal(canceled.status === 'DECLINED' && canceled.declineReason, 'canceled');
  });

  test('confirmed: SUCCEEDED with scheme, last4, BIN, type, issuer and network transaction id from the charge; a saved card becomes a customer/PaymentMethod token', async () => {
    const id = paymentId();
    const session = await processor.createPayment({ paymentId: id, livemode: true, amount: 900, currency: 'USD', saveCard: true });
    const [state] = intentOf(id);
    assert.match(String(state?.intent.customer), /^cus_/);
    assert.equal(state?.intent.setup_future_usage, 'off_session');
    replica.confirm(session.processorReference, '5555555555554444');
    const result = await processor.retrievePayment({ paymentId: id, livemode: true });
    assert.ok(result && result.status === 'SUCCEEDED');
    assert.deepEqual(result.card, { bin: '555555', last4: '4444', scheme: 'MASTERCARD', cardType: 'CREDIT', issuer: 'Stripe Test Bank', expMonth: 12, expYear: 2034 });
    assert.match(result.networkTransactionId, /^\d{15}$/);
    assert.equal(result.processorReference, session.processorReference);
    assert.match(String(result.token), /^cus_[0-9a-f]+\/pm_[0-9a-f]+$/);

    // Renewals: off-session on the saved card (success), then declines and authentication required.
    const renewal = await processor.chargeSaved({ paymentId: paymentId(), livemode: true, amount: 900, currency: 'USD', token: String(result.token) });
    assert.equal(renewal.status, 'SUCCEEDED');
    assert.equal(renewal.status === 'SUCCEEDED' && renewal.token, null);
    const renewalId = paymentId();
    const retried = await processor.chargeSaved({ paymentId: renewalId, livemode: true, amount: 900, currency: 'USD', token: String(result.token) });
    assert.deepEqual(await processor.chargeSaved({ paymentId: renewalId, livemode: true, amount: 900, currency: 'USD', token: String(result.token) }), retried, 'a retry is the same charge');
    assert.equal(intentOf(renewalId).length, 1);
    assert.deepEqual(await processor.chargeSaved({ paymentId: paymentId(), livemode: true, amount: 900, currency: 'USD', token: 'not-a-token' }), { status: 'DECLINED', declineReason: 'invalid_token', card: null });
  });

  test('off-session renewals: a decline and a card that needs authentication both fail like a decline', async () => {
    const id = paymentId();
    const session = await processor.createPayment({ paymentId: id, livemode: true, amount: 700, currency: 'USD', saveCard: true });
    replica.confirm(session.processorReference, '4242424242424242');
    const first = await processor.retrievePayment({ paymentId: id, livemode: true });
    assert.ok(first && first.status === 'SUCCEEDED' && first.token);
    const [customer] = first.token.split('/');
    for (const [number, reason] of [['4000000000009995', 'insufficient_funds'], ['4000002760003184', 'authentication_required']] as const) {
      const renewalId = paymentId();
      const renewal = await processor.chargeSaved({ paymentId: renewalId, livemode: true, amount: 700, currency: 'USD', token: `${customer}/${replica.paymentMethod(number)}` });
      assert.deepEqual(renewal, { status: 'DECLINED', declineReason: reason, card: null }, number);
      assert.equal(intentOf(renewalId)[0]?.intent.status, 'requires_payment_method', 'the intent stays open for the customer to pay on-session');
    }
  });

  test('declines and 3-D Secure: a declined or failed challenge leaves the intent open; cancel settles it DECLINED, never guessed', async () => {
    const declined = paymentId();
    const declinedSession = await processor.createPayment({ paymentId: declined, livemode: true, amount: 100, currency: 'USD', saveCard: false });
    replica.confirm(declinedSession.processorReference, '4000000000000002');
    assert.deepEqual(await processor.retrievePayment({ paymentId: declined, livemode: true }), { status: 'PENDING', processorReference: declinedSession.processorReference, declineReason: 'generic_decline' }, 'still open for another card, with the decline of the last try');
    const canceled = await processor.cancelPayment({ paymentId: declined, livemode: true });
    assert.equal(canceled.status === 'DECLINED' && canceled.declineReason, 'generic_decline');
    assert.equal(canceled.status === 'DECLINED' && canceled.card?.last4, '0002');

    const challenged = paymentId();
    const challengeSession = await processor.createPayment({ paymentId: challenged, livemode: true, amount: 100, currency: 'USD', saveCard: false });
    replica.confirm(challengeSession.processorReference, '4000000000003220', { passChallenge: false });
    assert.equal((await processor.retrievePayment({ paymentId: challenged, livemode: true }))?.status, 'PENDING');
    replica.confirm(challengeSession.processorReference, '4000000000003220', { passChallenge: true });
    assert.equal((await processor.retrievePayment({ paymentId: challenged, livemode: true }))?.status, 'SUCCEEDED');
    // Cancel after success: Stripe refuses, the adapter answers what the payment is.
    assert.equal((await processor.cancelPayment({ paymentId: challenged, livemode: true })).status, 'SUCCEEDED');
  });

  test('a lost answer to paymentIntents.create: retried with the same key, then looked up by our id — one PaymentIntent, never two', async () => {
    const id = paymentId();
    replica.loseAnswers('/v1/payment_intents', 3);
    await assert.rejects(processor.createPayment({ paymentId: id, livemode: true, amount: 4200, currency: 'USD', saveCard: false }));
    const attempts = replica.requests.filter((request) => request.path === '/v1/payment_intents' && request.idempotencyKey === `paysail:payment:${id}`);
    assert.equal(attempts.length, 3, 'the package retried with the same idempotency key');
    assert.equal(intentOf(id).length, 1, 'one PaymentIntent for three requests');
    const found = await processor.retrievePayment({ paymentId: id, livemode: true });
    assert.equal(found?.status, 'PENDING');
    const again = await processor.createPayment({ paymentId: id, livemode: true, amount: 4200, currency: 'USD', saveCard: false });
    assert.equal(again.processorReference, intentOf(id)[0]?.intent.id);
    assert.equal(intentOf(id).length, 1);
  });

  test('refunds: idempotent on our refund id, never above the payment (a refusal is FAILED, a 500 thrown), found again by our id', async () => {
    const id = paymentId();
    const session = await processor.createPayment({ paymentId: id, livemode: true, amount: 1000, currency: 'USD', saveCard: false });
    replica.confirm(session.processorReference, '4242424242424242');
    const refund = await processor.refund({ refundId: 're_ours_1', paymentId: id, livemode: true, amount: 600 });
    assert.equal(refund.status, 'PENDING');
    assert.deepEqual(await processor.refund({ refundId: 're_ours_1', paymentId: id, livemode: true, amount: 600 }), refund);
    assert.equal([...replica.refunds.values()].filter((entry) => entry.metadata?.['paysail_refund_id'] === 're_ours_1').length, 1);
    // Refused outright (HTTP 400): final, Stripe holds no refund of ours.
    assert.deepEqual(await processor.refund({ refundId: 're_ours_2', paymentId: id, livemode: true, amount: 401 }), { status: 'FAILED', processorReference: null, failureReason: 'amount_too_large' });
    // An unknown outcome (500 on every try) is thrown, to be looked up later.
    replica.failRequests('/v1/refunds', 3);
    await assert.rejects(processor.refund({ refundId: 're_ours_3', paymentId: id, livemode: true, amount: 100 }), /StripeAPIError \(HTTP 500\)/);
    assert.deepEqual(await processor.retrieveRefund({ refundId: 're_ours_1', paymentId: id, livemode: true }), refund);
    assert.equal(await processor.retrieveRefund({ refundId: 're_ours_2', paymentId: id, livemode: true }), null);
    assert.equal(await processor.retrieveRefund({ refundId: 're_ours_3', paymentId: id, livemode: true }), null);
  });

  test('status tables: every Stripe status maps to ours', () => {
    assert.deepEqual(stripeIntentStates, { succeeded: 'SUCCEEDED', canceled: 'DECLINED', requires_payment_method: 'PENDING', requires_confirmation: 'PENDING', requires_action: 'PENDING', processing: 'PENDING', requires_capture: 'PENDING' });
    assert.deepEqual(stripeRefundStates, { pending: 'PENDING', requires_action: 'PENDING', succeeded: 'SUCCEEDED', failed: 'FAILED', canceled: 'FAILED' });
    assert.deepEqual(Object.values(stripeBrandSchemes), ['VISA', 'MASTERCARD', 'AMEX', 'DISCOVER', 'JCB', 'DINERS', 'UNIONPAY']);
    assert.deepEqual(stripeFundingTypes, { credit: 'CREDIT', debit: 'DEBIT', prepaid: 'PREPAID' });
    const [state] = [...replica.intents.values()];
    assert.ok(state);
    assert.equal(paymentStateOf({ ...state.intent, status: 'processing' }).status, 'PENDING');
    assert.equal(paymentStateOf({ ...state.intent, status: 'canceled', last_payment_error: null }).status === 'DECLINED' && 'canceled', 'canceled');
  });
});
