import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHash } from 'node:crypto';
import Stripe from 'stripe';
import { chargeObject, customerObject, disputeObject, earlyFraudWarningObject, paymentIntentObject, refundObject, stripeTestCards, type TestCard } from './objects.ts';
import { createStripeBrowserSide } from './stand-in.ts';
import type { IntentState, StripeReplica } from './replica-api.ts';
import { parseForm, record, text, type Form } from './wire.ts';

export type { StripeReplica } from './replica-api.ts';

/**
 * A replica of the Stripe API for exactly the calls the adapter makes (customers, PaymentIntents:
 * create, retrieve, search by metadata, cancel; refunds: create, retrieve, list by PaymentIntent or charge; disputes and Radar early fraud
 * warnings: retrieve), speaking Stripe's wire
 * format (form-encoded requests, JSON objects, error envelopes, `Idempotency-Key` replays) on
 * loopback. Objects move through their documented states. The test drives the customer's side
 * (`confirm`, as the Payment Element would) and can make the replica lose answers or fail.
 */

export async function startStripeReplica(options: { now?: () => number; secretKey?: string } = {}): Promise<StripeReplica> {
  const secretKey = options.secretKey ?? 'sk_test_replica';
  const now = () => Math.floor((options.now?.() ?? Date.now()) / 1000);
  const intents = new Map<string, IntentState>();
  const customers = new Map<string, Stripe.Customer>();
  const refunds = new Map<string, Stripe.Refund>();
  const disputes = new Map<string, Stripe.Dispute>();
  const warnings = new Map<string, Stripe.Radar.EarlyFraudWarning>();
  const signer = new Stripe('sk_test_replica_signer');
  const paymentMethodCards = new Map<string, TestCard>();
  const idempotent = new Map<string, { status: number; body: string }>();
  const requests: StripeReplica['requests'] = [];
  const losses: Array<{ pathPrefix: string; remaining: number }> = [];
  const failures: Array<{ pathPrefix: string; remaining: number }> = [];
  const processing = new Map<string, { card: TestCard; paymentMethod: string }>();
  const unindexed = new Set<string>();
  let searchLagging = false;
  let sequence = 0;
  const newId = (prefix: string) => `${prefix}_${createHash('sha256').update(`${prefix}:${(sequence += 1)}:${Math.random()}`).digest('hex').slice(0, 24)}`;

  function expanded(intentId: string): Stripe.PaymentIntent {
    const state = intents.get(intentId);
    if (!state) {
      throw new Error(`no intent ${intentId}`);
    }
    return { ...state.intent, latest_charge: state.charge ?? null };
  }

  function withExpand(intent: Stripe.PaymentIntent, expand: Form | undefined): Stripe.PaymentIntent {
    const wanted = expand ? Object.values(expand) : [];
    return wanted.includes('latest_charge') || wanted.includes('data.latest_charge') ? expanded(intent.id) : intent;
  }

  /** Moves an intent after a confirmation with `card` (on-session, or off-session for renewals). */
  function settle(state: IntentState, card: TestCard, paymentMethod: string, offSession: boolean, passChallenge: boolean): void {
    const { intent } = state;
    const needsAuthentication = card.behaviour === 'three_d_secure' || (!offSession && card.behaviour === 'three_d_secure_setup') || (offSession && card.behaviour === 'authentication_required_off_session');
    if (needsAuthentication && offSession) {
      state.intent = { ...intent, status: 'requires_payment_method', payment_method: paymentMethod, last_payment_error: { type: 'card_error', code: 'authentication_required', decline_code: 'authentication_required' } };
      return;
    }
    const declineCode = card.behaviour === 'decline' ? 'generic_decline' : card.behaviour === 'insufficient_funds' ? 'insufficient_funds' : needsAuthentication && !passChallenge ? 'authentication_failure' : null;
    const chargeId = newId('ch');
    const customer = typeof intent.customer === 'string' ? intent.customer : null;
    state.charge = chargeObject({ id: chargeId, intentId: intent.id, amount: intent.amount, currency: intent.currency, created: now(), card, customer, paymentMethod, networkTransactionId: String(100000000000000 + sequence * 7919), succeeded: declineCode === null, declineCode });
    state.intent =
      declineCode === null
        ? { ...intent, status: 'succeeded', amount_received: intent.amount, payment_method: paymentMethod, latest_charge: chargeId, last_payment_error: null }
        : { ...intent, status: 'requires_payment_method', payment_method: null, latest_charge: chargeId, last_payment_error: { type: 'card_error', code: declineCode === 'authentication_failure' ? 'payment_intent_authentication_failure' : 'card_declined', decline_code: declineCode } };
  }

  /** The intent's successful charge (disputes and warnings are about charges). */
  function succeededCharge(intentId: string): { state: IntentState; charge: Stripe.Charge } {
    const state = intents.get(intentId);
    if (!state || state.intent.status !== 'succeeded' || !state.charge) {
      throw new Error(`replica: intent ${intentId} has no successful charge`);
    }
    return { state, charge: state.charge };
  }

  function error(status: number, type: string, message: string, extra: Record<string, string> = {}): { status: number; body: unknown } {
    return { status, body: { error: { type, message, ...extra } } };
  }

  function route(method: string, path: string, query: URLSearchParams, form: Form): { status: number; body: unknown } {
    const created = now();
    if (method === 'POST' && path === '/v1/customers') {
      const customer = customerObject(newId('cus'), created, record(form, 'metadata'));
      customers.set(customer.id, customer);
      return { status: 200, body: customer };
    }
    if (method === 'POST' && path === '/v1/payment_intents') {
      const amount = Number(text(form, 'amount'));
      const currency = text(form, 'currency');
      if (!Number.isInteger(amount) || amount < 1 || !currency) {
        return error(400, 'invalid_request_error', 'Missing required param: amount or currency.', { param: 'amount' });
      }
      const customer = text(form, 'customer') ?? null;
      const intent = paymentIntentObject({ id: newId('pi'), amount, currency, created, status: 'requires_payment_method', customer, paymentMethod: null, setupFutureUsage: text(form, 'setup_future_usage') === 'off_session' ? 'off_session' : null, metadata: record(form, 'metadata'), latestCharge: null, lastPaymentError: null, canceledAt: null });
      const state: IntentState = { intent, charge: null };
      intents.set(intent.id, state);
      if (searchLagging) {
        unindexed.add(intent.id);
      }
      if (text(form, 'confirm') === 'true') {
        const paymentMethod = text(form, 'payment_method') ?? '';
        const card = paymentMethodCards.get(paymentMethod);
        if (!card || !customer) {
          return error(400, 'invalid_request_error', `No such PaymentMethod: '${paymentMethod}'`, { code: 'resource_missing', param: 'payment_method' });
        }
        settle(state, card, paymentMethod, text(form, 'off_session') === 'true', false);
        const error402 = state.intent.last_payment_error;
        if (error402) {
          return error(402, 'card_error', 'Your card was declined.', { code: error402.code ?? 'card_declined', decline_code: error402.decline_code ?? 'generic_decline', payment_intent: state.intent.id });
        }
      }
      return { status: 200, body: withExpand(state.intent, form['expand'] as Form | undefined) };
    }
    if (method === 'GET' && path === '/v1/payment_intents/search') {
      const match = /^metadata\['([^']+)'\]:'([^']+)'$/.exec(query.get('query') ?? '');
      if (!match) {
        return error(400, 'invalid_request_error', 'The replica searches by one metadata key only.', { param: 'query' });
      }
      const [, key, value] = match;
      const data = [...intents.values()].filter((state) => state.intent.metadata[key ?? ''] === value && !unindexed.has(state.intent.id)).map((state) => (query.getAll('expand[]').concat(query.getAll('expand[0]')).includes('data.latest_charge') ? expanded(state.intent.id) : state.intent));
      const result: Stripe.ApiSearchResult<Stripe.PaymentIntent> = { object: 'search_result', url: '/v1/payment_intents/search', has_more: false, data, next_page: null };
      return { status: 200, body: result };
    }
    const intentPath = /^\/v1\/payment_intents\/(pi_[0-9a-f]+)(\/cancel)?$/.exec(path);
    if (intentPath) {
      const state = intents.get(intentPath[1] ?? '');
      if (!state) {
        return error(404, 'invalid_request_error', `No such payment_intent: '${intentPath[1]}'`, { code: 'resource_missing' });
      }
      if (method === 'POST' && intentPath[2]) {
        if (state.intent.status === 'succeeded' || state.intent.status === 'canceled' || state.intent.status === 'processing') {
          return error(400, 'invalid_request_error', `You cannot cancel this PaymentIntent because it has a status of ${state.intent.status}.`, { code: 'payment_intent_unexpected_state' });
        }
        state.intent = { ...state.intent, status: 'canceled', canceled_at: created, cancellation_reason: 'abandoned' };
        return { status: 200, body: state.intent };
      }
      const expand = query.getAll('expand[]').concat(query.getAll('expand[0]'));
      return { status: 200, body: expand.includes('latest_charge') ? expanded(state.intent.id) : state.intent };
    }
    if (method === 'POST' && path === '/v1/refunds') {
      const state = intents.get(text(form, 'payment_intent') ?? '');
      if (!state || state.intent.status !== 'succeeded' || !state.charge) {
        return error(400, 'invalid_request_error', 'This PaymentIntent does not have a successful charge to refund.', { code: 'charge_not_refundable' });
      }
      const already = [...refunds.values()].filter((refund) => refund.payment_intent === state.intent.id && refund.status !== 'failed').reduce((sum, refund) => sum + refund.amount, 0);
      const amount = Number(text(form, 'amount') ?? state.intent.amount - already);
      if (amount < 1 || already + amount > state.intent.amount) {
        return error(400, 'invalid_request_error', `Refund amount ($${amount / 100}) is greater than unrefunded amount on charge.`, { code: 'amount_too_large', param: 'amount' });
      }
      const card = paymentMethodCards.get(typeof state.intent.payment_method === 'string' ? state.intent.payment_method : '');
      const status = card?.behaviour === 'refund_fails' ? 'succeeded' : 'pending';
      const refund = refundObject({ id: newId('re'), amount, currency: state.intent.currency, created, chargeId: state.charge.id, intentId: state.intent.id, status, metadata: record(form, 'metadata') });
      refunds.set(refund.id, refund);
      return { status: 200, body: refund };
    }
    const refundPath = /^\/v1\/refunds\/(re_[0-9a-f]+)$/.exec(path);
    if (method === 'GET' && refundPath) {
      const refund = refunds.get(refundPath[1] ?? '');
      return refund ? { status: 200, body: refund } : error(404, 'invalid_request_error', `No such refund: '${refundPath[1]}'`, { code: 'resource_missing' });
    }
    if (method === 'GET' && path === '/v1/refunds') {
      const data = [...refunds.values()].filter((refund) => (query.has('charge') ? refund.charge === query.get('charge') : refund.payment_intent === query.get('payment_intent')));
      const list: Stripe.ApiList<Stripe.Refund> = { object: 'list', url: '/v1/refunds', has_more: false, data };
      return { status: 200, body: list };
    }
    const disputePath = /^\/v1\/disputes\/(du_[0-9a-f]+)$/.exec(path);
    if (method === 'GET' && disputePath) {
      const dispute = disputes.get(disputePath[1] ?? '');
      if (!dispute) {
        return error(404, 'invalid_request_error', `No such dispute: '${disputePath[1]}'`, { code: 'resource_missing' });
      }
      const expand = query.getAll('expand[]').concat(query.getAll('expand[0]'));
      const intentId = typeof dispute.payment_intent === 'string' ? dispute.payment_intent : '';
      return { status: 200, body: expand.includes('payment_intent') ? { ...dispute, payment_intent: intents.get(intentId)?.intent ?? null } : dispute };
    }
    const warningPath = /^\/v1\/radar\/early_fraud_warnings\/(issfr_[0-9a-f]+)$/.exec(path);
    if (method === 'GET' && warningPath) {
      const warning = warnings.get(warningPath[1] ?? '');
      if (!warning) {
        return error(404, 'invalid_request_error', `No such early fraud warning: '${warningPath[1]}'`, { code: 'resource_missing' });
      }
      const expand = query.getAll('expand[]').concat(query.getAll('expand[0]'), query.getAll('expand[1]'));
      const state = intents.get(typeof warning.payment_intent === 'string' ? warning.payment_intent : '');
      return {
        status: 200,
        body: {
          ...warning,
          ...(expand.includes('charge') && state?.charge ? { charge: state.charge } : {}),
          ...(expand.includes('payment_intent') && state ? { payment_intent: state.intent } : {}),
        },
      };
    }
    if (method === 'GET' && path === '/v1/balance') {
      const balance: Stripe.Balance = { object: 'balance', available: [{ amount: 0, currency: 'usd' }], livemode: false, pending: [{ amount: 0, currency: 'usd' }] };
      return { status: 200, body: balance };
    }
    return error(404, 'invalid_request_error', `Unrecognized request URL (${method}: ${path}).`);
  }

  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url ?? '/', 'http://replica');
      const method = request.method ?? 'GET';
      const key = typeof request.headers['idempotency-key'] === 'string' ? request.headers['idempotency-key'] : undefined;
      requests.push({ method, path: url.pathname, idempotencyKey: key });
      const body = Buffer.concat(chunks).toString('utf8');
      if (browser.handles(method, url.pathname)) {
        browser.handle(method, url, body, response);
        return;
      }
      if (request.headers.authorization !== `Bearer ${secretKey}`) {
        response.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify(error(401, 'invalid_request_error', 'Invalid API Key provided.').body));
        return;
      }
      const failure = failures.find((entry) => entry.remaining > 0 && url.pathname.startsWith(entry.pathPrefix));
      if (failure) {
        failure.remaining -= 1;
        response.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify(error(500, 'api_error', 'An unknown error occurred').body));
        return;
      }
      let answer = key && method === 'POST' ? idempotent.get(`${url.pathname}:${key}`) : undefined;
      if (!answer) {
        const routed = route(method, url.pathname, url.searchParams, parseForm(body));
        answer = { status: routed.status, body: JSON.stringify(routed.body) };
        if (key && method === 'POST' && routed.status < 500) {
          idempotent.set(`${url.pathname}:${key}`, answer);
        }
      }
      const loss = losses.find((entry) => entry.remaining > 0 && url.pathname.startsWith(entry.pathPrefix));
      if (loss) {
        loss.remaining -= 1;
        request.socket.destroy();
        return;
      }
      response.writeHead(answer.status, { 'content-type': 'application/json', 'request-id': `req_${sequence}`, ...(key ? { 'idempotency-key': key } : {}) }).end(answer.body);
    });
  });
  const browser = createStripeBrowserSide({
    intents,
    parseForm: (body) => parseForm(body),
    confirm: (intentId, cardNumber, passChallenge) => confirmWithCard(intentId, cardNumber, passChallenge),
    requireAction: (intentId, cardNumber) => {
      const state = intents.get(intentId);
      const card = stripeTestCards[cardNumber];
      if (!state || !card) {
        throw new Error(`replica: unknown intent ${intentId} or test card ${cardNumber}`);
      }
      state.intent = { ...state.intent, status: 'requires_action', next_action: { type: 'use_stripe_sdk', use_stripe_sdk: {} }, last_payment_error: null };
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  browser.setOrigin(`http://127.0.0.1:${port}`);

  function confirmWithCard(intentId: string, cardNumber: string, passChallenge: boolean): Stripe.PaymentIntent {
    const state = intents.get(intentId);
    const card = stripeTestCards[cardNumber];
    if (!state || !card) {
      throw new Error(`replica: unknown intent ${intentId} or test card ${cardNumber}`);
    }
    const paymentMethod = newId('pm');
    paymentMethodCards.set(paymentMethod, card);
    settle(state, card, paymentMethod, false, passChallenge);
    return state.intent;
  }

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    intents,
    refunds,
    disputes,
    dispute(intentId, disputeOptions = {}) {
      const { state, charge } = succeededCharge(intentId);
      const created = now();
      const dispute = disputeObject({
        id: newId('du'),
        amount: state.intent.amount,
        currency: state.intent.currency,
        created,
        chargeId: charge.id,
        intentId,
        reason: disputeOptions.reason ?? 'fraudulent',
        status: disputeOptions.status ?? 'needs_response',
        dueBy: created + 7 * 24 * 60 * 60,
        brand: charge.payment_method_details?.card?.brand ?? 'visa',
      });
      disputes.set(dispute.id, dispute);
      state.charge = { ...charge, disputed: true };
      return dispute;
    },
    setDisputeStatus(disputeId, status) {
      const dispute = disputes.get(disputeId);
      if (!dispute) {
        throw new Error(`replica: unknown dispute ${disputeId}`);
      }
      const updated: Stripe.Dispute = { ...dispute, status };
      disputes.set(disputeId, updated);
      return updated;
    },
    earlyFraudWarning(intentId, fraudType) {
      const { charge } = succeededCharge(intentId);
      const warning = earlyFraudWarningObject({ id: newId('issfr'), created: now(), chargeId: charge.id, intentId, fraudType });
      warnings.set(warning.id, warning);
      return warning;
    },
    signedEvent(type, object, secret, eventOptions = {}) {
      const id = eventOptions.id ?? newId('evt');
      const event = { id, object: 'event', api_version: '2025-01-01', created: now(), data: { object }, livemode: false, pending_webhooks: 1, request: { id: null, idempotency_key: null }, type };
      const payload = JSON.stringify(event);
      const signature = signer.webhooks.generateTestHeaderString({ payload, secret, ...(eventOptions.timestamp !== undefined ? { timestamp: eventOptions.timestamp } : {}) });
      return { id, payload, signature };
    },
    loseAnswers(pathPrefix, count) {
      losses.push({ pathPrefix, remaining: count });
    },
    failRequests(pathPrefix, count) {
      failures.push({ pathPrefix, remaining: count });
    },
    confirm(intentId, cardNumber, confirmOptions = {}) {
      return confirmWithCard(intentId, cardNumber, confirmOptions.passChallenge ?? false);
    },
    startProcessing(intentId, cardNumber) {
      const state = intents.get(intentId);
      const card = stripeTestCards[cardNumber];
      if (!state || !card) {
        throw new Error(`replica: unknown intent ${intentId} or test card ${cardNumber}`);
      }
      const paymentMethod = newId('pm');
      paymentMethodCards.set(paymentMethod, card);
      processing.set(intentId, { card, paymentMethod });
      state.intent = { ...state.intent, status: 'processing', payment_method: paymentMethod, last_payment_error: null };
    },
    finishProcessing(intentId) {
      const state = intents.get(intentId);
      const pending = processing.get(intentId);
      if (!state || !pending) {
        throw new Error(`replica: intent ${intentId} is not processing`);
      }
      processing.delete(intentId);
      settle(state, pending.card, pending.paymentMethod, false, true);
    },
    lagSearch(on) {
      searchLagging = on;
    },
    indexSearch() {
      unindexed.clear();
    },
    browser,
    requireAuthentication(paymentMethod) {
      const card = paymentMethodCards.get(paymentMethod);
      if (!card) {
        throw new Error(`replica: unknown PaymentMethod ${paymentMethod}`);
      }
      paymentMethodCards.set(paymentMethod, { ...card, behaviour: 'authentication_required_off_session' });
    },
    paymentMethod(cardNumber) {
      const card = stripeTestCards[cardNumber];
      if (!card) {
        throw new Error(`replica: unknown test card ${cardNumber}`);
      }
      const id = newId('pm');
      paymentMethodCards.set(id, card);
      return id;
    },
    expanded,
    updateRefund(refundId, status) {
      const refund = refunds.get(refundId);
      if (!refund) {
        throw new Error(`replica: unknown refund ${refundId}`);
      }
      const updated = refundObject({
        id: refund.id,
        amount: refund.amount,
        currency: refund.currency,
        created: refund.created,
        chargeId: typeof refund.charge === 'string' ? refund.charge : '',
        intentId: typeof refund.payment_intent === 'string' ? refund.payment_intent : '',
        status,
        metadata: refund.metadata ?? {},
        ...(status === 'failed' ? { failureReason: 'expired_or_canceled_card' } : {}),
      });
      refunds.set(refundId, updated);
      return updated;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
