/**
 * The one e-mail layout: a title, paragraphs, an optional button, and a footer, rendered as a text
 * part and an HTML part. Every value is escaped in the HTML; a link must be http(s). Use it from any
 * module together with `enqueueEmail`:
 *
 *   const content = renderEmail({ subject: 'Your payout is on its way', title: 'Payout processing',
 *     paragraphs: [`Hello ${firstName},`, 'Your payout of 12.00 USDC is being sent.'],
 *     action: { label: 'View payout', url } });
 *   await enqueueEmail(tx, now, keyRing, { ...content, merchantId, livemode, to, template: 'payout_processing' });
 *
 * E-mails carry no PII beyond the recipient's own name (docs/API.md §13): no addresses, dates of
 * birth, account numbers or other customers' data.
 */
export interface EmailLayout {
  subject: string;
  /** The heading; defaults to the subject. */
  title?: string;
  paragraphs: readonly string[];
  action?: { label: string; url: string };
  /** Label–value rows after the paragraphs (a receipt's lines and details); values right-aligned in HTML. */
  rows?: ReadonlyArray<readonly [label: string, value: string]>;
  /** A small closing line; defaults to the standard one. */
  footer?: string;
  /** The merchant's branding: its name above the title, its colour as the accent and on the button. */
  brand?: EmailBrand;
}

/** What an e-mail takes from a merchant's branding (merchants/branding.ts `Brand`). */
export interface EmailBrand {
  displayName: string;
  /** `#rrggbb`, or null for Paysail's accent. */
  color: string | null;
  buttonTextColor: string;
  supportEmail: string;
  supportUrl: string | null;
}

const defaultAccent = '#0f5cc0';
const hexColor = /^#[0-9a-f]{6}$/;

/** `Contact Acme at help@acme.example or https://acme.example/help.` (no sentence when there is no contact). */
export function supportSentence(brand: Pick<EmailBrand, 'displayName' | 'supportEmail' | 'supportUrl'>, lead = 'Questions?'): string {
  const ways = [brand.supportEmail, brand.supportUrl].filter((way): way is string => typeof way === 'string' && way !== '');
  return ways.length === 0 ? '' : `${lead} Contact ${brand.displayName} at ${ways.join(' or ')}.`;
}

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

const defaultFooter = 'You are receiving this e-mail because of activity on Paysail. Do not reply to this message.';

const htmlEscapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (character) => htmlEscapes[character] ?? character);
}

/** A header-safe subject: one line, at most 200 characters. */
function subjectLine(subject: string): string {
  return subject.replace(/[\r\n]+/g, ' ').trim().slice(0, 200);
}

function safeUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`e-mail link is not a URL: ${url.slice(0, 80)}`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') {
    throw new Error('e-mail links must be http or https');
  }
  return parsed.toString();
}

export function renderEmail(layout: EmailLayout): RenderedEmail {
  const subject = subjectLine(layout.subject);
  const title = layout.title ?? subject;
  const footer = layout.footer ?? defaultFooter;
  const action = layout.action ? { label: layout.action.label, url: safeUrl(layout.action.url) } : undefined;
  const brand = layout.brand;
  const accent = brand?.color && hexColor.test(brand.color) ? brand.color : defaultAccent;
  const accentInk = brand?.color && hexColor.test(brand.buttonTextColor) ? brand.buttonTextColor : '#ffffff';

  const rows = layout.rows ?? [];
  const textRows = rows.length > 0 ? [...rows.map(([label, value]) => `${label}: ${value}`), ''] : [];
  const text = [...(brand ? [brand.displayName, ''] : []), title, '', ...layout.paragraphs.flatMap((paragraph) => [paragraph, '']), ...textRows, ...(action ? [`${action.label}: ${action.url}`, ''] : []), '--', footer, ''].join('\n');

  const paragraphs = layout.paragraphs.map((paragraph) => `<p style="margin:0 0 16px;font-size:15px;line-height:1.5;color:#1f2937">${escapeHtml(paragraph)}</p>`).join('\n');
  const table =
    rows.length > 0
      ? `<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="margin:0 0 16px;border-top:1px solid #e5e7eb">\n${rows
          .map(
            ([label, value]) =>
              `<tr><td style="padding:8px 0;border-bottom:1px solid #e5e7eb;font-size:14px;color:#4b5563">${escapeHtml(label)}</td><td align="right" style="padding:8px 0;border-bottom:1px solid #e5e7eb;font-size:14px;color:#111827">${escapeHtml(value)}</td></tr>`,
          )
          .join('\n')}\n</table>`
      : '';
  const button = action
    ? `<p style="margin:24px 0"><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:10px 18px;border-radius:6px;background:${accent};color:${accentInk};text-decoration:none;font-weight:600">${escapeHtml(action.label)}</a></p>`
    : '';
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width"><title>${escapeHtml(subject)}</title></head>
<body style="margin:0;padding:0;background:#f3f4f6;font-family:-apple-system,Segoe UI,Helvetica,Arial,sans-serif">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" style="background:#f3f4f6;padding:24px 0"><tr><td align="center">
<table role="presentation" width="560" cellpadding="0" cellspacing="0" style="max-width:560px;background:#ffffff;border-radius:8px;padding:32px${brand ? `;border-top:4px solid ${accent}` : ''}">
<tr><td>
${brand ? `<p style="margin:0 0 16px;font-size:16px;font-weight:700;color:#111827">${escapeHtml(brand.displayName)}</p>` : ''}
<h1 style="margin:0 0 20px;font-size:20px;color:#111827">${escapeHtml(title)}</h1>
${paragraphs}
${table}
${button}
<p style="margin:24px 0 0;font-size:12px;color:#6b7280">${escapeHtml(footer)}</p>
</td></tr></table>
</td></tr></table>
</body>
</html>
`;
  return { subject, text, html };
}
