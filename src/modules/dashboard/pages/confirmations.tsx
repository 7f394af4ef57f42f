import type { Child } from 'hono/jsx';
import type { PayoutPageResponse } from '../../payout-pages/index.ts';
import type { PaymentPageResponse } from '../../payment-pages/index.ts';
import type { SubscriptionResponse } from '../../subscriptions/index.ts';
import type { PaymentAttemptView } from '../presenters/payment-pages.ts';
import { formatMoney } from './components.tsx';
import type { Confirmation } from './confirm-dialog.tsx';

/**
 * What each irreversible dashboard action says before it runs (issue 16 item 8), built from the data
 * its screen already has. The same text is used by the dialog on the screen and by the confirmation
 * page the server answers to a POST without `confirmed=1`.
 */

function utcDay(epochMs: number): string {
  return `${new Date(epochMs).toISOString().slice(0, 10)} (UTC)`;
}

function payee(page: PayoutPageResponse): string {
  return page.customer.email ? `${page.customer.email} (customer ${page.customer.referenceId})` : `customer ${page.customer.referenceId}`;
}

function payoutMethod(page: PayoutPageResponse): string {
  const chosen = page.payoutMethod;
  if (!chosen) {
    return '';
  }
  return chosen.type === 'BANK_TRANSFER' ? ` by bank transfer to account …${chosen.last4}` : ` to the ${chosen.network} wallet ${chosen.address}`;
}

export function releasePayoutConfirmation(page: PayoutPageResponse): Confirmation {
  const amount = formatMoney(page.amount, page.fundingCurrency);
  return {
    title: 'Release this payout?',
    text: `${amount} will be paid to ${payee(page)}${payoutMethod(page)}. Once released, the payout cannot be stopped or undone.`,
    confirmLabel: `Release ${amount}`,
    tone: 'primary',
  };
}

export function cancelPayoutConfirmation(page: PayoutPageResponse): Confirmation {
  const amount = formatMoney(page.amount, page.fundingCurrency);
  return {
    title: 'Cancel this payout page?',
    text: `The payout of ${amount} to ${payee(page)} will not be made: the page stops working for the customer and the ${amount} reserved for it returns to your available balance. A canceled page cannot be reopened.`,
    confirmLabel: 'Cancel payout page',
    dismissLabel: 'Keep payout page',
  };
}

export function expirePaymentConfirmation(page: PaymentPageResponse): Confirmation {
  return {
    title: 'Expire this payment page?',
    text: `${page.customer.email} (customer ${page.customer.referenceId}) can no longer pay ${formatMoney(page.amount, page.currency)} on payment page ${page.clientReferenceId}; a PAYMENT_EXPIRED event follows. An expired page cannot be reopened.`,
    confirmLabel: 'Expire page',
  };
}

/** The card that paid the page (its succeeded attempt, not a renewal), as the attempts table shows it. */
export function paidWithCard(attempts: readonly PaymentAttemptView[]): string | undefined {
  return attempts.find((attempt) => attempt.status === 'SUCCEEDED' && attempt.kind !== 'RENEWAL')?.card;
}

/** `amount`: the formatted amount, or (in the dialog) an element the script fills with the typed amount. */
export function refundConfirmation(page: PaymentPageResponse, amount: Child, card: string | undefined): Confirmation {
  return {
    title: 'Refund this payment?',
    text: (
      <>
        {amount} will be sent back to {card ? `the card ${card}` : 'the card'} of {page.customer.email} (customer {page.customer.referenceId}), who paid payment page {page.clientReferenceId}. The amount leaves
        your available balance now. A refund cannot be undone.
      </>
    ),
    confirmLabel: 'Make the refund',
  };
}

export function cancelSubscriptionConfirmation(subscription: SubscriptionResponse, customerReferenceId: string | null): Confirmation {
  const every = subscription.intervalCount === 1 ? subscription.interval.toLowerCase() : `${subscription.intervalCount} ${subscription.interval.toLowerCase()}s`;
  return {
    title: 'Cancel this subscription?',
    text: `${customerReferenceId ? `Customer ${customerReferenceId}` : 'The customer'} will not be charged ${formatMoney(subscription.amount, subscription.currency)} every ${every} any more: ${subscription.productId} ends on ${utcDay(subscription.currentPeriodEnd)}, at the end of the current period, with no renewal. A canceled subscription cannot be resumed; the customer would have to subscribe again.`,
    confirmLabel: 'Cancel subscription',
    dismissLabel: 'Keep subscription',
  };
}

export function revokeApiKeyConfirmation(key: { name: string; last4: string }): Confirmation {
  return {
    title: `Revoke the API key “${key.name}”?`,
    text: `Every request made with sk_…${key.last4} (“${key.name}”) will answer 401 from now on. Switch the integrations that use it to another key first: a revoked key cannot be restored.`,
    confirmLabel: 'Revoke key',
  };
}

export function rotateWebhookSecretConfirmation(endpoint: { url: string }): Confirmation {
  return {
    title: 'Rotate the signing secret?',
    text: `Events sent to ${endpoint.url} will be signed with a new secret, shown once after the rotation. The current secret keeps signing for 24 hours too: update your integration before then. The current secret cannot be brought back.`,
    confirmLabel: 'Rotate secret',
  };
}

export function deleteEndpointConfirmation(endpoint: { url: string }): Confirmation {
  return {
    title: 'Delete this webhook endpoint?',
    text: `${endpoint.url} will receive no more events, and its signing secret stops being used. Its past deliveries stay in the event log. A deleted endpoint cannot be restored; you would add it again with a new secret.`,
    confirmLabel: 'Delete endpoint',
  };
}

export function rotatePiiKeyConfirmation(): Confirmation {
  return {
    title: 'Rotate the PII key?',
    text: "A new key will encrypt your customers' personal data in every API answer from now on (the JWE header's kid names it). Older keys still decrypt what they encrypted. Add the new key to your decryption code before you read new data: the rotation cannot be undone.",
    confirmLabel: 'Rotate key',
  };
}

export function reissuePayoutConfirmation(page: PayoutPageResponse): Confirmation {
  return {
    title: 'Reissue this payout page?',
    text: `The page of the payout of ${formatMoney(page.amount, page.fundingCurrency)} to ${payee(page)} is unlocked and the customer is e-mailed the link again; earlier codes stop working and code guessing starts again from zero. Reissue it only once you know the wrong codes were the customer's.`,
    confirmLabel: 'Reissue payout page',
    tone: 'primary',
  };
}

export function eraseCustomerConfirmation(customer: { referenceId: string }): Confirmation {
  return {
    title: 'Erase this customer?',
    text: `The personal data of customer ${customer.referenceId} — name, date of birth, phone, address, e-mail, bank or wallet details, cardholder name and the e-mails sent to them — is removed, and the KYC provider is asked to delete its copy. Payments, payouts, refunds and balances stay. Erasure cannot be undone.`,
    confirmLabel: 'Erase customer',
  };
}

export function removeMemberConfirmation(member: { email: string }): Confirmation {
  return {
    title: `Remove ${member.email} from the team?`,
    text: `${member.email} is signed out everywhere at once and can no longer sign in to this account. Their past actions stay in the audit log. To bring them back, invite them again.`,
    confirmLabel: 'Remove member',
    dismissLabel: 'Keep member',
  };
}

export function revokeInviteConfirmation(invite: { email: string }): Confirmation {
  return {
    title: `Revoke the invitation of ${invite.email}?`,
    text: `The link e-mailed to ${invite.email} stops working at once. You can invite them again later.`,
    confirmLabel: 'Revoke invitation',
    dismissLabel: 'Keep invitation',
  };
}
