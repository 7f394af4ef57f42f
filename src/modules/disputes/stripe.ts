import type Stripe from 'stripe';
import type { ProcessorDispute, ProcessorDisputeStatus } from '../card-processor/index.ts';

/**
 * Stripe dispute statuses → ours (one table, a test per row). Inquiries (`warning_*`) count as
 * disputes: one closed without a chargeback (`warning_closed`) ends WON, as does one Stripe
 * `prevented`; appeals reopen nothing once we closed it (states.ts).
 */
export const stripeDisputeStates: Readonly<Record<string, ProcessorDisputeStatus>> = {
  warning_needs_response: 'NEEDS_RESPONSE',
  warning_under_review: 'UNDER_REVIEW',
  warning_closed: 'WON',
  needs_response: 'NEEDS_RESPONSE',
  under_review: 'UNDER_REVIEW',
  appeal_needs_response: 'NEEDS_RESPONSE',
  appeal_under_review: 'UNDER_REVIEW',
  prevented: 'WON',
  won: 'WON',
  lost: 'LOST',
};

/** `product_not_received` → `PRODUCT_NOT_RECEIVED`. */
export function disputeReasonOf(reason: string): string {
  const normalized = reason.trim().replace(/[^A-Za-z0-9]+/g, '_').toUpperCase();
  return normalized === '' ? 'GENERAL' : normalized;
}

/** A Stripe dispute of our payment `paymentId` as the port's dispute; null for a status we do not know (nothing is guessed). */
export function disputeFromStripe(dispute: Stripe.Dispute, paymentId: string, livemode: boolean, processor: string): ProcessorDispute | null {
  const status = stripeDisputeStates[dispute.status];
  if (!status) {
    return null;
  }
  const dueBy = dispute.evidence_details.due_by;
  return {
    processor,
    processorReference: dispute.id,
    paymentId,
    livemode,
    amount: dispute.amount,
    currency: dispute.currency.toUpperCase(),
    reason: disputeReasonOf(dispute.reason),
    status,
    evidenceDueBy: dueBy === null ? null : new Date(dueBy * 1000),
  };
}
