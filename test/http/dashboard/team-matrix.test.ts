import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { eq, sql } from 'drizzle-orm';
import { apiKeys, dashboardInvites } from '../../../src/db/schema/index.ts';
import { roles, routeAccess, sectionAccess, visibleSections, type Role } from '../../../src/modules/dashboard/access.ts';
import { sectionPath, type Section } from '../../../src/modules/dashboard/pages/layout.tsx';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createCustomer, createPaymentPage, payoutAwaitingRelease, payPaymentPage } from './fixtures.ts';
import { addMember, memberEmail, navigationOf, postInvite } from './team-helpers.ts';

/** Every section of the navigation, in its order (as routes.tsx lists them). */
const allSections: Section[] = ['overview', 'customers', 'payout-pages', 'payment-pages', 'subscriptions', 'entitlements', 'fraud-reports', 'disputes', 'api-keys', 'webhooks', 'events', 'pii-key', 'branding', 'inbox', 'audit-log', 'team'];

/**
 * The role × screen × action matrix over HTTP on a real database (issue 18 item 11): for every role
 * and every route of the signed-in dashboard (access.ts `routeAccess`), an allowed request is not
 * refused and a forbidden one answers 403 FORBIDDEN, with the whole database unchanged (every table
 * but the audit log, which records the refused attempt). Each role's navigation lists exactly the
 * sections it may see.
 */
