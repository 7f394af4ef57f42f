import type { PayoutDestination } from '../destinations.ts';

export type PayoutRailStatus = { status: 'PENDING' } | { status: 'PAID' } | { status: 'REJECTED'; reason: string };

export interface PayoutSubmission {
  /** The payout page id: the rail's idempotency key (submitting twice pays once). */
  payoutId: string;
  livemode: boolean;
  amount: number;
  currency: 'USDC' | 'USD';
  destination: PayoutDestination;
}

/**
 * A payout rail (bank transfers, stablecoin transfers). Live adapters implement the same calls; the
 * sandbox rail is a deterministic implementation of them.
 */
export interface PayoutRail {
  readonly name: string;
  /**
   * Hands a payout to the rail. Idempotent by `payoutId`: a retried job that calls it again gets
   * the same reference and no second payment.
   */
  submit(submission: PayoutSubmission): Promise<{ reference: string }>;
  /** Where the payout is. */
  fetchStatus(reference: string): Promise<PayoutRailStatus>;
  /** How long to wait before asking again while PENDING. */
  readonly pollIntervalMs: number;
}

/** The rails by mode; `live` is null until an operator configures one. */
export interface PayoutRails {
  readonly sandbox: PayoutRail;
  readonly live: PayoutRail | null;
}

export const noLiveRailReason = 'No live payout rail is configured on this Paysail installation; live payouts cannot be released until the operator configures one.';
