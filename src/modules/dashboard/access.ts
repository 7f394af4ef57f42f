import { dashboardRoles, type DashboardRole } from '../../db/schema/index.ts';
import type { Section } from './pages/layout.tsx';
import { dashboardPrefix } from './paths.ts';

/**
 * Team access (issue 18 item 11): who may see which dashboard section and post which form, as data
 * (like `payout-pages/states.ts` for a state machine). `routes.tsx` enforces it in one place: every
 * route of the signed-in dashboard must be listed in `routeAccess` (registering one that is not
 * throws at start), each request is checked before its handler (403 FORBIDDEN, nothing changed), and
 * the navigation shows only the sections of `sectionAccess` the role may see. docs/dashboard.md
 * prints the same matrix; test/http/dashboard/team-matrix.test.ts walks it over HTTP.
 */
export type Role = DashboardRole;
export const roles: readonly Role[] = dashboardRoles;

const everyone: readonly Role[] = roles;
const managers: readonly Role[] = ['owner', 'admin'];
/** API keys, webhooks, events (and revealing the PII key the integration decrypts with). */
const developers: readonly Role[] = ['owner', 'admin', 'developer'];
/** Customers, payout and payment pages, refunds, subscriptions, disputes. */
const support: readonly Role[] = ['owner', 'admin', 'support'];
const owners: readonly Role[] = ['owner'];

/** The roles that see each section (its screens, and its entry in the navigation). */
export const sectionAccess: Readonly<Record<Section, readonly Role[]>> = {
  overview: everyone,
  customers: everyone,
  'payout-pages': everyone,
  'payment-pages': everyone,
  subscriptions: everyone,
  entitlements: everyone,
  'fraud-reports': everyone,
  disputes: everyone,
  // Key names, last four characters and dates only: the secrets are shown once, to whoever creates them.
  'api-keys': everyone,
  webhooks: everyone,
  events: everyone,
  'pii-key': everyone,
  inbox: everyone,
  // How the merchant's hosted pages and e-mails look to its customers: those who run the account.
  branding: managers,
  // Who did what from which address: the team's own activity is for those who manage the team.
  'audit-log': managers,
  team: managers,
  account: everyone,
};

function sees(section: Section): readonly Role[] {
  return sectionAccess[section];
}

/**
 * Every route of the signed-in dashboard (`METHOD /path` as registered, under /dashboard) and the
 * roles allowed to use it. A GET screen is allowed to the roles of its section; a form (POST) names
 * its own roles; a download of personal data or secrets is an action, not a screen.
 */
