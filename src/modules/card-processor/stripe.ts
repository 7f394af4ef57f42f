import type Stripe from 'stripe';
import { loadProviderPackage, withPlainErrors } from '../providers/index.ts';
import type { CardDescription, CardProcessor, CardScheme, CardType, ChargeResult, PaymentLookup, PaymentState, RefundState } from './types.ts';

export const stripeProcessorName = 'stripe';
/** Our payment id on every PaymentIntent (the reference a lost answer is looked up by). */
export const paymentIdMetadataKey = 'paysail_payment_id';
export const refundIdMetadataKey = 'paysail_refund_id';

export interface StripeSettings {
  secretKey: string;
  /** The API's base URL: Stripe's own (`https://api.stripe.com`) or, in tests, a replica on loopback. */
  apiUrl: string;
}

/** The official client, pointed at `apiUrl` through its own host/port/protocol options. */
export function createStripeClient(settings: StripeSettings): Stripe {
  const url = new URL(settings.apiUrl);
  const protocol = url.protocol === 'http:' ? 'http' : 'https';
  const StripeClient = loadProviderPackage('stripe');
  return new StripeClient(settings.secretKey, {
    host: url.hostname,
    port: url.port === '' ? (protocol === 'http' ? 80 : 443) : Number(url.port),
    protocol,
    // Retries carry the same idempotency key, so a retried create is the same PaymentIntent.
    maxNetworkRetries: 2,
    timeout: 20_000,
    telemetry: false,
  });
}

/** Stripe's card brands → our schemes (one table, a test per row). */
export const stripeBrandSchemes: Readonly<Record<string, CardScheme>> = {
  visa: 'VISA',
  mastercard: 'MASTERCARD',
  amex: 'AMEX',
  discover: 'DISCOVER',
  jcb: 'JCB',
  diners: 'DINERS',
  unionpay: 'UNIONPAY',
};

/** Stripe's card funding → our card types (`unknown` counts as credit, as the sandbox's unknown BINs). */
export const stripeFundingTypes: Readonly<Record<string, CardType>> = { credit: 'CREDIT', debit: 'DEBIT', prepaid: 'PREPAID' };

/**
 * PaymentIntent statuses → where our payment stands. `requires_payment_method` after a decline is
 * still open: the customer may try another card in the Payment Element.
 */
export const stripeIntentStates: Readonly<Record<Stripe.PaymentIntent.Status, 'SUCCEEDED' | 'DECLINED' | 'PENDING'>> = {
  succeeded: 'SUCCEEDED',
  canceled: 'DECLINED',
  requires_payment_method: 'PENDING',
  requires_confirmation: 'PENDING',
  requires_action: 'PENDING',
  processing: 'PENDING',
  requires_capture: 'PENDING',
};

/** Stripe refund statuses → ours. */
export const stripeRefundStates: Readonly<Record<string, RefundState['status']>> = {
  pending: 'PENDING',
  requires_action: 'PENDING',
  succeeded: 'SUCCEEDED',
  failed: 'FAILED',
  canceled: 'FAILED',
};

type CardDetails = NonNullable<NonNullable<Stripe.Charge['payment_method_details']>['card']>;

export function describeStripeCard(card: CardDetails): CardDescription {
  return {
    bin: card.iin ?? '',
    last4: card.last4 ?? '',
    scheme: stripeBrandSchemes[card.brand ?? ''] ?? 'UNKNOWN',
    cardType: stripeFundingTypes[card.funding ?? ''] ?? 'CREDIT',
    issuer: card.issuer ?? 'Unknown issuer',
    expMonth: card.exp_month,
    expYear: card.exp_year,
  };
}

function idOf(value: string | { id: string } | null): string | null {
  return value === null ? null : typeof value === 'string' ? value : value.id;
}

function declineReasonOf(intent: Stripe.PaymentIntent): string {
  const error = intent.last_payment_error;
  return error?.decline_code ?? error?.code ?? (intent.status === 'canceled' ? 'canceled' : 'card_declined');
}

