import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { desc, eq } from 'drizzle-orm';
import { apiKeys, events } from '../../../src/db/schema/index.ts';
import { roles, routeAccess, routeOfAddress, type Role } from '../../../src/modules/dashboard/access.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { lockByWrongCodes } from '../../helpers/payout-pages.ts';
import { startSubscription } from '../../helpers/subscriptions.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createCustomer, createPaymentPage, createPayoutPage, payoutAwaitingRelease, payPaymentPage } from './fixtures.ts';
import { addMember } from './team-helpers.ts';

interface Target {
  method: 'GET' | 'POST';
  address: string;
}

/** Every form (its method and action) and every link into the dashboard on a page, as a browser would use them. */
function targetsOf(html: string): Target[] {
  const decode = (value: string) => value.replace(/&amp;/g, '&');
  const targets: Target[] = [];
  for (const form of html.matchAll(/<form\b([^>]*)>/g)) {
    const attributes = form[1] ?? '';
    const action = /\baction="([^"]*)"/.exec(attributes)?.[1];
    const method = (/\bmethod="([^"]*)"/.exec(attributes)?.[1] ?? 'get').toUpperCase();
    assert.ok(action, `a form without an action: ${form[0]}`);
    targets.push({ method: method === 'POST' ? 'POST' : 'GET', address: decode(action) });
  }
  for (const link of html.matchAll(/<a\b[^>]*\bhref="(\/dashboard[^"#]*)/g)) {
    targets.push({ method: 'GET', address: decode(String(link[1])) });
  }
  return targets;
}

const key = (target: Target) => `${target.method} ${target.address}`;

/**
 * Issue 16: a screen shows a role only the actions it may use. For each role, every main screen (with
 * real resources in the states that offer actions) is fetched; every form and dashboard link on it
 * must be allowed to that role by the matrix (access.ts `routeAccess`), and the server must agree (a
 * link answers, a form is not refused for the role). What the owner is shown, filtered by the matrix,
 * is exactly what each other role is shown: nothing allowed goes missing.
 */
