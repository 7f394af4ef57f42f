import type { TransactionState } from '@circle-fin/developer-controlled-wallets';
import type { PayoutRailStatus } from '../types.ts';

/**
 * Circle's transaction states in our words: one table, tested row by row. A transfer is PAID only
 * once Circle reports it COMPLETE (final on chain); CONFIRMED (in a block, not final yet) and the
 * states before it are still PENDING. Failed, cancelled and denied (screening) transfers never
 * moved the money: REJECTED. Chains do not return transfers, so nothing maps to RETURNED.
 */
export const circleTransactionStateTable: Readonly<Record<TransactionState, 'PENDING' | 'PAID' | 'REJECTED'>> = {
  INITIATED: 'PENDING',
  QUEUED: 'PENDING',
  SENT: 'PENDING',
  STUCK: 'PENDING',
  CLEARED: 'PENDING',
  CONFIRMED: 'PENDING',
  COMPLETE: 'PAID',
  FAILED: 'REJECTED',
  CANCELLED: 'REJECTED',
  DENIED: 'REJECTED',
};

export function circleTransactionStatus(transaction: { state: TransactionState; txHash?: string | undefined; errorReason?: string | undefined }): PayoutRailStatus {
  switch (circleTransactionStateTable[transaction.state]) {
    case 'PAID':
      return transaction.txHash ? { status: 'PAID', transactionHash: transaction.txHash } : { status: 'PAID' };
    case 'REJECTED':
      return { status: 'REJECTED', reason: `Circle: the USDC transfer ${transaction.state.toLowerCase()}${transaction.errorReason ? ` (${transaction.errorReason.slice(0, 80)})` : ''}` };
    default:
      return { status: 'PENDING' };
  }
}
