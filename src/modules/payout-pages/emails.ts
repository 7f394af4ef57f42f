import type { PayoutEmail } from './states.ts';
import { supportSentence, type EmailBrand } from '../email/index.ts';

/**
 * Customer e-mails about a payout page. Text and HTML parts; every interpolated value is
 * HTML-escaped. No PII beyond the customer's own first name (no destination details, no
 * address, no other identity data).
 */

export function escapeHtml(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&#39;');
}

/** `1,234.56 USDC` / `$1,234.56`: integer arithmetic, no floating point. */
export function formatAmount(amount: number, currency: string): string {
  const whole = String(Math.floor(amount / 100)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const cents = String(amount % 100).padStart(2, '0');
  return currency === 'USD' ? `$${whole}.${cents}` : `${whole}.${cents} ${currency}`;
}

// Building an Intl formatter costs far more than using one: build it once.
const dateFormat = new Intl.DateTimeFormat('en-US', { timeZone: 'UTC', dateStyle: 'long', timeStyle: 'short' });

export function formatDate(date: Date): string {
  return `${dateFormat.format(date)} UTC`;
}

export interface PayoutEmailContext {
  merchantName: string;
  /** The merchant's branding: its name on top, its colour as the accent and on the button, its support contact. */
  brand: EmailBrand;
  firstName: string | null;
  amount: number;
  currency: string;
  url: string;
  expiresAt: Date;
  subStatus: string;
}

export interface EmailContent {
  template: string;
  subject: string;
  text: string;
  html: string;
}

type Paragraph = string | { link: string; label: string };

const hexColor = /^#[0-9a-f]{6}$/;

function render(template: string, subject: string, greetingName: string | null, paragraphs: Paragraph[], brand: EmailBrand): EmailContent {
  const greeting = greetingName ? `Hi ${greetingName},` : 'Hello,';
  const support = supportSentence(brand);
  const signature = `Sent by Paysail on behalf of ${brand.displayName}.`;
  const text = [brand.displayName, '', greeting, '', ...paragraphs.flatMap((paragraph) => [typeof paragraph === 'string' ? paragraph : `${paragraph.label}: ${paragraph.link}`, '']), ...(support ? [support, ''] : []), `— ${signature}`].join('\n');
  const accent = brand.color && hexColor.test(brand.color) ? brand.color : '#1d4ed8';
  const accentInk = brand.color && hexColor.test(brand.buttonTextColor) ? brand.buttonTextColor : '#ffffff';
  const body = paragraphs
    .map((paragraph) =>
      typeof paragraph === 'string'
        ? `<p>${escapeHtml(paragraph)}</p>`
        : `<p><a href="${escapeHtml(paragraph.link)}" style="display:inline-block;padding:10px 16px;background:${accent};color:${accentInk};border-radius:6px;text-decoration:none">${escapeHtml(paragraph.label)}</a></p>`,
    )
    .join('\n');
  const header = `<p style="margin:0 0 16px;padding-top:12px;border-top:4px solid ${accent};font-weight:700;font-size:16px">${escapeHtml(brand.displayName)}</p>`;
  const footer = `${support ? `<p style="color:#475569;font-size:13px">${escapeHtml(support)}</p>\n` : ''}<p style="color:#475569;font-size:13px">${escapeHtml(signature)}</p>`;
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body style="font-family:system-ui,sans-serif;color:#0f172a;line-height:1.5">${header}\n<p>${escapeHtml(greeting)}</p>\n${body}\n${footer}</body></html>`;
  return { template, subject, text, html };
}

export function pageCreatedEmail(context: PayoutEmailContext): EmailContent {
  const amount = formatAmount(context.amount, context.currency);
  return render('payout_page_created', `${context.merchantName} is sending you ${amount}`, context.firstName, [
    `${context.merchantName} has started a payout of ${amount} to you. Open the secure page to choose how you would like to receive it.`,
    { link: context.url, label: 'Choose how to get paid' },
    `The link expires on ${formatDate(context.expiresAt)}. If you were not expecting this payout, you can ignore this e-mail or decline it on the page.`,
  ], context.brand);
}

export function verificationCodeEmail(context: { merchantName: string; brand: EmailBrand; firstName: string | null; code: string; minutes: number }): EmailContent {
  return render('payout_page_verification_code', 'Your verification code', context.firstName, [
    `Your code is ${context.code}. Enter it on the payout page from ${context.merchantName} to continue.`,
    `It expires in ${context.minutes} minutes. Never share this code with anyone: Paysail and ${context.merchantName} will never ask you for it.`,
  ], context.brand);
}

/** The e-mail a transition sends (states.ts names which). */
export function transitionEmail(kind: PayoutEmail, context: PayoutEmailContext): EmailContent {
  const amount = formatAmount(context.amount, context.currency);
  const link = { link: context.url, label: 'View your payout' };
  switch (kind) {
    case 'kycRequired':
      return render('payout_page_kyc_required', `Verify your identity to receive ${amount}`, context.firstName, [
        `To receive the payout of ${amount} from ${context.merchantName}, we need to verify your identity. It takes a couple of minutes.`,
        { link: context.url, label: 'Verify my identity' },
      ], context.brand);
    case 'processing':
      return render('payout_page_processing', `Your payout of ${amount} is on its way`, context.firstName, [
        `${context.merchantName} has released your payout of ${amount}. It is being sent to the destination you chose.`,
        link,
      ], context.brand);
    case 'processed':
      return render('payout_page_processed', `Your payout of ${amount} has been sent`, context.firstName, [
        `Your payout of ${amount} from ${context.merchantName} has been paid to the destination you chose.`,
        link,
      ], context.brand);
    case 'failed':
      return render(
        'payout_page_failed',
        `Your payout of ${amount} could not be completed`,
        context.firstName,
        context.subStatus === 'KYC_REJECTED'
          ? [`We could not verify your identity, so the payout of ${amount} from ${context.merchantName} could not be completed. Please contact ${context.merchantName}.`, link]
          : [
              `The payout of ${amount} from ${context.merchantName} could not be delivered to the destination you chose. You can enter other details on the payout page, and it will be sent again.`,
              { link: context.url, label: 'Enter other details' },
            ],
        context.brand,
      );
    case 'returned':
      return render('payout_page_returned', `Your payout of ${amount} was returned`, context.firstName, [
        `The payout of ${amount} from ${context.merchantName} was sent, but the receiving bank or network returned it. You can enter other details on the payout page, and it will be sent again.`,
        { link: context.url, label: 'Enter other details' },
      ], context.brand);
    case 'canceled':
      return render('payout_page_canceled', `Your payout of ${amount} was canceled`, context.firstName, [
        `${context.merchantName} canceled the payout of ${amount}. Please contact ${context.merchantName} if you have questions.`,
      ], context.brand);
    case 'declined':
      return render('payout_page_declined', `You declined the payout of ${amount}`, context.firstName, [
        `You declined the payout of ${amount} from ${context.merchantName}. Nothing will be sent. If this was a mistake, please contact ${context.merchantName}.`,
      ], context.brand);
    case 'expired':
      return render('payout_page_expired', `Your payout link has expired`, context.firstName, [
        `The link for the payout of ${amount} from ${context.merchantName} expired before it was completed. Please contact ${context.merchantName} for a new one.`,
      ], context.brand);
  }
}

/** To the customer, when too many wrong codes locked the page: nothing to enter any more, contact the merchant. */
export function pageLockedEmail(context: PayoutEmailContext): EmailContent {
  const amount = formatAmount(context.amount, context.currency);
  return render('payout_page_locked', 'Your payout page was locked', context.firstName, [
    `Too many wrong verification codes were entered on the page for the payout of ${amount} from ${context.merchantName}, so we locked it to protect your details.`,
    `If that was not you, someone else may have your link; no details were shown to them. Please contact ${context.merchantName}: they can reissue the page, and you will get an e-mail when it is open again.`,
  ], context.brand);
}

/** To the customer, when the merchant reissued a locked page. */
export function pageReissuedEmail(context: PayoutEmailContext): EmailContent {
  const amount = formatAmount(context.amount, context.currency);
  return render('payout_page_reissued', `Your payout of ${amount} is open again`, context.firstName, [
    `${context.merchantName} has reopened the payout page for ${amount}. Earlier codes no longer work: the page will e-mail you a new one.`,
    { link: context.url, label: 'Open the payout page' },
  ], context.brand);
}