describe('dashboard: each role is shown only the actions it may use', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const clients = new Map<Role, DashboardClient>();
  let screens: string[] = [];

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Role Sails' });
    const owner = await signedInClient(context, merchant);
    clients.set('owner', owner);
    for (const role of roles.filter((candidate) => candidate !== 'owner')) {
      clients.set(role, (await addMember(context, owner, merchant.id, role)).client);
    }
    const customer = await createCustomer(context, merchant, { email: 'someone@example.com' });
    const awaiting = await payoutAwaitingRelease(context, merchant);
    const locked = await createPayoutPage(context, merchant);
    await lockByWrongCodes(context, locked.id);
    const paid = await createPaymentPage(context, merchant);
    await payPaymentPage(context, merchant, paid.id);
    const open = await createPaymentPage(context, merchant);
    const { subscription } = await startSubscription(context, merchant, { interval: 'MONTH' });
    const endpoint = json<{ data: { id: string } }>(await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: merchant.apiKey, body: { url: 'https://hooks.example.com/roles' } })).data;
    const [event] = await context.database.db.select({ id: events.id }).from(events).where(eq(events.merchantId, merchant.id)).orderBy(desc(events.createdAt)).limit(1);
    assert.ok(event);
    const [apiKey] = await context.database.db.select({ id: apiKeys.id }).from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
    assert.ok(apiKey);
    const base = '/dashboard/sandbox';
    screens = [
      base,
      `${base}/customers`,
      `${base}/customers/${customer.id}`,
      `${base}/payout-pages`,
      `${base}/payout-pages/${awaiting.id}`,
      `${base}/payout-pages/${locked.id}`,
      `${base}/payment-pages`,
      `${base}/payment-pages/${paid.id}`,
      `${base}/payment-pages/${open.id}`,
      `${base}/subscriptions`,
      `${base}/subscriptions/${subscription.id}`,
      `${base}/entitlements`,
      `${base}/fraud-reports`,
      `${base}/disputes`,
      `${base}/developers/api-keys`,
      `${base}/developers/pii-key`,
      `${base}/developers/webhooks`,
      `${base}/developers/webhooks/${endpoint.id}`,
      `${base}/developers/events`,
      `${base}/developers/events/${event.id}`,
      `${base}/inbox`,
      `${base}/settings/branding`,
      `${base}/audit-log`,
      `${base}/account`,
      `${base}/account/security`,
    ];
  });
  after(async () => context.close());

  /** The targets each screen the role may open shows it (a screen it may not open is the matrix test's business). */
  async function shownTo(role: Role): Promise<Map<string, Target[]>> {
    const client = clients.get(role);
    assert.ok(client);
    const shown = new Map<string, Target[]>();
    for (const screen of screens) {
      const route = routeOfAddress('GET', screen);
      assert.ok(route, `${screen} is a route of the matrix`);
      if (!routeAccess[route]?.includes(role)) {
        continue;
      }
      const response = await client.get(screen);
      assert.equal(response.statusCode, 200, `${role} ${screen}`);
      shown.set(screen, targetsOf(response.body));
    }
    return shown;
  }

  function allowed(role: Role, target: Target): boolean {
    const route = routeOfAddress(target.method, target.address);
    return route === undefined ? target.address === '/dashboard/sign-out' : (routeAccess[route]?.includes(role) ?? false);
  }

  test('an address finds its route as the router does: a static segment wins over a parameter', () => {
    for (const route of Object.keys(routeAccess)) {
      const [method = '', path = ''] = route.split(' ');
      const address = `/dashboard${path.replace(/:mode/, 'sandbox').replace(/:[A-Za-z]+/g, 'x_1')}?from=2026-01-01`;
      assert.equal(routeOfAddress(method, address), route, address);
    }
    assert.equal(routeOfAddress('GET', '/dashboard/sandbox/payout-pages/new'), 'GET /:mode/payout-pages/new');
    assert.equal(routeOfAddress('GET', '/dashboard/sandbox/payout-pages/pp_1'), 'GET /:mode/payout-pages/:payoutPageId');
    assert.equal(routeOfAddress('GET', '/dashboard/sandbox/customers/export.csv'), 'GET /:mode/customers/export.csv');
    assert.equal(routeOfAddress('POST', '/dashboard/sandbox/customers'), undefined);
    assert.equal(routeOfAddress('GET', '/pay/pp_1'), undefined);
  });

  let ownerShown: Map<string, Target[]>;

  test('the owner is shown every action of these screens', async () => {
    ownerShown = await shownTo('owner');
    assert.equal(ownerShown.size, screens.length);
    const posts = new Set([...ownerShown.values()].flat().filter((target) => target.method === 'POST').map((target) => routeOfAddress('POST', target.address)));
    for (const route of [
      'POST /:mode/payout-pages/:payoutPageId/release',
      'POST /:mode/payout-pages/:payoutPageId/cancel',
      'POST /:mode/payout-pages/:payoutPageId/reissue',
      'POST /:mode/customers/:customerId/erase',
      'POST /:mode/payment-pages/:pageId/refund',
      'POST /:mode/payment-pages/:pageId/expire',
      'POST /:mode/subscriptions/:subscriptionId/cancel',
      'POST /:mode/developers/api-keys',
      'POST /:mode/developers/api-keys/:keyId/revoke',
      'POST /:mode/developers/pii-key/reveal',
      'POST /:mode/developers/pii-key/rotate',
      'POST /:mode/developers/webhooks',
      'POST /:mode/developers/webhooks/:endpointId/rotate',
      'POST /:mode/developers/webhooks/:endpointId/delete',
      'POST /:mode/developers/webhooks/:endpointId/events',
      'POST /:mode/developers/webhooks/:endpointId/test',
      'POST /:mode/developers/events/:eventId/redeliver',
      'POST /:mode/settings/branding',
      'POST /:mode/account/security/require',
    ]) {
      assert.ok(posts.has(route), `the owner is shown ${route}`);
    }
    const links = new Set([...ownerShown.values()].flat().map((target) => routeOfAddress(target.method, target.address)));
    for (const route of ['GET /:mode/payout-pages/new', 'GET /:mode/payment-pages/new', 'GET /:mode/customers/export.csv', 'GET /:mode/customers/:customerId/export']) {
      assert.ok(links.has(route), `the owner is shown ${route}`);
    }
  });

  for (const role of roles) {
    test(`${role}: every form and link shown is allowed by the matrix, the server agrees, and nothing allowed is missing`, async () => {
      const client = clients.get(role);
      assert.ok(client);
      const shown = role === 'owner' ? ownerShown : await shownTo(role);
      const checked = new Set<string>();
      for (const [screen, targets] of shown) {
        for (const target of targets) {
          assert.ok(allowed(role, target), `${role} is shown ${key(target)} on ${screen}, which the matrix refuses`);
          if (checked.has(key(target)) || target.address === '/dashboard/sign-out') {
            continue;
          }
          checked.add(key(target));
          // The server's own answer: a link opens, a form is not refused for the role (posted without
          // its token, so an allowed form is stopped by the CSRF check and changes nothing).
          const response = target.method === 'GET' ? await client.get(target.address) : await client.post(target.address, {}, { csrf: null });
          assert.doesNotMatch(textOf(response.body), /Your role \([A-Za-z]+\) does not allow this/, `${role} ${key(target)}`);
          if (target.method === 'GET') {
            assert.ok([200, 303].includes(response.statusCode), `${role} ${key(target)} → ${response.statusCode}`);
          }
        }
        // Every kind of action (route) the owner is shown on this screen that the role may use, the
        // role is shown too. (Routes, not addresses: the inbox and one's own sessions differ per user and time.)
        const routesOf = (list: Target[]) => [...new Set(list.map((target) => routeOfAddress(target.method, target.address) ?? key(target)))].sort();
        const expected = routesOf((ownerShown.get(screen) ?? []).filter((target) => allowed(role, target)));
        assert.deepEqual(routesOf(targets), expected, `${role} on ${screen}`);
      }
      const forms = [...shown.values()].flat().filter((target) => target.method === 'POST' && !target.address.includes('/account/') && target.address !== '/dashboard/sign-out');
      if (role === 'viewer') {
        assert.deepEqual(forms.map(key), [], 'a viewer is shown no form that changes the account');
      } else {
        assert.ok(forms.length > 0, `${role} is shown the forms of its role`);
      }
    });
  }
});
