import type { Executor } from '../../../db/client.ts';
import type { PayoutDestination, PayoutMethodType } from '../destinations.ts';

/**
 * Where a payout is at its rail, in our words:
 * - PENDING: taken, not paid yet;
 * - PAID: paid out. `recheckAt`: the rail already knows a later change may come (a return it will
 *   report) and asks to be asked again then; rails that report returns by webhook leave it out;
 * - REJECTED: never paid (bad details, refused); the money is still ours;
 * - RETURNED: paid, then given back (an ACH return, a reversal).
 */
export type PayoutRailStatus =
  | { status: 'PENDING' }
  | { status: 'PAID'; transactionHash?: string; recheckAt?: Date }
  | { status: 'REJECTED'; reason: string }
  | { status: 'RETURNED'; reason: string };

export interface PayoutSubmission {
  /** Our payout attempt id: the rail's idempotency key (submitting twice pays once). */
  payoutId: string;
  livemode: boolean;
  amount: number;
  currency: 'USDC' | 'USD';
  destination: PayoutDestination;
  /** The merchant's name, for a bank statement descriptor. */
  merchantName: string;
}

/** A payout as the rail knows it. */
export interface PayoutRailRecord {
  reference: string;
  status: PayoutRailStatus;
}

/** One payout in the rail's own records (the daily reconciliation report compares them with ours). */
export interface PayoutRailListing {
  /** Our payout attempt id as the rail keeps it (idempotency key, refId); null when the rail's record has none. */
  payoutId: string | null;
  reference: string;
  /** Minor units. */
  amount: number;
  status: PayoutRailStatus['status'];
}

/**
 * A payout rail (bank transfers, stablecoin transfers). Live adapters implement the same calls; the
 * sandbox rail is a deterministic implementation of them.
 */
export interface PayoutRail {
  readonly name: string;
  /**
   * Hands a payout to the rail. Idempotent by `payoutId`: a retried job that calls it again gets
   * the same payout and no second payment. A rail that refuses the details at once answers
   * REJECTED. A throw means the outcome is unknown: the caller looks the payout up with `retrieve`
   * before anything else.
   */
  submit(submission: PayoutSubmission): Promise<PayoutRailRecord>;
  /**
   * The payout submitted under our `payoutId`, or null when the rail never received it. `since`:
   * when our attempt was created (no submission is older), for rails that search a time window.
   */
  retrieve(payoutId: string, since?: Date): Promise<PayoutRailRecord | null>;
  /** Where the payout is, by the rail's reference. */
  fetchStatus(reference: string): Promise<PayoutRailStatus>;
  /** The rail's payouts created in [from, to), from its own records (reconciliation report). */
  listPayouts(window: { from: Date; to: Date }): Promise<PayoutRailListing[]>;
  /** How long to wait before asking again while PENDING. */
  readonly pollIntervalMs: number;
  /**
   * What the operator's account at the rail can pay out now for this payout (its currency; on
   * chains, the wallet of its network), in minor units; null when the rail does not say (the
   * sandbox). A payout larger than this waits for funding.
   */
  availableBalance?(payout: Pick<PayoutSubmission, 'currency' | 'destination'>): Promise<number | null>;
}

export const awaitingFundingReason = 'Waiting for the operator to fund the payout account at the payout rail; the payout is sent as soon as the balance covers it.';

/**
 * The rails by mode: live, one rail per payout method (bank transfers: Increase, USDC wallets:
 * Circle), each null until the operator configures it. Sandbox: the built-in sandbox rail for every
 * method, unless the operator set a provider's test-environment keys (`test`: Increase's sandbox,
 * Circle's testnets), which then pay that method's sandbox payouts.
 */
export interface PayoutRails {
  readonly sandbox: PayoutRail;
  readonly test?: Readonly<Partial<Record<PayoutMethodType, PayoutRail | null>>>;
  readonly live: Readonly<Record<PayoutMethodType, PayoutRail | null>>;
}

/** Every rail that may pay in a mode (the built-in sandbox rail first in sandbox mode). */
export function railsOfMode(rails: PayoutRails, livemode: boolean): PayoutRail[] {
  const candidates = livemode ? Object.values(rails.live) : [rails.sandbox, ...Object.values(rails.test ?? {})];
  const unique: PayoutRail[] = [];
  for (const rail of candidates) {
    if (rail && !unique.includes(rail)) {
      unique.push(rail);
    }
  }
  return unique;
}

/**
 * Status changes a rail learns of on its own (a verified provider webhook, after the adapter fetched
 * the object): the payout pages module asks the rail where the payout is and applies it. Implemented
 * by the payout pages service (`railChanged`), called in the caller's transaction.
 */
export interface PayoutRailUpdates {
  railChanged(tx: Executor, now: Date, payoutId: string): Promise<void>;
}

export const noLiveRailReason = 'No live payout rail is configured on this Paysail installation; live payouts cannot be released until the operator configures one.';
