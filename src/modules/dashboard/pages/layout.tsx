import type { Child } from 'hono/jsx';
import type { DashboardRole } from '../../../db/schema/index.ts';
import { baseStyles, defaultFaviconPath } from '../../../web/layout.tsx';
import { dashboardPrefix, modePath, type Mode } from '../paths.ts';
import { CsrfField, Notice } from './components.tsx';
import { confirmDialogScript, confirmStyles } from './confirm-dialog.tsx';
import { securityStyles } from './security-styles.ts';

export type Section =
  | 'overview'
  | 'customers'
  | 'payout-pages'
  | 'payment-pages'
  | 'subscriptions'
  | 'entitlements'
  | 'fraud-reports'
  | 'disputes'
  | 'api-keys'
  | 'webhooks'
  | 'events'
  | 'pii-key'
  | 'branding'
  | 'inbox'
  | 'audit-log'
  | 'team'
  | 'account';

const sectionLabels: Record<Exclude<Section, 'account'>, string> = {
  overview: 'Overview',
  customers: 'Customers',
  'payout-pages': 'Payouts',
  'payment-pages': 'Payments',
  subscriptions: 'Subscriptions',
  entitlements: 'Entitlements',
  'fraud-reports': 'Fraud reports',
  disputes: 'Disputes',
  'api-keys': 'API keys',
  webhooks: 'Webhooks',
  events: 'Events',
  'pii-key': 'PII key',
  branding: 'Branding',
  inbox: 'Inbox',
  'audit-log': 'Audit',
  team: 'Team',
};

const developerSections: ReadonlySet<Section> = new Set(['api-keys', 'webhooks', 'events', 'pii-key']);

export function sectionPath(mode: Mode, section: Section): string {
  if (section === 'overview') {
    return modePath(mode);
  }
  if (section === 'account') {
    return modePath(mode, '/account');
  }
  if (section === 'branding') {
    return modePath(mode, '/settings/branding');
  }
  return modePath(mode, developerSections.has(section) ? `/developers/${section}` : `/${section}`);
}

/** What every signed-in page knows: who, which mode, which sections exist, the form token. */
export interface Frame {
  nonce: string;
  mode: Mode;
  merchantName: string;
  email: string;
  liveEnabled: boolean;
  csrfToken: string;
  /** The signed-in user's role: pages show only the actions it may use (components.tsx, access.ts `mayReach`). */
  role: DashboardRole;
  /** Sections whose module is installed and the user's role may see (access.ts), in navigation order. */
  sections: readonly Section[];
}

