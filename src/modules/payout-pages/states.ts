/**
 * The payout page state machine as data (docs/API.md §8): every allowed move is one row of
 * `transitions`, with what it does to the ledger, which job it starts and which e-mail it sends.
 * Pure: no database, no clock. The service applies a row with a conditional UPDATE
 * (`WHERE status = from.status AND sub_status = from.subStatus`), so two racing actions have
 * exactly one winner.
 */

export const payoutPageStates = {
  CREATED: ['AWAITING_CUSTOMER'],
  PENDING: ['KYC_REQUIRED', 'KYC_IN_REVIEW', 'AWAITING_RELEASE'],
  PROCESSING: ['SUBMITTED'],
  PROCESSED: ['PAID'],
  FAILED: ['KYC_REJECTED', 'PAYOUT_REJECTED', 'PAYOUT_RETURNED'],
  CANCELED: ['CUSTOMER_DECLINED', 'MERCHANT_CANCELED'],
  EXPIRED: ['NOT_COMPLETED'],
} as const;

export type PayoutPageStatus = keyof typeof payoutPageStates;
export type PayoutPageSubStatus = (typeof payoutPageStates)[PayoutPageStatus][number];
export interface PayoutPageState {
  readonly status: PayoutPageStatus;
  readonly subStatus: PayoutPageSubStatus;
}

export const payoutPageStatuses = Object.keys(payoutPageStates) as PayoutPageStatus[];
export const payoutPageSubStatuses = Object.values(payoutPageStates).flat() as PayoutPageSubStatus[];

/** Every valid (status, sub-status) pair. */
export const allStates: readonly PayoutPageState[] = payoutPageStatuses.flatMap((status) =>
  (payoutPageStates[status] as readonly PayoutPageSubStatus[]).map((subStatus) => ({ status, subStatus })),
);

export const initialState: PayoutPageState = { status: 'CREATED', subStatus: 'AWAITING_CUSTOMER' };

/**
 * - confirm: the customer confirmed method and destination (hosted page or test helper);
 * - kycSubmitted: the hosted KYC form completed the customer's identity data;
 * - kycApproved / kycRejected: the KYC provider decided;
 * - kycRestarted: the customer's identity is verified again (identity data changed after approval):
 *   an approval that is no longer current must not release the payout;
 * - release: the merchant releases a MANUAL payout; autoRelease: the same, done by the system at
 *   once for AUTOMATIC payouts;
 * - cancel (merchant), decline (customer), expire (the expiry job at `expiresAt`);
 * - railPaid / railRejected: the payout rail's outcome; railReturned: the rail reports a return
 *   (an ACH return, a reversal) after it had paid;
 * - retry: the customer enters other details after a rejection or a return (a new attempt).
 */
export const payoutPageActions = [
  'confirm',
  'kycSubmitted',
  'kycApproved',
  'kycRejected',
  'kycRestarted',
  'release',
  'autoRelease',
  'cancel',
  'decline',
  'expire',
  'railPaid',
  'railRejected',
  'railReturned',
  'retry',
] as const;
export type PayoutPageAction = (typeof payoutPageActions)[number];

export type KycStatus = 'NOT_STARTED' | 'PENDING' | 'APPROVED' | 'REJECTED';
export type ReleaseMethod = 'AUTOMATIC' | 'MANUAL';

/** What a guard may look at. */
export interface TransitionContext {
  readonly releaseMethod: ReleaseMethod;
  /** The customer's KYC status; only the `confirm` rows look at it. */
  readonly kycStatus?: KycStatus;
}

/**
 * Ledger movements between a merchant's accounts (reserve is done at creation). Each has its
 * compensation (medusa's action + compensation): reserve ↔ release, submit ↔ return, settle ↔
 * reverse (the rail gave the money back after paying it out).
 */
export const ledgerMovements = {
  reserve: { source: 'available', destination: 'reserved' },
  release: { source: 'reserved', destination: 'available' },
  submit: { source: 'reserved', destination: 'in_flight' },
  settle: { source: 'in_flight', destination: 'external' },
  return: { source: 'in_flight', destination: 'available' },
  reverse: { source: 'external', destination: 'available' },
} as const;
export type LedgerMovement = keyof typeof ledgerMovements;

export type PayoutEmail = 'kycRequired' | 'processing' | 'processed' | 'failed' | 'returned' | 'canceled' | 'declined' | 'expired';

export interface Transition {
  readonly from: PayoutPageState;
  readonly action: PayoutPageAction;
  readonly when?: { readonly releaseMethod?: ReleaseMethod; readonly kycStatus?: KycStatus };
  readonly to: PayoutPageState;
  readonly ledger: LedgerMovement | null;
  readonly email: PayoutEmail | null;
  /** Entering PROCESSING hands the payout to the rail (the submit job). */
  readonly submitsPayout: boolean;
}

const state = <S extends PayoutPageStatus>(status: S, subStatus: (typeof payoutPageStates)[S][number]): PayoutPageState => ({ status, subStatus });

const created = state('CREATED', 'AWAITING_CUSTOMER');
const kycRequired = state('PENDING', 'KYC_REQUIRED');
const kycInReview = state('PENDING', 'KYC_IN_REVIEW');
const awaitingRelease = state('PENDING', 'AWAITING_RELEASE');
const submitted = state('PROCESSING', 'SUBMITTED');
const paid = state('PROCESSED', 'PAID');
const payoutRejected = state('FAILED', 'PAYOUT_REJECTED');
const payoutReturned = state('FAILED', 'PAYOUT_RETURNED');
const pendingStates = [kycRequired, kycInReview, awaitingRelease];

