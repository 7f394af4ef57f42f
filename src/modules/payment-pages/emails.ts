import { renderEmail, type RenderedEmail } from '../email/index.ts';

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

const moneyFormats = new Map<string, Intl.NumberFormat>();

/** `$19.00`, `€5.50`: as the hosted page shows amounts. */
export function formatMoney(amount: number, currency: string): string {
  let format = moneyFormats.get(currency);
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency });
    moneyFormats.set(currency, format);
  }
  return format.format(amount / 100);
}

export const receiptEmailTemplate = 'payment_receipt';
export const refundNoticeEmailTemplate = 'payment_refunded';

/** What a receipt and a refund notice say about the merchant and the payment. */
export interface ReceiptContext {
  merchantName: string;
  /** Where the customer asks about the payment: the merchant's contact address. */
  supportEmail: string;
  livemode: boolean;
  firstName: string | null;
  amount: number;
  currency: string;
  description: string | null;
  lineItems: ReadonlyArray<{ name: string; quantity: number; unitAmount: number }> | null;
  /** `Visa ending in 4242`. */
  card: string;
  paymentId: string;
  paidAt: Date;
}

function greeting(firstName: string | null): string {
  return firstName ? `Hello ${firstName},` : 'Hello,';
}

function sandboxNote(livemode: boolean): string[] {
  return livemode ? [] : ['Sandbox: this is a test payment, no money moved.'];
}

function support(context: Pick<ReceiptContext, 'merchantName' | 'supportEmail'>): string {
  return `Questions about this payment? Contact ${context.merchantName} at ${context.supportEmail}.`;
}

/**
 * The receipt a customer gets when their payment page is paid: merchant, amount, what was paid for
 * (description and line items), card brand and last 4, date, payment id and who to ask. No PII beyond
 * the customer's own first name.
 */
export function receiptEmail(context: ReceiptContext): RenderedEmail & { template: string } {
  const total = formatMoney(context.amount, context.currency);
  const lines = (context.lineItems ?? []).map(
    (item) => [item.quantity === 1 ? item.name : `${item.name} × ${item.quantity}`, formatMoney(item.quantity * item.unitAmount, context.currency)] as const,
  );
  return {
    template: receiptEmailTemplate,
    ...renderEmail({
      subject: `Your receipt from ${context.merchantName}`,
      title: `Receipt from ${context.merchantName}`,
      paragraphs: [
        ...sandboxNote(context.livemode),
        greeting(context.firstName),
        `You paid ${total} to ${context.merchantName} on ${dateFormat.format(context.paidAt)} UTC.`,
        ...(context.description ? [context.description] : []),
      ],
      rows: [
        ...lines,
        ['Amount paid', total],
        ['Paid with', context.card],
        ['Date', `${dateFormat.format(context.paidAt)} UTC`],
        ['Payment ID', context.paymentId],
      ],
      footer: `${support(context)} This receipt was sent by Paysail on behalf of ${context.merchantName}.`,
    }),
  };
}

/** The notice a customer gets when a refund of their payment succeeded. */
export function refundNoticeEmail(context: ReceiptContext & { refundId: string; refundAmount: number; refundedAt: Date }): RenderedEmail & { template: string } {
  const refunded = formatMoney(context.refundAmount, context.currency);
  return {
    template: refundNoticeEmailTemplate,
    ...renderEmail({
      subject: `Your refund from ${context.merchantName}`,
      title: `${context.merchantName} refunded ${refunded}`,
      paragraphs: [
        ...sandboxNote(context.livemode),
        greeting(context.firstName),
        `${context.merchantName} refunded ${refunded} of your payment of ${formatMoney(context.amount, context.currency)}${context.description ? ` for “${context.description}”` : ''}.`,
        `The money goes back to your ${context.card}. Depending on your bank it can take 5–10 business days to appear on your statement.`,
      ],
      rows: [
        ['Refund', refunded],
        ['Refunded on', `${dateFormat.format(context.refundedAt)} UTC`],
        ['Original payment', `${formatMoney(context.amount, context.currency)} on ${dateFormat.format(context.paidAt)} UTC`],
        ['Refunded to', context.card],
        ['Refund ID', context.refundId],
        ['Payment ID', context.paymentId],
      ],
      footer: `${support(context)} This notice was sent by Paysail on behalf of ${context.merchantName}.`,
    }),
  };
}