const dashboardStyles = `
main.wide { max-width: 76rem; }
/* Ids, URLs and e-mail addresses have no spaces: let them break anywhere rather than widen a phone's page. */
h1, h2, h3, code, .crumbs a, dd { overflow-wrap: anywhere; }
.skip { position: absolute; left: -999px; top: 0; background: #fff; padding: 0.5rem 1rem; z-index: 10; }
.skip:focus { left: 0.5rem; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
header.top { background: #0f172a; color: #fff; padding: 0.6rem 1rem; }
header.top a { color: #fff; }
.top-row { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; justify-content: space-between; max-width: 76rem; margin: 0 auto; }
.brand { font-weight: 700; text-decoration: none; }
.brand span { font-weight: 400; color: #cbd5e1; }
.modes { display: inline-flex; border: 1px solid #94a3b8; border-radius: 999px; overflow: hidden; }
.modes a, .modes span { padding: 0.25rem 0.8rem; text-decoration: none; font-size: 0.9rem; font-weight: 600; }
.modes [aria-current="page"] { background: #fff; color: #0f172a; }
.modes .disabled { color: #94a3b8; cursor: not-allowed; }
.account { display: flex; gap: 0.75rem; align-items: center; font-size: 0.9rem; }
.account form { margin: 0; }
.account button { width: auto; margin: 0; padding: 0.3rem 0.8rem; background: #334155; font-size: 0.9rem; }
nav.sections { background: #fff; border-bottom: 1px solid var(--line); }
nav.sections ul { display: flex; flex-wrap: wrap; gap: 0.15rem; list-style: none; margin: 0 auto; padding: 0.4rem 1rem; max-width: 76rem; }
nav.sections a { display: block; padding: 0.35rem 0.5rem; border-radius: 6px; color: var(--ink); text-decoration: none; font-weight: 500; font-size: 0.92rem; white-space: nowrap; }
/* One line from 1280 px: sixteen sections for an owner, so a little tighter there. */
@media (min-width: 80rem) { nav.sections ul { flex-wrap: nowrap; justify-content: space-between; gap: 0; padding: 0.4rem 0.75rem; } nav.sections a { padding: 0.35rem 0.34rem; font-size: 0.86rem; } }
nav.sections a[aria-current="page"] { background: #dbeafe; color: #1e3a8a; font-weight: 700; }
.sandbox-banner { background: #fef3c7; color: #78350f; text-align: center; font-size: 0.9rem; padding: 0.3rem 1rem; margin: 0.6rem -1rem -0.6rem; }
a { color: var(--accent); }
form.inline { display: inline; margin: 0; }
form.compact { max-width: 34rem; }
form.compact button { width: auto; padding: 0.55rem 1.4rem; }
form.inline button, .toolbar button, .toolbar .button { width: auto; margin: 0.25rem 0.25rem 0.25rem 0; padding: 0.45rem 0.9rem; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: flex-end; margin: 0.5rem 0 1rem; }
.toolbar label { margin: 0 0 0.2rem; font-size: 0.9rem; }
.toolbar > div { flex: 0 1 18rem; min-width: 10rem; }
.toolbar > div.buttons { flex: 0 0 auto; }
.table-wrap { overflow-x: auto; border: 1px solid var(--line); border-radius: 10px; background: #fff; }
.table-wrap:focus { outline: 3px solid #93c5fd; }
.table-wrap table { min-width: 36rem; }
th { font-size: 0.85rem; color: var(--muted); font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
td.num, .nowrap { white-space: nowrap; }
.badge.good { background: #d1fae5; color: #065f46; }
.badge.bad { background: #fee2e2; color: #991b1b; }
.badge.warn { background: #fef3c7; color: #78350f; }
.notice { border-radius: 8px; padding: 0.75rem 1rem; margin: 0.75rem 0; font-weight: 600; }
.notice.success { background: #ecfdf5; border: 1px solid #6ee7b7; color: #065f46; }
.notice.error { background: #fef2f2; border: 1px solid #fca5a5; color: #991b1b; }
.empty { text-align: center; }
.pagination { display: flex; gap: 1rem; justify-content: center; align-items: center; margin: 1rem 0; }
.grid { display: grid; gap: 1rem; grid-template-columns: repeat(auto-fill, minmax(15rem, 1fr)); }
.grid .card { margin: 0; }
.secret { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; background: #f1f5f9; padding: 0.5rem; border-radius: 6px; word-break: break-all; display: block; }
pre { background: #0f172a; color: #e2e8f0; padding: 1rem; border-radius: 8px; overflow-x: auto; font-size: 0.85rem; }
.email-preview { display: block; width: 100%; max-width: 40rem; height: 34rem; border: 1px solid var(--line); border-radius: 8px; background: #fff; }
pre:focus { outline: 3px solid #93c5fd; }
.code { font-size: 1.6rem; font-weight: 700; letter-spacing: 0.2em; font-family: ui-monospace, Menlo, monospace; }
.chart svg { width: 100%; height: auto; display: block; }
.ranges { display: flex; flex-wrap: wrap; gap: 0.35rem; list-style: none; padding: 0; margin: 0.5rem 0; }
.ranges a { display: block; padding: 0.3rem 0.75rem; border: 1px solid var(--line); border-radius: 999px; text-decoration: none; font-size: 0.9rem; background: #fff; }
.ranges a[aria-current="page"] { background: #1e3a8a; border-color: #1e3a8a; color: #fff; font-weight: 600; }
.figure h3 { margin: 0; font-size: 0.95rem; color: var(--muted); }
.figure .big { font-size: 1.8rem; font-weight: 700; margin: 0.2rem 0; font-variant-numeric: tabular-nums; }
.change { font-weight: 600; white-space: nowrap; }
button.copy { width: auto; margin: 0 0 0 0.4rem; padding: 0.1rem 0.55rem; font-size: 0.8rem; background: #e2e8f0; color: var(--ink); border-radius: 6px; vertical-align: middle; }
button.copy:focus-visible { outline: 3px solid #93c5fd; }
th[scope="row"] { color: var(--ink); font-size: inherit; text-align: left; }
.grid + .table-wrap { margin-top: 1rem; }
.change.up { color: #065f46; }
.change.down { color: #991b1b; }
.change.same { color: var(--muted); }
.legend { display: flex; gap: 1rem; font-size: 0.9rem; margin: 0.25rem 0; }
.legend .swatch-payments { background: #1d4ed8; }
.legend .swatch-payouts { background: #047857; }
.legend i { display: inline-block; width: 0.8rem; height: 0.8rem; border-radius: 2px; margin-right: 0.3rem; vertical-align: middle; }
.crumbs { font-size: 0.9rem; margin: 0.5rem 0 0; }
.split { display: flex; flex-wrap: wrap; justify-content: space-between; align-items: baseline; gap: 0.5rem; }
.split h1 { margin-bottom: 0.5rem; }
.split > .button { width: auto; margin: 0; padding: 0.5rem 1.1rem; }
.form-field { margin-top: 0.25rem; }
.form-field .error { margin: 0.25rem 0 0; }
fieldset { border: 1px solid var(--line); border-radius: 8px; padding: 0.25rem 1rem 1rem; margin: 0.5rem 0; }
legend { font-weight: 600; padding: 0 0.3rem; }
.split > * { min-width: 0; overflow-wrap: anywhere; }
form.inline.role-form { display: inline-flex; gap: 0.4rem; align-items: center; }
.role-form select { width: auto; min-width: 9rem; padding: 0.4rem 0.5rem; }
form.inline.role-form button { margin: 0; }
input[readonly] { background: #f1f5f9; color: #334155; }
@media (max-width: 40rem) { dl { grid-template-columns: 1fr; } dd { margin-bottom: 0.5rem; } }
`;

