import { renderEmail, type RenderedEmail } from '../email/templates.ts';

/** `19.00 USD`: minor units (hundredths) as a decimal, integer arithmetic only. */
function formatAmount(amount: number, currency: string): string {
  return `${Math.floor(amount / 100)}.${String(amount % 100).padStart(2, '0')} ${currency}`;
}

// Building an Intl formatter costs far more than using one: build it once.
const dateFormat = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });

export const renewalPageEmailTemplate = 'subscription_renewal_page';

/**
 * The e-mail that sends a customer to the page where they pay a renewal their card issuer wants
 * them to confirm (3-D Secure). No PII beyond the customer's own first name: no e-mail address,
 * card details or other identity data in the body.
 */
export function renewalPageEmail(context: { merchantName: string; firstName: string | null; amount: number; currency: string; url: string; expiresAt: Date }): RenderedEmail & { template: string } {
  const amount = formatAmount(context.amount, context.currency);
  return {
    template: renewalPageEmailTemplate,
    ...renderEmail({
      subject: `Confirm your subscription payment to ${context.merchantName}`,
      title: 'Your subscription payment needs your confirmation',
      paragraphs: [
        context.firstName ? `Hello ${context.firstName},` : 'Hello,',
        `Your bank asked you to confirm the renewal of your subscription with ${context.merchantName} (${amount}), so it could not be charged automatically.`,
        `Pay it on the secure page below by ${dateFormat.format(context.expiresAt)} UTC. Until then your subscription is past due; if it is not paid by then, it ends.`,
      ],
      action: { label: 'Pay your renewal', url: context.url },
    }),
  };
}