export const routeAccess: Readonly<Record<string, readonly Role[]>> = {
  'POST /sign-out': everyone,
  'GET /:mode/account': sees('account'),
  'POST /:mode/account/password': everyone,
  // One's own second factor and sessions; requiring two-factor sign-in of the whole team is the owner's call.
  'GET /:mode/account/security': sees('account'),
  'GET /:mode/account/security/two-factor': everyone,
  'POST /:mode/account/security/two-factor': everyone,
  'POST /:mode/account/security/two-factor/disable': everyone,
  'GET /:mode/account/security/recovery-codes': everyone,
  'POST /:mode/account/security/recovery-codes': everyone,
  'POST /:mode/account/security/sessions/revoke-others': everyone,
  'POST /:mode/account/security/sessions/:sessionId/revoke': everyone,
  'POST /:mode/account/security/require': owners,

  'GET /:mode/settings': sees('branding'),
  'GET /:mode/settings/branding': sees('branding'),
  'POST /:mode/settings/branding': managers,

  'GET /:mode': sees('overview'),

  'GET /:mode/customers': sees('customers'),
  'GET /:mode/customers/:customerId': sees('customers'),
  'GET /:mode/customers/:customerId/export': support,
  // The lists of a customer's screen: references, amounts, statuses and dates, as the screen shows them.
  'GET /:mode/customers/:customerId/payout-pages/export.csv': sees('customers'),
  'GET /:mode/customers/:customerId/payment-pages/export.csv': sees('customers'),
  'GET /:mode/customers/:customerId/subscriptions/export.csv': sees('customers'),
  'GET /:mode/customers/:customerId/refunds/export.csv': sees('customers'),
  // A person's identity checks and the reasons they failed: personal data, the roles that export customers.
  'GET /:mode/customers/:customerId/verifications/export.csv': support,
  // The list's CSV carries the names and e-mails the list shows: personal data, so not for every role.
  'GET /:mode/customers/export.csv': support,
  'POST /:mode/customers/:customerId/kyc-review': support,
  'POST /:mode/customers/:customerId/erase': support,

  'GET /:mode/payout-pages': sees('payout-pages'),
  'GET /:mode/payout-pages/:payoutPageId': sees('payout-pages'),
  // The create form is the first step of an action: shown to those who may post it.
  'GET /:mode/payout-pages/new': support,
  'GET /:mode/payout-pages/export.csv': sees('payout-pages'),
  'POST /:mode/payout-pages': support,
  'POST /:mode/payout-pages/:payoutPageId/release': support,
  'POST /:mode/payout-pages/:payoutPageId/reissue': support,
  'POST /:mode/payout-pages/:payoutPageId/cancel': support,

  'GET /:mode/payment-pages': sees('payment-pages'),
  'GET /:mode/payment-pages/:pageId': sees('payment-pages'),
  'GET /:mode/payment-pages/new': support,
  'GET /:mode/payment-pages/export.csv': sees('payment-pages'),
  'POST /:mode/payment-pages': support,
  'POST /:mode/payment-pages/:pageId/expire': support,
  'POST /:mode/payment-pages/:pageId/refund': support,

  'GET /:mode/subscriptions': sees('subscriptions'),
  'GET /:mode/subscriptions/:subscriptionId': sees('subscriptions'),
  'GET /:mode/subscriptions/export.csv': sees('subscriptions'),
  'GET /:mode/subscriptions/:subscriptionId/invoices/export.csv': sees('subscriptions'),
  'GET /:mode/subscriptions/:subscriptionId/entitlements/export.csv': sees('subscriptions'),
  'POST /:mode/subscriptions/:subscriptionId/cancel': support,
  'POST /:mode/subscriptions/:subscriptionId/renew': support,
  'GET /:mode/entitlements': sees('entitlements'),
  'GET /:mode/entitlements/export.csv': sees('entitlements'),

  'GET /:mode/fraud-reports': sees('fraud-reports'),
  'GET /:mode/fraud-reports/export.csv': sees('fraud-reports'),
  'GET /:mode/fraud-reports/:reportId': sees('fraud-reports'),
  'GET /:mode/disputes': sees('disputes'),
  'GET /:mode/disputes/export.csv': sees('disputes'),

  'GET /:mode/developers': sees('api-keys'),
  'GET /:mode/developers/api-keys': sees('api-keys'),
  // Names, last four characters and dates, as the list shows them: never a key.
  'GET /:mode/developers/api-keys/export.csv': sees('api-keys'),
  'POST /:mode/developers/api-keys': developers,
  'POST /:mode/developers/api-keys/:keyId/revoke': developers,
  'GET /:mode/developers/pii-key': sees('pii-key'),
  // Ids, status and dates, as the list shows them before Reveal: never key material.
  'GET /:mode/developers/pii-key/export.csv': sees('pii-key'),
  'POST /:mode/developers/pii-key/reveal': developers,
  // A new PII key changes what every integration must decrypt with: the account owner's call.
  'POST /:mode/developers/pii-key/rotate': owners,

  'GET /:mode/developers/webhooks': sees('webhooks'),
  // Addresses, event types, status and dates: never a signing secret.
  'GET /:mode/developers/webhooks/export.csv': sees('webhooks'),
  'POST /:mode/developers/webhooks': developers,
  'GET /:mode/developers/webhooks/:endpointId': sees('webhooks'),
  'GET /:mode/developers/webhooks/:endpointId/export.csv': sees('webhooks'),
  'POST /:mode/developers/webhooks/:endpointId/test': developers,
  'POST /:mode/developers/webhooks/:endpointId/reveal': developers,
  'POST /:mode/developers/webhooks/:endpointId/rotate': developers,
  'POST /:mode/developers/webhooks/:endpointId/status': developers,
  'POST /:mode/developers/webhooks/:endpointId/events': developers,
  'POST /:mode/developers/webhooks/:endpointId/delete': developers,
  'GET /:mode/developers/events': sees('events'),
  'GET /:mode/developers/events/export.csv': sees('events'),
  'GET /:mode/developers/events/:eventId': sees('events'),
  // Endpoint addresses, status, attempts and the last answer's status code and error: no answer body.
  'GET /:mode/developers/events/:eventId/export.csv': sees('events'),
  'POST /:mode/developers/events/:eventId/redeliver': developers,

  'GET /:mode/inbox': sees('inbox'),
  // The CSV carries the recipients' e-mail addresses: personal data, the roles that export customers.
  'GET /:mode/inbox/export.csv': support,
  'GET /:mode/inbox/:emailId': sees('inbox'),
  'GET /:mode/inbox/:emailId/html': sees('inbox'),

  'GET /:mode/audit-log': sees('audit-log'),
  'GET /:mode/audit-log/export.csv': managers,

  // The Team screen; who may be given (or lose) the owner role is decided by the team service.
  'GET /:mode/team': sees('team'),
  // The team's e-mail addresses and roles, as the screen shows them to those who manage the team.
  'GET /:mode/team/members/export.csv': sees('team'),
  'GET /:mode/team/invites/export.csv': sees('team'),
  'POST /:mode/team/invites': managers,
  'POST /:mode/team/invites/:inviteId/resend': managers,
  'POST /:mode/team/invites/:inviteId/revoke': managers,
  'POST /:mode/team/members/:userId/role': managers,
  'POST /:mode/team/members/:userId/remove': managers,
};

