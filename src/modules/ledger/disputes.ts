import { isLedgerCurrency } from './postings.ts';
import type { PostInput } from './service.ts';

export interface DisputeMovement {
  merchantId: string;
  livemode: boolean;
  disputeId: string;
  /** The disputed payment's currency (the page currency). */
  currency: string;
  amount: number;
}

function inCurrency(movement: DisputeMovement): PostInput['currency'] {
  if (!isLedgerCurrency(movement.currency)) {
    throw new Error(`dispute ${movement.disputeId}: the ledger keeps no ${movement.currency} balance`);
  }
  return movement.currency;
}

/**
 * A dispute opened: the card network takes the disputed amount back, so it leaves the merchant's
 * available balance for the outside world. Once per dispute (idempotency key).
 */
export function disputeDebit(movement: DisputeMovement): PostInput {
  return {
    merchantId: movement.merchantId,
    livemode: movement.livemode,
    currency: inCurrency(movement),
    kind: 'dispute',
    reference: movement.disputeId,
    idempotencyKey: `dispute:${movement.disputeId}:debit`,
    postings: [{ source: 'available', destination: 'external', amount: movement.amount }],
  };
}

/** A dispute won: the network returns the amount to the available balance. Once per dispute. */
export function disputeReturn(movement: DisputeMovement): PostInput {
  return {
    merchantId: movement.merchantId,
    livemode: movement.livemode,
    currency: inCurrency(movement),
    kind: 'dispute_won',
    reference: movement.disputeId,
    idempotencyKey: `dispute:${movement.disputeId}:return`,
    postings: [{ source: 'external', destination: 'available', amount: movement.amount }],
  };
}