/** A PaymentIntent (with `latest_charge` expanded) as our payment state. */
export function paymentStateOf(intent: Stripe.PaymentIntent): PaymentState {
  const state = stripeIntentStates[intent.status];
  if (state === 'PENDING') {
    // Still open; a decline or failed 3-D Secure try leaves it waiting for another card.
    return intent.last_payment_error ? { status: 'PENDING', processorReference: intent.id, declineReason: declineReasonOf(intent) } : { status: 'PENDING', processorReference: intent.id };
  }
  const charge = typeof intent.latest_charge === 'object' ? intent.latest_charge : null;
  const card = charge?.payment_method_details?.card ? describeStripeCard(charge.payment_method_details.card) : null;
  if (state === 'DECLINED' || !card || !charge) {
    return { status: 'DECLINED', declineReason: declineReasonOf(intent), card };
  }
  const customer = idOf(intent.customer);
  const paymentMethod = idOf(intent.payment_method);
  return {
    status: 'SUCCEEDED',
    processorReference: intent.id,
    networkTransactionId: charge.payment_method_details?.card?.network_transaction_id ?? charge.id,
    card,
    // A card saved for renewals: the customer and its PaymentMethod, charged off-session later.
    token: intent.setup_future_usage === 'off_session' && customer && paymentMethod ? `${customer}/${paymentMethod}` : null,
  };
}

function refundStateOf(refund: Stripe.Refund): RefundState {
  const status = stripeRefundStates[refund.status ?? 'pending'] ?? 'PENDING';
  return status === 'FAILED' ? { status, processorReference: refund.id, failureReason: refund.failure_reason ?? 'unknown' } : { status, processorReference: refund.id };
}

const idempotencyKey = (kind: string, id: string) => `paysail:${kind}:${id}`;

/**
 * The Stripe adapter of the card processor port (live mode, or sandbox backed by a Stripe test
 * account). PaymentIntents restricted to cards, idempotent on our ids; retrieved by the id Stripe
 * gave us or, when that answer was lost, searched by our payment id in the metadata — never
 * created again to find out.
 */
