/**
 * Statuses in words for people (issue 16: never a raw code like `AWAITING_RELEASE` on screen). The
 * code stays available: badges carry it in their tooltip, and the API answers it.
 */
const statusWords: Readonly<Record<string, string>> = {
  // Payout pages
  CREATED: 'Open',
  PENDING: 'Pending',
  PROCESSING: 'Processing',
  PROCESSED: 'Paid out',
  // Payments, pages, refunds, subscriptions, disputes, KYC
  PAID: 'Paid',
  SUCCEEDED: 'Succeeded',
  DECLINED: 'Declined',
  FAILED: 'Failed',
  EXPIRED: 'Expired',
  CANCELED: 'Canceled',
  ACTIVE: 'Active',
  PAST_DUE: 'Past due',
  NEEDS_RESPONSE: 'Needs your response',
  UNDER_REVIEW: 'Under review',
  WON: 'Won',
  LOST: 'Lost',
  NOT_STARTED: 'Not started',
  APPROVED: 'Approved',
  REJECTED: 'Rejected',
  // Payout attempts at the rail
  SUBMITTING: 'Sending to the bank',
  SUBMITTED: 'Sent to the bank',
  RETURNED: 'Returned by the bank',
  // Keys, endpoints, e-mails, test events
  REVOKED: 'Revoked',
  DISABLED: 'Disabled',
  TEST: 'Test',
  queued: 'Queued',
  sent: 'Sent',
  stored: 'In the inbox',
  failed: 'Failed',
};

/** A payout page's sub-status: what is happening, and who is waited for. */
const payoutSubStatusWords: Readonly<Record<string, string>> = {
  AWAITING_CUSTOMER: 'Waiting for the customer',
  KYC_REQUIRED: 'Waiting for the identity check',
  KYC_IN_REVIEW: 'Identity check in review',
  AWAITING_RELEASE: 'Waiting for your release',
  SUBMITTED: 'Sent to the bank or network',
  PAID: 'Paid to the customer',
  KYC_REJECTED: 'Identity check failed',
  PAYOUT_REJECTED: 'Rejected by the bank',
  PAYOUT_RETURNED: 'Returned by the bank',
  CUSTOMER_DECLINED: 'Declined by the customer',
  MERCHANT_CANCELED: 'Canceled by you',
  NOT_COMPLETED: 'Not completed in time',
};

/** `SOME_CODE` → `Some code`, for a code the tables above do not know yet. */
function humanize(code: string): string {
  const words = code.replace(/_/g, ' ').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

export function statusInWords(code: string): string {
  return statusWords[code] ?? humanize(code);
}

export function payoutSubStatusInWords(code: string): string {
  return payoutSubStatusWords[code] ?? humanize(code);
}