function row(from: PayoutPageState, action: PayoutPageAction, to: PayoutPageState, effects: Partial<Pick<Transition, 'ledger' | 'email' | 'submitsPayout' | 'when'>> = {}): Transition {
  return { from, action, to, ledger: effects.ledger ?? null, email: effects.email ?? null, submitsPayout: effects.submitsPayout ?? false, ...(effects.when ? { when: effects.when } : {}) };
}

/** The one transition table. Anything not listed is INVALID_STATE. */
export const transitions: readonly Transition[] = [
  // The customer confirms: where the page goes depends on the customer's KYC.
  row(created, 'confirm', kycRequired, { when: { kycStatus: 'NOT_STARTED' }, email: 'kycRequired' }),
  row(created, 'confirm', kycInReview, { when: { kycStatus: 'PENDING' } }),
  row(created, 'confirm', awaitingRelease, { when: { kycStatus: 'APPROVED' } }),
  row(created, 'confirm', state('FAILED', 'KYC_REJECTED'), { when: { kycStatus: 'REJECTED' }, ledger: 'release', email: 'failed' }),
  // KYC.
  row(kycRequired, 'kycSubmitted', kycInReview),
  row(kycRequired, 'kycApproved', awaitingRelease),
  row(kycInReview, 'kycApproved', awaitingRelease),
  row(kycRequired, 'kycRejected', state('FAILED', 'KYC_REJECTED'), { ledger: 'release', email: 'failed' }),
  row(kycInReview, 'kycRejected', state('FAILED', 'KYC_REJECTED'), { ledger: 'release', email: 'failed' }),
  // Re-verification: a page waiting for its (MANUAL) release waits for the new decision instead.
  row(awaitingRelease, 'kycRestarted', kycInReview),
  // Release: by the merchant (MANUAL) or at once by the system (AUTOMATIC).
  row(awaitingRelease, 'release', submitted, { when: { releaseMethod: 'MANUAL' }, ledger: 'submit', email: 'processing', submitsPayout: true }),
  row(awaitingRelease, 'autoRelease', submitted, { when: { releaseMethod: 'AUTOMATIC' }, ledger: 'submit', email: 'processing', submitsPayout: true }),
  // Before PROCESSING the merchant may cancel and the customer may decline.
  ...[created, ...pendingStates].map((from) => row(from, 'cancel', state('CANCELED', 'MERCHANT_CANCELED'), { ledger: 'release', email: 'canceled' })),
  ...[created, ...pendingStates].map((from) => row(from, 'decline', state('CANCELED', 'CUSTOMER_DECLINED'), { ledger: 'release', email: 'declined' })),
  // Unconfirmed at expiresAt.
  row(created, 'expire', state('EXPIRED', 'NOT_COMPLETED'), { ledger: 'release', email: 'expired' }),
  // The payout rail's outcome.
  row(submitted, 'railPaid', paid, { ledger: 'settle', email: 'processed' }),
  row(submitted, 'railRejected', payoutRejected, { ledger: 'return', email: 'failed' }),
  row(paid, 'railReturned', payoutReturned, { ledger: 'reverse', email: 'returned' }),
  // After a rejection or a return the customer may enter other details: a new attempt, reserved
  // again, released as the page's releaseMethod says (AUTOMATIC at once, MANUAL by the merchant).
  // The customer's identity is checked again first: one re-verified after a change waits in
  // review (its amount reserved), one rejected since fails here, as at confirmation.
  ...[payoutRejected, payoutReturned].flatMap((from) => [
    row(from, 'retry', awaitingRelease, { when: { kycStatus: 'APPROVED' }, ledger: 'reserve' }),
    row(from, 'retry', kycInReview, { when: { kycStatus: 'PENDING' }, ledger: 'reserve' }),
    row(from, 'retry', state('FAILED', 'KYC_REJECTED'), { when: { kycStatus: 'REJECTED' }, email: 'failed' }),
  ]),
];

export function sameState(a: PayoutPageState, b: PayoutPageState): boolean {
  return a.status === b.status && a.subStatus === b.subStatus;
}

/** The row that applies, or null when the action is not allowed from `from` (INVALID_STATE). */
export function findTransition(from: PayoutPageState, action: PayoutPageAction, context: TransitionContext): Transition | null {
  for (const candidate of transitions) {
    if (candidate.action !== action || !sameState(candidate.from, from)) {
      continue;
    }
    if (candidate.when?.releaseMethod !== undefined && candidate.when.releaseMethod !== context.releaseMethod) {
      continue;
    }
    if (candidate.when?.kycStatus !== undefined && candidate.when.kycStatus !== context.kycStatus) {
      continue;
    }
    return candidate;
  }
  return null;
}

/** Statuses after which nothing moves any more. */
export function isFinal(state: PayoutPageState): boolean {
  return transitions.every((candidate) => !sameState(candidate.from, state));
}

export function isValidState(status: string, subStatus: string): boolean {
  return allStates.some((candidate) => candidate.status === status && candidate.subStatus === subStatus);
}

/** The action a KYC decision applies to the customer's pages waiting on it. */
export function actionForKycDecision(decision: 'APPROVED' | 'REJECTED'): PayoutPageAction {
  return decision === 'APPROVED' ? 'kycApproved' : 'kycRejected';
}
