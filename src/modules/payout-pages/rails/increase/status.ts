import type Increase from 'increase';
import type { PayoutRailStatus } from '../types.ts';

type AchStatus = Increase.ACHTransfer['status'];

/**
 * Increase's ACH transfer statuses in our words: one table, tested row by row. `submitted` is
 * PAID only once Increase reports the settlement (the status stays `submitted` and `settlement` is
 * set); a `returned` transfer was paid and given back (an ACH return).
 */
export const increaseAchStatusTable: Readonly<Record<AchStatus, 'PENDING' | 'SUBMITTED' | 'REJECTED' | 'RETURNED'>> = {
  pending_approval: 'PENDING',
  pending_transfer_session_confirmation: 'PENDING',
  pending_reviewing: 'PENDING',
  pending_submission: 'PENDING',
  requires_attention: 'PENDING',
  submitted: 'SUBMITTED',
  canceled: 'REJECTED',
  rejected: 'REJECTED',
  returned: 'RETURNED',
};

export function increaseTransferStatus(transfer: Pick<Increase.ACHTransfer, 'status' | 'settlement' | 'return'>): PayoutRailStatus {
  const mapped = increaseAchStatusTable[transfer.status];
  switch (mapped) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'SUBMITTED':
      return transfer.settlement ? { status: 'PAID' } : { status: 'PENDING' };
    case 'REJECTED':
      return { status: 'REJECTED', reason: `Increase: the ACH transfer was ${transfer.status}` };
    case 'RETURNED':
      return { status: 'RETURNED', reason: `Increase: ACH return${transfer.return ? ` (${transfer.return.raw_return_reason_code}: ${transfer.return.return_reason_code})` : ''}` };
  }
}
