import type Stripe from 'stripe';
import type { JobDefinition } from '../../jobs/worker.ts';
import { providerCall } from '../providers/index.ts';
import { paymentIdMetadataKey, stripeProcessorName } from '../card-processor/index.ts';
import type { PaymentsService, StripeObjectEventJob } from '../payments/index.ts';
import type { DisputesService } from './service.ts';
import { disputeFromStripe } from './stripe.ts';

export const stripeDisputeEventQueue = 'disputes.stripe-event';
/** Enable these on the Stripe webhook endpoint. */
export const stripeDisputeEvents = ['charge.dispute.created', 'charge.dispute.updated', 'charge.dispute.closed'] as const;

/**
 * Acts on a recorded `charge.dispute.*` event: trusts it only as "something changed", fetches the
 * dispute (with its PaymentIntent, whose metadata names our payment) and makes ours match what
 * Stripe says now. A replayed or late event finds nothing to change; a dispute on a payment we have
 * not settled yet settles it first (its own webhook may come later).
 */
export function stripeDisputeJob(deps: { stripe: Stripe; livemode: boolean; disputes: Pick<DisputesService, 'applyReported'>; payments: Pick<PaymentsService, 'reconcile'> }): JobDefinition<StripeObjectEventJob> {
  return {
    queue: stripeDisputeEventQueue,
    maxAttempts: 20,
    handle: async ({ objectId }) => {
      if (objectId === '') {
        return;
      }
      const dispute = await providerCall('stripe', 'disputes.retrieve', () => deps.stripe.disputes.retrieve(objectId, { expand: ['payment_intent'] }));
      const intent = dispute.payment_intent;
      const paymentId = intent && typeof intent === 'object' ? intent.metadata[paymentIdMetadataKey] : undefined;
      if (!paymentId) {
        // Not a payment Paysail made (another integration on the same Stripe account).
        return;
      }
      const reported = disputeFromStripe(dispute, paymentId, deps.livemode, stripeProcessorName);
      if (!reported) {
        throw new Error(`Stripe dispute ${dispute.id} has a status Paysail does not know; retried until mapped`);
      }
      await deps.payments.reconcile(paymentId);
      await deps.disputes.applyReported(reported);
    },
  };
}