describe('dashboard team: the role matrix', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  const clients = new Map<Role, DashboardClient>();
  const ids: Record<string, string> = { mode: 'sandbox', subscriptionId: 'sub_unknown', reportId: 'fr_unknown', eventId: 'evt_unknown', emailId: 'eml_unknown', sessionId: 'dss_unknown' };

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Matrix Sails' });
    const owner = await signedInClient(context, merchant);
    clients.set('owner', owner);
    for (const role of roles.filter((candidate) => candidate !== 'owner')) {
      clients.set(role, (await addMember(context, owner, merchant.id, role)).client);
    }
    // Real resources behind every id of an address (an unknown id where a 403 must not depend on it).
    ids['customerId'] = (await createCustomer(context, merchant)).id;
    ids['payoutPageId'] = (await payoutAwaitingRelease(context, merchant)).id;
    const page = await createPaymentPage(context, merchant);
    await payPaymentPage(context, merchant, page.id);
    ids['pageId'] = page.id;
    const endpoint = await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: merchant.apiKey, body: { url: 'https://hooks.example.com/matrix' } });
    ids['endpointId'] = json<{ data: { id: string } }>(endpoint).data.id;
    const [key] = await context.database.db.select().from(apiKeys).where(eq(apiKeys.merchantId, merchant.id));
    ids['keyId'] = String(key?.id);
    ids['userId'] = (await addMember(context, owner, merchant.id, 'viewer')).userId;
    const invitedEmail = memberEmail('pending');
    assert.equal((await postInvite(owner, invitedEmail, 'support')).statusCode, 303);
    const [invite] = await context.database.db.select().from(dashboardInvites).where(eq(dashboardInvites.email, invitedEmail));
    ids['inviteId'] = String(invite?.id);
  });
  after(async () => context.close());

  function addressOf(path: string): string {
    return `/dashboard${path.replace(/:([A-Za-z]+)/g, (_match, name: string) => {
      const value = ids[name];
      assert.ok(value, `an id for :${name}`);
      return value;
    })}`;
  }

  /** A digest of every table but the audit log (which records refused attempts on purpose). */
  async function databaseDigest(): Promise<string> {
    const tables = await context.database.db.execute(
      sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' and table_name <> 'audit_events' order by table_name`,
    );
    const digests: string[] = [];
    for (const { table_name: table } of (tables as unknown as { rows: Array<{ table_name: string }> }).rows) {
      const result = await context.database.db.execute(sql`select md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest from ${sql.identifier(table)} t`);
      digests.push(`${table}:${(result as unknown as { rows: Array<{ digest: string }> }).rows[0]?.digest}`);
    }
    assert.ok(digests.length >= 20, `digests of ${digests.length} tables`);
    return digests.join(',');
  }

  test('the matrix names every role and section, and only owners and admins manage the team', () => {
    assert.deepEqual([...roles], ['owner', 'admin', 'developer', 'support', 'viewer']);
    for (const [route, allowed] of Object.entries(routeAccess)) {
      assert.ok(allowed.includes('owner'), `${route}: owners may do everything`);
      if (route.startsWith('POST ') && route.includes('/team/')) {
        assert.deepEqual([...allowed], ['owner', 'admin'], route);
      }
      // A viewer changes nothing of the merchant's; their own password, second factor and sessions are theirs.
      if (route.startsWith('POST ') && route !== 'POST /sign-out' && !route.startsWith('POST /:mode/account/')) {
        assert.ok(!allowed.includes('viewer'), `${route}: a viewer changes nothing`);
      }
    }
    assert.ok(!routeAccess['GET /:mode/customers/:customerId/export']?.includes('viewer'), 'a viewer exports no personal data');
    assert.ok(!routeAccess['POST /:mode/developers/pii-key/reveal']?.includes('viewer'), 'a viewer does not reveal the PII key');
  });

  for (const role of roles) {
    test(`${role}: the navigation lists exactly the sections the role may see`, async () => {
      const client = clients.get(role);
      assert.ok(client);
      const home = await client.get('/dashboard/sandbox');
      assert.equal(home.statusCode, 200);
      const expected = visibleSections(allSections, role).map((section) => sectionPath('sandbox', section));
      assert.deepEqual(navigationOf(home.body), expected);
      const seesTeam = role === 'owner' || role === 'admin';
      assert.equal(navigationOf(home.body).includes('/dashboard/sandbox/team'), seesTeam);
      assert.equal(navigationOf(home.body).includes('/dashboard/sandbox/audit-log'), seesTeam);
      assert.equal(expected.length, allSections.filter((section) => sectionAccess[section].includes(role)).length);
    });

    test(`${role}: every screen and action answers as the matrix says; a refusal is 403 and changes nothing`, async () => {
      const client = clients.get(role);
      assert.ok(client);
      const forbidden: string[] = [];
      for (const [route, allowed] of Object.entries(routeAccess)) {
        const [method, path] = route.split(' ') as ['GET' | 'POST', string];
        if (route === 'POST /sign-out' || allowed.includes(role)) {
          continue;
        }
        forbidden.push(route);
        await client.get('/dashboard/sandbox');
        const before = await databaseDigest();
        const response: LightMyRequestResponse =
          method === 'GET'
            ? await client.get(addressOf(path))
            : await client.post(addressOf(path), { confirmed: '1', role: 'owner', email: memberEmail('nope'), name: 'nope', decision: 'APPROVED' });
        assert.equal(response.statusCode, 403, `${role} ${route}`);
        assert.match(textOf(response.body), /Your role \([A-Za-z]+\) does not allow this\./, route);
        assert.equal(await databaseDigest(), before, `${role} ${route}: nothing changed`);
      }
      for (const [route, allowed] of Object.entries(routeAccess)) {
        const [method, path] = route.split(' ') as ['GET' | 'POST', string];
        if (route === 'POST /sign-out' || !allowed.includes(role)) {
          continue;
        }
        await client.get('/dashboard/sandbox');
        // Allowed forms are posted without `confirmed` and with no fields: at most a confirmation page or a 400, never a 403.
        const response: LightMyRequestResponse = method === 'GET' ? await client.get(addressOf(path)) : await client.post(addressOf(path));
        assert.notEqual(response.statusCode, 403, `${role} ${route}: ${textOf(response.body).slice(0, 300)}`);
        if (method === 'GET' && !path.includes(':', 2)) {
          assert.ok(response.statusCode === 200 || response.statusCode === 303, `${role} ${route} → ${response.statusCode}`);
        }
      }
      const expectedForbidden = Object.entries(routeAccess).filter(([route, allowed]) => route !== 'POST /sign-out' && !allowed.includes(role)).length;
      assert.equal(forbidden.length, expectedForbidden);
      if (role === 'viewer') {
        assert.ok(forbidden.length >= 30, `a viewer is refused every form (${forbidden.length})`);
      }
      if (role === 'owner') {
        assert.deepEqual(forbidden, []);
      }
    });
  }

  test('a client asking for JSON gets the FORBIDDEN envelope; a browser gets the error page inside the dashboard frame', async () => {
    const viewer = clients.get('viewer');
    assert.ok(viewer);
    const address = addressOf('/:mode/customers/:customerId/export');
    const cookie = [...viewer.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    const asJson = await context.app.inject({ method: 'GET', url: address, headers: { cookie, accept: 'application/json' } });
    assert.equal(asJson.statusCode, 403);
    const body = json<{ status: string; errorCode: string; errorMessage: string; requestId: string }>(asJson);
    assert.equal(body.status, 'FAILED');
    assert.equal(body.errorCode, 'FORBIDDEN');
    assert.match(body.errorMessage, /Your role \(Viewer\) does not allow this/);
    assert.equal(body.requestId, asJson.headers['request-id']);
    const asPage = await viewer.get(address);
    assert.equal(asPage.statusCode, 403);
    assert.match(String(asPage.headers['content-type']), /^text\/html/);
    assert.match(textOf(asPage.body), /Matrix Sails/);
    // The support role may export: the document downloads.
    const support = clients.get('support');
    assert.ok(support);
    const exported = await support.get(address);
    assert.equal(exported.statusCode, 200);
    assert.match(String(exported.headers['content-disposition']), /attachment; filename="customer-cus_/);
  });
});