/**
 * Rewrites every `<time data-local>` (UTC text, ISO `datetime`) into the browser's time zone. The
 * page reads fine without it: the UTC text stays.
 */
/**
 * Shows every `button.copy` when the Clipboard API is there, copies its `data-copy` on click and
 * says so in the button and in a polite live region (screen readers hear "Copied").
 */
const copyScript = `(function(){if(!navigator.clipboard||!window.isSecureContext){return;}var live=document.createElement('span');live.className='visually-hidden';live.setAttribute('aria-live','polite');document.body.appendChild(live);document.querySelectorAll('button.copy[data-copy]').forEach(function(b){b.hidden=false;b.addEventListener('click',function(){navigator.clipboard.writeText(b.getAttribute('data-copy')||'').then(function(){b.textContent='Copied';live.textContent='Copied';setTimeout(function(){b.textContent='Copy';live.textContent='';},2000);},function(){b.textContent='Copy failed';});});});})();`;

const localTimeScript = `(function(){try{var f=new Intl.DateTimeFormat(undefined,{dateStyle:'medium',timeStyle:'short'});var z=Intl.DateTimeFormat().resolvedOptions().timeZone;document.querySelectorAll('time[data-local]').forEach(function(t){var d=new Date(t.getAttribute('datetime'));if(!isNaN(d.getTime())){t.setAttribute('title',t.textContent);t.textContent=f.format(d);}});var n=document.getElementById('time-zone');if(n&&z){n.textContent='Times are shown in your time zone ('+z+').';}}catch(e){}})();`;

