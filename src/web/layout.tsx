import type { Child } from 'hono/jsx';
import type { Brand } from '../modules/merchants/index.ts';

/** Shared styles for hosted pages and the dashboard: readable, high-contrast, phone-first. */
export const baseStyles = `
:root { color-scheme: light; --ink: #0f172a; --muted: #475569; --line: #cbd5e1; --accent: #1d4ed8; --accent-ink: #fff; --focus: #93c5fd; --bad: #b91c1c; --good: #047857; --bg: #f8fafc; }
* { box-sizing: border-box; }
body { margin: 0; font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); background: var(--bg); }
main { max-width: 34rem; margin: 0 auto; padding: 1.5rem 1rem 3rem; }
main.wide { max-width: 72rem; }
h1 { font-size: 1.5rem; margin: 0.5rem 0 1rem; }
h2 { font-size: 1.15rem; margin: 1.5rem 0 0.5rem; }
.card { background: #fff; border: 1px solid var(--line); border-radius: 12px; padding: 1.25rem; margin: 1rem 0; }
.amount { font-size: 2rem; font-weight: 700; letter-spacing: -0.02em; }
.muted { color: var(--muted); }
label { display: block; font-weight: 600; margin: 0.9rem 0 0.3rem; }
input, select { width: 100%; font: inherit; padding: 0.65rem 0.75rem; border: 1px solid #94a3b8; border-radius: 8px; background: #fff; color: var(--ink); }
input:focus, select:focus, button:focus, a:focus { outline: 3px solid var(--focus); outline-offset: 1px; }
fieldset { border: 1px solid var(--line); border-radius: 8px; margin: 1rem 0; padding: 0.5rem 1rem 1rem; }
legend { font-weight: 600; padding: 0 0.25rem; }
.choice { display: flex; gap: 0.5rem; align-items: center; font-weight: 500; margin: 0.5rem 0; }
.choice input { width: auto; }
button, .button { display: inline-block; width: 100%; margin-top: 1.25rem; padding: 0.8rem 1rem; font: inherit; font-weight: 600; border: 0; border-radius: 8px; background: var(--accent); color: var(--accent-ink); cursor: pointer; text-align: center; text-decoration: none; }
button.secondary, .button.secondary { background: #e2e8f0; color: var(--ink); }
button.danger { background: var(--bad); }
.error { color: var(--bad); font-weight: 600; }
.error-summary { border: 2px solid var(--bad); border-radius: 8px; padding: 0.75rem 1rem; background: #fef2f2; }
.success { color: var(--good); font-weight: 600; }
.row { display: flex; gap: 0.75rem; }
.row > * { flex: 1; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 0.35rem 1rem; margin: 0; }
dt { color: var(--muted); }
dd { margin: 0; word-break: break-word; }
table { width: 100%; border-collapse: collapse; background: #fff; }
th, td { text-align: left; padding: 0.5rem; border-bottom: 1px solid var(--line); vertical-align: top; }
.badge { display: inline-block; padding: 0.1rem 0.5rem; border-radius: 999px; background: #e2e8f0; font-size: 0.85rem; font-weight: 600; }
footer { margin-top: 2rem; font-size: 0.85rem; color: var(--muted); text-align: center; }
@media (max-width: 30rem) { .row { flex-direction: column; gap: 0; } .amount { font-size: 1.6rem; } }
`;

/** Keeps raw style/script text from closing its element early (`</script`, `</style`, `<!--`). */
function rawTextSafe(text: string): string {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

/** The hosted pages' header and footer: the merchant's name and logo, its support contact. */
const brandStyles = `
.brand-header { display: flex; align-items: center; gap: 0.75rem; max-width: 34rem; margin: 0 auto; padding: 1.25rem 1rem 0; }
.brand-header img { display: block; max-height: 40px; max-width: 160px; width: auto; height: auto; object-fit: contain; }
.brand-header .brand-name { font-weight: 700; font-size: 1.05rem; color: var(--ink); margin: 0; overflow-wrap: anywhere; }
.brand-support { margin: 0 0 0.35rem; }
.brand-support a { color: var(--muted); }
`;

/** Paysail's own icon, for pages of a merchant without a logo (and every other page). */
export const defaultFaviconPath = '/favicon.svg';

/**
 * The brand's colours as CSS custom properties. Safe to inline: branding only stores `#rrggbb`
 * (checked again here, so a bad value can never reach the style element).
 */
export function brandCss(brand: Brand | null | undefined): string {
  if (!brand?.color || !/^#[0-9a-f]{6}$/.test(brand.color)) {
    return '';
  }
  const safe = (value: string) => (/^#[0-9a-f]{6}$/.test(value) ? value : '#0f172a');
  return `:root { --accent: ${brand.color}; --accent-ink: ${safe(brand.buttonTextColor)}; --focus: ${safe(brand.focusColor)}; }\n`;
}

/** The merchant's logo and name above the page (the logo is decorative: the name beside it says who). */
export function BrandHeader(props: { brand: Brand }) {
  const { brand } = props;
  return (
    <header class="brand-header">
      {brand.logoUrl ? <img src={brand.logoUrl} alt="" height="40" /> : null}
      <p class="brand-name">{brand.displayName}</p>
    </header>
  );
}

function BrandSupport(props: { brand: Brand }) {
  const { brand } = props;
  if (!brand.supportEmail && !brand.supportUrl) {
    return null;
  }
  return (
    <p class="brand-support">
      Questions? Contact {brand.displayName}
      {brand.supportEmail ? (
        <>
          {' at '}
          <a href={`mailto:${brand.supportEmail}`}>{brand.supportEmail}</a>
        </>
      ) : null}
      {brand.supportUrl ? (
        <>
          {brand.supportEmail ? ' or ' : ' at '}
          <a href={brand.supportUrl} rel="noopener noreferrer">
            {new URL(brand.supportUrl).host}
          </a>
        </>
      ) : null}
      .
    </p>
  );
}

export interface LayoutProps {
  title: string;
  nonce: string;
  children?: Child;
  /** Extra page-specific CSS (rendered in the nonce'd style element). */
  styles?: string;
  /** Inline script (rendered with the nonce); pages must work without it. */
  script?: string;
  /** A provider's script loaded before `script` (its origin must be in the page's CSP), e.g. Stripe.js. */
  externalScript?: string;
  wide?: boolean;
  /** A merchant's hosted page: its name and logo on top, its colour on buttons, its contact below, its logo as the icon. */
  brand?: Brand | null;
}

/** The HTML shell of every server-rendered page. hono/jsx escapes every interpolated value. */
export function Layout(props: LayoutProps) {
  const { brand } = props;
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{props.title}</title>
        <link rel="icon" href={brand?.logoUrl ?? defaultFaviconPath} />
        {/* Raw text elements: escaping would corrupt CSS (`>`) and JS. The contents are our own constants. */}
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: rawTextSafe(baseStyles + (brand ? brandStyles : '') + (props.styles ?? '') + brandCss(brand)) }} />
      </head>
      <body>
        {brand ? <BrandHeader brand={brand} /> : null}
        <main class={props.wide ? 'wide' : undefined}>{props.children}</main>
        <footer>
          {brand ? <BrandSupport brand={brand} /> : null}
          Secured by Paysail
        </footer>
        {props.externalScript ? <script nonce={props.nonce} src={props.externalScript} /> : null}
        {props.script ? <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: rawTextSafe(props.script) }} /> : null}
      </body>
    </html>
  );
}
