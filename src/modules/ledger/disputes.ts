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

/** One of a dispute's two movements, once per dispute and step (its idempotency key). */
function disputeMovement(
  movement: DisputeMovement,
  kind: PostInput['kind'],
  step: 'debit' | 'return',
  posting: Pick<PostInput['postings'][number], 'source' | 'destination'>,
): PostInput {
  return {
    merchantId: movement.merchantId,
    livemode: movement.livemode,
    currency: inCurrency(movement),
    kind,
    reference: movement.disputeId,
    idempotencyKey: `dispute:${movement.disputeId}:${step}`,
    postings: [{ ...posting, amount: movement.amount }],
  };
}

/**
 * A dispute opened: the card network takes the disputed amount back, so it leaves the merchant's
 * available balance for the outside world. Once per dispute (idempotency key).
 */
export function disputeDebit(movement: DisputeMovement): PostInput {
  return disputeMovement(movement, 'dispute', 'debit', { source: 'available', destination: 'external' });
}

/** A dispute won: the network returns the amount to the available balance. Once per dispute. */
export function disputeReturn(movement: DisputeMovement): PostInput {
  return disputeMovement(movement, 'dispute_won', 'return', { source: 'external', destination: 'available' });
}
