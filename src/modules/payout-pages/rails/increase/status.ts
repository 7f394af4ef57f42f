import type Increase from 'increase';
import type { PayoutRailStatus } from '../types.ts';

type AchStatus = Increase.ACHTransfer['status'];
type RtpStatus = Increase.RealTimePaymentsTransfer['status'];
type Mapped = 'PENDING' | 'SUBMITTED' | 'PAID' | 'REJECTED' | 'RETURNED';

/**
 * Increase's transfer statuses in our words: one table per transfer type Paysail sends, tested row
 * by row.
 * - ACH: `submitted` is PAID only once Increase reports the settlement (the status stays
 *   `submitted` and `settlement` is set); a `returned` transfer was paid and given back (an ACH return).
 * - Real-Time Payments: `complete` is PAID (the receiving bank accepted it; RTP payments are final,
 *   no return follows); `submitted` waits for the network's answer; `rejected` by the network or
 *   the receiving bank, or `canceled`, was never paid.
 */
export const increaseStatusTable: {
  readonly ach_transfer: Readonly<Record<AchStatus, Exclude<Mapped, 'PAID'>>>;
  readonly real_time_payments_transfer: Readonly<Record<RtpStatus, Exclude<Mapped, 'SUBMITTED' | 'RETURNED'>>>;
} = {
  ach_transfer: {
    pending_approval: 'PENDING',
    pending_transfer_session_confirmation: 'PENDING',
    pending_reviewing: 'PENDING',
    pending_submission: 'PENDING',
    requires_attention: 'PENDING',
    submitted: 'SUBMITTED',
    canceled: 'REJECTED',
    rejected: 'REJECTED',
    returned: 'RETURNED',
  },
  real_time_payments_transfer: {
    pending_approval: 'PENDING',
    pending_submission: 'PENDING',
    pending_reviewing: 'PENDING',
    requires_attention: 'PENDING',
    submitted: 'PENDING',
    complete: 'PAID',
    canceled: 'REJECTED',
    rejected: 'REJECTED',
  },
};

/** The ACH rows (kept under their own name). */
export const increaseAchStatusTable = increaseStatusTable.ach_transfer;

export function increaseTransferStatus(transfer: Pick<Increase.ACHTransfer, 'status' | 'settlement' | 'return'>): PayoutRailStatus {
  const mapped = increaseStatusTable.ach_transfer[transfer.status];
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

export function increaseRtpTransferStatus(transfer: Pick<Increase.RealTimePaymentsTransfer, 'status' | 'rejection'>): PayoutRailStatus {
  const mapped = increaseStatusTable.real_time_payments_transfer[transfer.status];
  switch (mapped) {
    case 'PENDING':
      return { status: 'PENDING' };
    case 'PAID':
      return { status: 'PAID' };
    case 'REJECTED':
      return {
        status: 'REJECTED',
        reason: `Increase: the Real-Time Payments transfer was ${transfer.status}${transfer.rejection ? ` (${transfer.rejection.reject_reason_code})` : ''}`,
      };
  }
}
