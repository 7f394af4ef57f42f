import type Stripe from 'stripe';
import type { JobDefinition } from '../../jobs/worker.ts';
import { providerCall } from '../providers/index.ts';
import { refundIdMetadataKey } from '../card-processor/index.ts';
import { stripeRefundEventQueue, type StripeEventJob } from '../payments/index.ts';
import type { RefundsService } from './service.ts';

/**
 * Acts on Stripe's `charge.refunded` and `refund.updated` (a refund failed, possibly after it had
 * succeeded): trusts the event only as "something changed", fetches the refunds from Stripe, and
 * reconciles each of ours (found by our refund id in its metadata) from what Stripe says now.
 * Refunds made outside Paysail (in Stripe's dashboard) carry no id of ours and are left alone.
 */
export function stripeRefundEventJob(deps: { stripe: Stripe; refunds: Pick<RefundsService, 'reconcile'> }): JobDefinition<StripeEventJob> {
  return {
    queue: stripeRefundEventQueue,
    maxAttempts: 20,
    handle: async ({ intentId: objectId }) => {
      const found: Stripe.Refund[] = [];
      if (objectId.startsWith('re_')) {
        found.push(await providerCall('stripe', 'refunds.retrieve', () => deps.stripe.refunds.retrieve(objectId)));
      } else if (objectId.startsWith('ch_')) {
        const listed = await providerCall('stripe', 'refunds.list', () => deps.stripe.refunds.list({ charge: objectId, limit: 100 }));
        found.push(...listed.data);
      }
      for (const refund of found) {
        const refundId = refund.metadata?.[refundIdMetadataKey];
        if (refundId) {
          await deps.refunds.reconcile(refundId);
        }
      }
    },
  };
}
