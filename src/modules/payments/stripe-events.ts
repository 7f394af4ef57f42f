import type Stripe from 'stripe';
import type { Database } from '../../db/client.ts';
import { wrongParameter } from '../../http/errors.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { providerCall, recordProviderEvent, type ProviderCheck, type ProviderWebhookHandler } from '../providers/index.ts';
import { paymentIdMetadataKey } from '../card-processor/index.ts';
import type { PaymentsService } from './service.ts';

export const stripeEventQueue = 'payments.stripe-event';

/** Refund events go to the refunds module's job (`src/modules/refunds/stripe-events.ts`) on this queue. */
export const stripeRefundEventQueue = 'refunds.stripe-event';
export const stripeRefundEvents = ['charge.refunded', 'refund.updated'] as const;

/** The Stripe events Paysail acts on today (enable these on the endpoint); others are acknowledged and ignored. */
export const handledStripeEvents = ['payment_intent.succeeded', 'payment_intent.payment_failed', 'payment_intent.canceled', ...stripeRefundEvents] as const;

/**
 * Stripe events another module acts on (disputes, early fraud warnings): each is recorded on that
 * module's queue with the id of the object it is about, which the module's job fetches from Stripe.
 */
export interface StripeEventRoute {
  types: readonly string[];
  queue: string;
}

/** Which Stripe account an event came from: the live one (`STRIPE_*`) or the test account backing sandbox mode (`STRIPE_TEST_*`). */
export type StripeEnvironment = 'live' | 'test';

/** A Stripe account as configured: its client, and the signing secret of its webhook endpoint. */
export interface StripeAccount {
  environment: StripeEnvironment;
  stripe: Stripe;
  webhookSecret: string;
}

export interface StripeObjectEventJob {
  eventType: string;
  /** The account whose secret verified the event (absent on events recorded before test accounts: live). */
  environment?: StripeEnvironment;
  /** The object the event is about (`du_…`, `issfr_…`); fetched from Stripe before anything is done. */
  objectId: string;
}

export interface StripeEventJob {
  eventType: string;
  /** The account whose secret verified the event (absent on events recorded before test accounts: live). */
  environment?: StripeEnvironment;
  /** The object the event is about (a PaymentIntent; a Charge or Refund on the refunds queue); fetched from Stripe before anything is done. */
  intentId: string;
}

/**
 * `POST /providers/stripe/webhooks`, one URL for every configured account (live, and the test
 * account backing sandbox mode): verified with `stripe.webhooks.constructEvent` on the raw body
 * against each account's endpoint secret (a signature none of them made answers 400 and records
 * nothing); the account whose secret verified it is recorded with the event, so its job asks that
 * account. Deduplicated on Stripe's event id (the jobs inbox), handled in jobs.
 */
export function createStripeWebhooks(deps: { database: Database; clock: Clock; accounts: readonly StripeAccount[]; routes?: readonly StripeEventRoute[] }): ProviderWebhookHandler {
  const handled: readonly string[] = handledStripeEvents;
  function verify(rawBody: Buffer, signature: string): { event: Stripe.Event; environment: StripeEnvironment } | null {
    for (const account of deps.accounts) {
      try {
        return { event: account.stripe.webhooks.constructEvent(rawBody, signature, account.webhookSecret), environment: account.environment };
      } catch {
        // Not this account's signature: try the next one.
      }
    }
    return null;
  }
  return {
    provider: 'stripe',
    async receive(request) {
      const signature = request.headers['stripe-signature'];
      const verified = verify(request.rawBody, typeof signature === 'string' ? signature : '');
      if (!verified) {
        throw wrongParameter('Stripe-Signature', 'must be a valid Stripe signature of this body made with the endpoint secret (STRIPE_WEBHOOK_SECRET, or STRIPE_TEST_WEBHOOK_SECRET), within the tolerance');
      }
      const { event, environment } = verified;
      const route = deps.routes?.find((candidate) => candidate.types.includes(event.type));
      if (!handled.includes(event.type) && !route) {
        return;
      }
      const object = event.data.object;
      const objectId = 'id' in object && typeof object.id === 'string' ? object.id : '';
      if (route) {
        const payload: StripeObjectEventJob = { eventType: event.type, objectId, ...(environment === 'test' ? { environment } : {}) };
        await recordProviderEvent(deps.database, deps.clock.now(), { provider: 'stripe', eventId: event.id, queue: route.queue, payload });
        return;
      }
      // Refund events carry their charge or refund id in `intentId` (the refunds job fetches from it).
      const payload: StripeEventJob = { eventType: event.type, intentId: objectId, ...(environment === 'test' ? { environment } : {}) };
      const queue = (stripeRefundEvents as readonly string[]).includes(event.type) ? stripeRefundEventQueue : stripeEventQueue;
      await recordProviderEvent(deps.database, deps.clock.now(), { provider: 'stripe', eventId: event.id, queue, payload });
    },
  };
}

/**
 * One job for a queue whose events may come from any configured account: each event runs in the
 * job made for the account that sent it (`make(stripe, livemode)`); an event of an account no longer
 * configured is dropped (nothing can be asked about it).
 */
export function perStripeAccount<P extends { environment?: StripeEnvironment }>(accounts: readonly StripeAccount[], make: (stripe: Stripe, livemode: boolean) => JobDefinition<P>): JobDefinition<P> {
  const jobs = new Map(accounts.map((account) => [account.environment, make(account.stripe, account.environment === 'live')] as const));
  const [first] = jobs.values();
  if (!first) {
    throw new Error('perStripeAccount needs at least one Stripe account');
  }
  return {
    ...first,
    handle: async (payload, context) => {
      const job = jobs.get(payload.environment ?? 'live');
      return job ? job.handle(payload, context) : undefined;
    },
  };
}

/**
 * Acts on a recorded Stripe event: trusts it only as "something changed", fetches the PaymentIntent,
 * and settles our payment from Stripe's current state (out-of-order or replayed events change
 * nothing: a payment is settled once, from what Stripe says now).
 */
export function stripeEventJob(deps: { stripe: Stripe; payments: Pick<PaymentsService, 'reconcile'> }): JobDefinition<StripeEventJob> {
  return {
    queue: stripeEventQueue,
    maxAttempts: 20,
    handle: async ({ intentId }) => {
      if (!intentId.startsWith('pi_')) {
        return;
      }
      const intent = await providerCall('stripe', 'paymentIntents.retrieve', () => deps.stripe.paymentIntents.retrieve(intentId));
      const paymentId = intent.metadata[paymentIdMetadataKey];
      if (paymentId) {
        await deps.payments.reconcile(paymentId);
      }
    },
  };
}

/** `paysail providers check`: a harmless read (the balance) with an account's keys (the live account, or the test account backing sandbox mode). */
export function stripeProviderCheck(stripe: Stripe, environment: StripeEnvironment = 'live'): ProviderCheck {
  return {
    provider: 'stripe',
    environment,
    async check() {
      const balance = await providerCall('stripe', 'balance.retrieve', () => stripe.balance.retrieve());
      return `balance readable (${balance.livemode ? 'live' : 'test'} mode, ${balance.available.length} currenc${balance.available.length === 1 ? 'y' : 'ies'})`;
    },
  };
}
