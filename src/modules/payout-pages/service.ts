import type { ReencryptOptions } from '../../crypto/rotation.ts';
import { createPayoutCustomerFlow } from './customer-flow.ts';
import { createPayoutJobs } from './jobs.ts';
import { createPayoutPageLock } from './lock.ts';
import { createPayoutPageList } from './list.ts';
import { reencryptPayoutPages } from './reencrypt.ts';
import { createPayoutReconciliation } from './reconciliation.ts';
import { createPayoutFunding } from './funding.ts';
import { createPayoutTransitions, type PayoutPagesDeps } from './transitions.ts';
import { createPayoutUseCases } from './use-cases.ts';

export { payoutExpireQueue, payoutSettleQueue, payoutSubmitQueue, type Actor, type PayoutPagesDeps } from './transitions.ts';
export { defaultPageLifetimeMs, maxPageLifetimeMs } from './use-cases.ts';

/**
 * Payout pages, assembled from their parts: the transitions (the state table applied with
 * everything a change brings), the merchant API's use cases, the customer's flow and the jobs.
 */
export function createPayoutPagesService(deps: PayoutPagesDeps) {
  const transitions = createPayoutTransitions(deps);
  const lock = createPayoutPageLock(deps, transitions);
  return {
    toResponse: transitions.toResponse,
    railFor: transitions.railFor,
    ...createPayoutUseCases(deps, transitions),
    ...createPayoutPageList(deps, transitions),
    ...createPayoutCustomerFlow(deps, transitions, lock),
    reissuePayoutPage: lock.reissuePayoutPage,
    ...createPayoutJobs(deps, transitions),
    ...createPayoutReconciliation(deps),
    ...createPayoutFunding(deps),
    reencryptAll: (options: ReencryptOptions = {}): Promise<number> => reencryptPayoutPages(deps.database, deps.keyRing, options),
  };
}

export type PayoutPagesService = ReturnType<typeof createPayoutPagesService>;