/** `GET /:mode/customers` from a method and a route as registered (HEAD answers as GET). */
export function routeKey(method: string, path: string): string {
  return `${method === 'HEAD' ? 'GET' : method} ${path}`;
}

export function isListedRoute(method: string, path: string): boolean {
  return routeKey(method, path) in routeAccess;
}

/** Whether `role` may use the route; unlisted routes are refused (the registration check makes them impossible). */
export function mayUse(role: Role, method: string, path: string): boolean {
  return routeAccess[routeKey(method, path)]?.includes(role) ?? false;
}

/** The matrix's routes split into segments once, for matching the addresses that pages link and post to. */
const routePatterns = Object.keys(routeAccess).map((key) => {
  const [method = '', path = ''] = key.split(' ');
  return { key, method, segments: path.split('/').slice(1) };
});

/**
 * The `routeAccess` key that answers `method address` (an address as a page writes it:
 * `/dashboard/sandbox/payout-pages/pp_1/release?x=1`), picked as the router picks it: a static segment
 * wins over a parameter at the first place they differ. Undefined for an address outside the matrix.
 */
export function routeOfAddress(method: string, address: string): string | undefined {
  const path = address.split(/[?#]/)[0] ?? '';
  if (!path.startsWith(`${dashboardPrefix}/`)) {
    return undefined;
  }
  const segments = path.slice(dashboardPrefix.length).split('/').slice(1);
  let best: { key: string; statics: boolean[] } | undefined;
  for (const pattern of routePatterns) {
    if (pattern.method !== (method === 'HEAD' ? 'GET' : method) || pattern.segments.length !== segments.length) {
      continue;
    }
    const statics = pattern.segments.map((segment) => !segment.startsWith(':'));
    if (!pattern.segments.every((segment, index) => !statics[index] || segment === segments[index])) {
      continue;
    }
    const firstDifference = best ? statics.findIndex((isStatic, index) => isStatic !== best?.statics[index]) : 0;
    if (!best || (firstDifference >= 0 && statics[firstDifference])) {
      best = { key: pattern.key, statics };
    }
  }
  return best?.key;
}

/**
 * Whether a page may show this role a link (GET) or a form (POST) to `address`: the one check behind
 * every action the dashboard renders (`ActionButton`, `PostForm`, `ActionLink` in pages/components.tsx),
 * so a button the role may not use is not shown rather than leading to the 403 page. Addresses
 * outside the matrix (hosted pages, docs) are not the dashboard's to refuse.
 */
export function mayReach(role: Role, method: string, address: string): boolean {
  const key = routeOfAddress(method, address);
  return key === undefined || (routeAccess[key]?.includes(role) ?? false);
}

/** The roles that may use `method address` (none for an address outside the matrix). */
export function rolesFor(method: string, address: string): readonly Role[] {
  const key = routeOfAddress(method, address);
  return key === undefined ? [] : (routeAccess[key] ?? []);
}

export function maySee(role: Role, section: Section): boolean {
  return sectionAccess[section].includes(role);
}

/** The sections of the navigation this role sees, in their order. */
export function visibleSections(sections: readonly Section[], role: Role): Section[] {
  return sections.filter((section) => maySee(role, section));
}

/** Invites, role changes and removals (owners also manage other owners: `mayManageOwners`). */
export function canManageTeam(session: { role: Role }): boolean {
  return managers.includes(session.role);
}

/** Giving or taking the owner role, removing an owner: owners only. */
export function mayManageOwners(session: { role: Role }): boolean {
  return session.role === 'owner';
}

export function isOwner(session: { role: Role }): boolean {
  return session.role === 'owner';
}

export const roleWords: Readonly<Record<Role, { name: string; summary: string }>> = {
  owner: { name: 'Owner', summary: 'Everything, including the team and its owners and rotating the PII key.' },
  admin: { name: 'Administrator', summary: 'Everything except giving, changing or removing the owner role.' },
  developer: { name: 'Developer', summary: 'API keys, webhooks, events and the PII key; reads the rest.' },
  support: { name: 'Support', summary: 'Customers, payouts, payments and refunds, subscriptions and disputes; reads the rest.' },
  viewer: { name: 'Viewer', summary: 'Reads every screen except Team and Audit; changes nothing, exports no personal data.' },
};

export function isRole(value: unknown): value is Role {
  return typeof value === 'string' && (roles as readonly string[]).includes(value);
}