/** Keeps raw style/script text from closing its element early (`</script`, `</style`, `<!--`). */
function rawTextSafe(text: string): string {
  return text.replace(/<\/(script|style)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
}

export function ShellDocument(props: { title: string; nonce: string; children?: Child }) {
  return (
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="robots" content="noindex" />
        <title>{`${props.title} · Paysail dashboard`}</title>
        <link rel="icon" href={defaultFaviconPath} />
        {/* Raw text elements: escaping would corrupt CSS (`>`) and JS. The contents are our own constants. */}
        <style nonce={props.nonce} dangerouslySetInnerHTML={{ __html: rawTextSafe(baseStyles + dashboardStyles + confirmStyles + securityStyles) }} />
      </head>
      <body>
        {props.children}
        <script nonce={props.nonce} dangerouslySetInnerHTML={{ __html: rawTextSafe(localTimeScript + confirmDialogScript + copyScript) }} />
      </body>
    </html>
  );
}

function ModeSwitch(props: { frame: Frame; section: Section | null }) {
  const { frame } = props;
  const target = (mode: Mode) => sectionPath(mode, props.section ?? 'overview');
  return (
    <nav class="modes" aria-label="Mode">
      <a href={target('sandbox')} aria-current={frame.mode === 'sandbox' ? 'page' : undefined}>
        Sandbox
      </a>
      {frame.liveEnabled ? (
        <a href={target('live')} aria-current={frame.mode === 'live' ? 'page' : undefined}>
          Live
        </a>
      ) : (
        <span class="disabled" aria-disabled="true" title="Live mode is not enabled yet: ask your Paysail operator to enable it.">
          Live<span class="visually-hidden"> (not enabled yet: ask your Paysail operator)</span>
        </span>
      )}
    </nav>
  );
}

/** The frame of every signed-in page: header, mode switch, sections, notices, the page itself. */
export function DashboardPage(props: { frame: Frame; section: Section | null; title: string; notice?: string | undefined; error?: string | undefined; children?: Child }) {
  const { frame } = props;
  return (
    <ShellDocument title={props.title} nonce={frame.nonce}>
      <a class="skip" href="#content">
        Skip to content
      </a>
      <header class="top">
        <div class="top-row">
          <a class="brand" href={modePath(frame.mode)}>
            Paysail <span>· {frame.merchantName}</span>
          </a>
          <ModeSwitch frame={frame} section={props.section} />
          <div class="account">
            <a href={sectionPath(frame.mode, 'account')} aria-current={props.section === 'account' ? 'page' : undefined}>
              {frame.email}
            </a>
            <form method="post" action={`${dashboardPrefix}/sign-out`}>
              <CsrfField token={frame.csrfToken} />
              <button type="submit">Sign out</button>
            </form>
          </div>
        </div>
        {/* Inside the header landmark, so that every piece of the page belongs to a landmark. */}
        {frame.mode === 'sandbox' ? <p class="sandbox-banner">Sandbox: test data only, no real money moves.</p> : null}
      </header>
      <nav class="sections" aria-label="Sections">
        <ul>
          {frame.sections.map((section) =>
            section === 'account' ? null : (
              <li>
                <a href={sectionPath(frame.mode, section)} aria-current={section === props.section ? 'page' : undefined}>
                  {sectionLabels[section]}
                </a>
              </li>
            ),
          )}
        </ul>
      </nav>
      <main class="wide" id="content" tabindex={-1}>
        <Notice message={props.notice} />
        <Notice message={props.error} tone="error" />
        {props.children}
      </main>
      <footer>
        <p id="time-zone">Times are shown in UTC.</p>
      </footer>
    </ShellDocument>
  );
}

/** Pages outside a session (sign-in) and error pages without a frame. */
export function PlainPage(props: { title: string; nonce: string; children?: Child }) {
  return (
    <ShellDocument title={props.title} nonce={props.nonce}>
      <main id="content">{props.children}</main>
      <footer>Secured by Paysail</footer>
    </ShellDocument>
  );
}
