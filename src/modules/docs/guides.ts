import fs from 'node:fs';
import path from 'node:path';
import { packageRoot } from '../../package-root.ts';
import { parseDocument, type ParsedMarkdown } from './markdown.ts';

/** `docs/guides` of this checkout (read at run time, from src/ and from the bundle in dist/server/ alike). */
export const guidesFolder = path.join(packageRoot, 'docs', 'guides');

export interface GuideEntry {
  slug: string;
  /** One line for the index. */
  summary: string;
  /** The Markdown file, relative to the guides folder, when it is not `<slug>.md` there. */
  file?: string;
}

/**
 * The guides in the order the index lists them. Each is `docs/guides/<slug>.md`, except the CLI
 * reference and the API conventions, which stay at `docs/cli.md` and `docs/API.md` beside the other
 * documents of the repository.
 */
export const guideEntries: readonly GuideEntry[] = [
  { slug: 'api', file: '../API.md', summary: 'The conventions every endpoint follows: modes, ids, the envelope and error codes, keys, idempotency, PII.' },
  { slug: 'quickstart', summary: 'Start a server, create a customer and a payout page, read the result: ten minutes with curl.' },
  { slug: 'payout-pages', summary: 'Integrating hosted payout pages: flow, statuses and sub-statuses, release, the ledger.' },
  { slug: 'payment-pages', summary: 'Hosted card checkout: creating, paying in sandbox, expiring; card data handling.' },
  { slug: 'disputes', summary: 'Chargebacks of card payments: statuses, ledger movements, events, the sandbox dispute card, Stripe.' },
  { slug: 'fraud-reports', summary: 'Early fraud signals from card networks: listing, filters, network file layouts, rates.' },
  { slug: 'entitlements', summary: 'Subscriptions from payment pages, renewals, and the entitlements query with its cursor.' },
  { slug: 'webhooks', summary: 'Endpoints, delivery and retries; verifying signatures in TypeScript or with a plain HMAC.' },
  { slug: 'sandbox', summary: 'Every sandbox test value: cards, BINs, KYC outcomes, payout rail outcomes, helpers.' },
  { slug: 'branding', summary: 'Display name, logo, brand colour and support contact on hosted pages and e-mails; the contrast rule; logo limits.' },
  { slug: 'going-live', summary: 'What changes in live mode and the checklist before taking real money.' },
  { slug: 'deployment', summary: 'Running on PostgreSQL with several API and worker processes.' },
  { slug: 'audit-log', summary: 'The append-only record of every change: what is recorded, the admin API, the dashboard screen and its CSV.' },
  { slug: 'cli', file: '../cli.md', summary: 'The operator CLI: serve, migrate, merchants, keys, payout methods, balance credits, fraud imports, key rotation, listen.' },
  { slug: 'configuration', summary: 'Every environment variable, its default and its meaning.' },
];

/** Where a guide's Markdown file is. */
export function guideFile(entry: GuideEntry, folder: string = guidesFolder): string {
  return path.resolve(folder, entry.file ?? `${entry.slug}.md`);
}

const loaded = new Map<string, Map<string, Guide>>();

export interface Guide extends GuideEntry {
  title: string;
  document: ParsedMarkdown;
}

/**
 * Reads and parses every listed guide once (at start). A guide whose file is missing is left out
 * of the index rather than failing the server; the docs test requires every one to exist.
 */
export function loadGuides(folder: string = guidesFolder): Map<string, Guide> {
  // Parsed once per process: test suites build many apps, and the files do not change while running.
  const cached = loaded.get(folder);
  if (cached) {
    return cached;
  }
  const guides = new Map<string, Guide>();
  for (const entry of guideEntries) {
    const file = guideFile(entry, folder);
    if (!fs.existsSync(file)) {
      continue;
    }
    const document = parseDocument(fs.readFileSync(file, 'utf8'));
    guides.set(entry.slug, { ...entry, title: document.title ?? entry.slug, document });
  }
  loaded.set(folder, guides);
  return guides;
}

/**
 * Where a link in a guide points on the served site: another guide (`webhooks.md#retries` →
 * `/docs/guides/webhooks#retries`; `guides/webhooks.md` from docs/cli.md and `../cli.md` from a
 * guide, as the files link each other in the repository), an anchor, an absolute http(s) or mailto
 * URL, or a path on this server. Anything else (a file of the repository, another scheme) is shown
 * as text.
 */
export function resolveGuideLink(target: string, known: ReadonlySet<string>): string | null {
  if (target.startsWith('#') || /^(https?:|mailto:)/i.test(target)) {
    return target;
  }
  if (target.startsWith('/') && !target.startsWith('//')) {
    return target;
  }
  // `../API.md` is the guide `api`: slugs are the file names in lower case.
  const guide = /^(?:\.\/)?(?:\.\.\/|guides\/)?([A-Za-z0-9-]+)\.md(#[^\s]*)?$/.exec(target);
  const slug = guide?.[1]?.toLowerCase() ?? '';
  if (guide && known.has(slug)) {
    return `/docs/guides/${slug}${guide[2] ?? ''}`;
  }
  return null;
}
