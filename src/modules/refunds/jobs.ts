import type { JobContext, JobDefinition, JobOutcome } from '../../jobs/worker.ts';
import type { RefundRow } from './repository.ts';

export const refundProcessQueue = 'refunds.process';

/**
 * Submits a PENDING refund to its processor and polls it until it is final. The processor call is
 * idempotent on the refund id; a retry (whose earlier attempt may have reached the processor) looks
 * the refund up before making it.
 */
export function createProcessRefundJob(deps: {
  find: (refundId: string) => Promise<RefundRow | null>;
  advance: (refund: RefundRow, attempt: number, context: JobContext) => Promise<JobOutcome>;
}): JobDefinition<{ refundId: string }> {
  return {
    queue: refundProcessQueue,
    maxAttempts: 30,
    handle: async ({ refundId }, context) => {
      const refund = await deps.find(refundId);
      if (!refund || refund.status !== 'PENDING') {
        return undefined;
      }
      return deps.advance(refund, context.attempt, context);
    },
  };
}