export function createStripeCardProcessor(stripe: Stripe): CardProcessor {
  const expand = ['latest_charge'];

  async function findIntent(paymentId: string): Promise<Stripe.PaymentIntent | null> {
    const found = await stripe.paymentIntents.search({ query: `metadata['${paymentIdMetadataKey}']:'${paymentId}'`, limit: 1, expand: ['data.latest_charge'] });
    return found.data[0] ?? null;
  }

  async function requireIntent(paymentId: string): Promise<Stripe.PaymentIntent> {
    const intent = await findIntent(paymentId);
    if (!intent) {
      throw new Error(`no Stripe PaymentIntent for payment ${paymentId}`);
    }
    return intent;
  }

  /**
   * The intent by the id Stripe gave us (authoritative), else by search on our payment id, whose
   * "not found" only means "not indexed yet" (search lags up to a minute): UNKNOWN, never absent.
   */
  async function lookUpIntent(paymentId: string, processorReference: string | null | undefined): Promise<Stripe.PaymentIntent | 'UNKNOWN'> {
    if (processorReference) {
      return stripe.paymentIntents.retrieve(processorReference, { expand });
    }
    return (await findIntent(paymentId)) ?? 'UNKNOWN';
  }

  return withPlainErrors('stripe', {
    name: stripeProcessorName,

    async createPayment(input) {
      if (input.processorReference) {
        const existing = await stripe.paymentIntents.retrieve(input.processorReference);
        return { processorReference: existing.id, clientSecret: existing.client_secret };
      }
      let customer: string | undefined;
      if (input.saveCard) {
        // A saved card belongs to a Stripe customer (no PII sent: only our payment id).
        customer = (await stripe.customers.create({ metadata: { [paymentIdMetadataKey]: input.paymentId } }, { idempotencyKey: idempotencyKey('customer', input.paymentId) })).id;
      }
      const intent = await stripe.paymentIntents.create(
        {
          amount: input.amount,
          currency: input.currency.toLowerCase(),
          // Automatic payment methods, restricted to cards (no redirect-based methods).
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
          allowed_payment_method_types: ['card'],
          metadata: { [paymentIdMetadataKey]: input.paymentId },
          ...(customer ? { customer, setup_future_usage: 'off_session' as const } : {}),
        },
        { idempotencyKey: idempotencyKey('payment', input.paymentId) },
      );
      return { processorReference: intent.id, clientSecret: intent.client_secret };
    },

    async retrievePayment(input): Promise<PaymentLookup> {
      const intent = await lookUpIntent(input.paymentId, input.processorReference);
      return intent === 'UNKNOWN' ? { status: 'UNKNOWN' } : paymentStateOf(intent);
    },

    async cancelPayment(input) {
      const intent = await lookUpIntent(input.paymentId, input.processorReference);
      if (intent === 'UNKNOWN') {
        return { status: 'UNKNOWN' };
      }
      if (stripeIntentStates[intent.status] !== 'PENDING') {
        return paymentStateOf(intent);
      }
      try {
        // The key names the state we canceled from: a refusal Stripe stored under one key (the
        // intent was processing) must not answer a later cancel once processing has ended.
        await stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: idempotencyKey('cancel', `${input.paymentId}:${intent.status}`) });
      } catch (error) {
        // Refused (it succeeded or started processing meanwhile): what it is now decides, never a guess.
        if (!(error instanceof stripe.errors.StripeInvalidRequestError)) {
          throw error;
        }
      }
      return paymentStateOf(await stripe.paymentIntents.retrieve(intent.id, { expand }));
    },

    async chargeSaved(input): Promise<ChargeResult> {
      const [customer, paymentMethod] = input.token.split('/');
      if (!customer || !paymentMethod) {
        return { status: 'DECLINED', declineReason: 'invalid_token', card: null };
      }
      try {
        const intent = await stripe.paymentIntents.create(
          {
            amount: input.amount,
            currency: input.currency.toLowerCase(),
            customer,
            payment_method: paymentMethod,
            automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
            allowed_payment_method_types: ['card'],
            off_session: true,
            confirm: true,
            metadata: { [paymentIdMetadataKey]: input.paymentId },
            expand,
          },
          { idempotencyKey: idempotencyKey('payment', input.paymentId) },
        );
        const state = paymentStateOf(intent);
        // Off-session: a payment waiting for the customer (authentication) is a failed renewal.
        return state.status === 'PENDING' ? { status: 'DECLINED', declineReason: 'authentication_required', card: null } : { ...state, ...(state.status === 'SUCCEEDED' ? { token: null } : {}) };
      } catch (error) {
        if (error instanceof stripe.errors.StripeCardError) {
          return { status: 'DECLINED', declineReason: error.code === 'authentication_required' ? 'authentication_required' : (error.decline_code ?? error.code ?? 'card_declined'), card: null };
        }
        throw error;
      }
    },

    async refund(input) {
      const intentId = input.processorReference ?? (await requireIntent(input.paymentId)).id;
      try {
        const refund = await stripe.refunds.create(
          { payment_intent: intentId, amount: input.amount, metadata: { [refundIdMetadataKey]: input.refundId, [paymentIdMetadataKey]: input.paymentId } },
          { idempotencyKey: idempotencyKey('refund', input.refundId) },
        );
        return refundStateOf(refund);
      } catch (error) {
        // Refused outright (HTTP 4xx: the charge is already refunded, the amount is too large…):
        // Stripe made no refund, so it is final. Anything else (network, 5xx, timeout) is an
        // unknown outcome, thrown for the caller to look up by our refund id later.
        if (error instanceof stripe.errors.StripeInvalidRequestError) {
          return { status: 'FAILED', processorReference: null, failureReason: error.code ?? 'refused_by_processor' };
        }
        throw error;
      }
    },

    async retrieveRefund(input) {
      if (!input.paymentId) {
        return null;
      }
      const intentId = input.processorReference ?? (await findIntent(input.paymentId))?.id;
      if (!intentId) {
        return null;
      }
      for await (const refund of stripe.refunds.list({ payment_intent: intentId, limit: 100 })) {
        if (refund.metadata?.[refundIdMetadataKey] === input.refundId) {
          return refundStateOf(refund);
        }
      }
      return null;
    },
  });
}
