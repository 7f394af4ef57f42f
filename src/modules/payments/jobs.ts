import type { JobDefinition, JobOutcome } from '../../jobs/worker.ts';
import type { PaymentRow } from './repository.ts';

/** The queue keeps its historical name: jobs already scheduled under it still run. */
export const paymentAttemptResolveQueue = 'payment-pages.resolve-attempt';

/** Settles an attempt whose request died or timed out (or a session left open), from the processor's own record; may ask to look again later. */
export function createResolveAttemptJob(deps: { find: (paymentId: string) => Promise<PaymentRow | null>; resolve: (payment: PaymentRow) => Promise<JobOutcome> }): JobDefinition<{ paymentId: string }> {
  return {
    queue: paymentAttemptResolveQueue,
    maxAttempts: 20,
    handle: async ({ paymentId }) => {
      const payment = await deps.find(paymentId);
      if (!payment || payment.status !== 'PROCESSING') {
        return;
      }
      return deps.resolve(payment);
    },
  };
}
