import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { hash } from '@node-rs/argon2';
import { eq } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { auditEvents, dashboardUsers } from '../../../src/db/schema/index.ts';
import { newId } from '../../../src/crypto/ids.ts';
import { passwordHashOptions } from '../../../src/modules/merchants/service.ts';
import { DashboardClient, signedInClient, textOf } from './client.ts';
import { enrolTwoFactor, securityPath as security, totpStepMs } from './two-factor-client.ts';
import { runInProcess } from '../../cli/helpers.ts';

const firefox = 'Mozilla/5.0 (X11; Linux x86_64; rv:133.0) Gecko/20100101 Firefox/133.0';
const iphone = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';

describe('dashboard security: requiring two-factor sign-in, and the list of sessions', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
  });
  after(async () => context.close());

  /** A second dashboard user of the merchant (roles and invitations are another screen's business). */
  async function addUser(merchant: TestMerchant, email: string): Promise<TestMerchant['dashboardUser']> {
    const password = 'second-user-password';
    const now = context.clock.now();
    await context.database.db.insert(dashboardUsers).values({ id: newId('dashboardUser', now.getTime()), merchantId: merchant.id, email, role: 'admin', passwordHash: await hash(password, passwordHashOptions), createdAt: now, updatedAt: now });
    return { email, password };
  }

  async function auditRows(merchantId: string) {
    await context.platform.services.audit.flush();
    return context.database.db.select().from(auditEvents).where(eq(auditEvents.merchantId, merchantId));
  }

  test('an owner can require two-factor sign-in only once they use it; a user without it can then only enrol', async () => {
    const merchant = await context.createMerchant({ name: 'Required' });
    const owner = await signedInClient(context, merchant);
    await owner.get(security);
    const tooEarly = await owner.post(`${security}/require`, { required: 'on' });
    assert.equal(tooEarly.statusCode, 303);
    assert.match(textOf((await owner.get(String(tooEarly.headers.location))).body), /Set up two-factor sign-in for yourself first/);
    const invalid = await owner.post(`${security}/require`, { required: 'maybe' });
    assert.equal(invalid.statusCode, 400);
    assert.match(textOf(invalid.body), /required must be on or off/);

    const other = await addUser(merchant, `second-${Date.now()}@example.com`);
    const colleague = new DashboardClient(context);
    await colleague.signIn(other);

    await enrolTwoFactor(owner, context.clock);
    await owner.get(security);
    const asking = await owner.post(`${security}/require`, { required: 'on' });
    assert.equal(asking.statusCode, 200, 'turning it on asks first');
    assert.match(textOf(asking.body), /Require two-factor sign-in for all users\?/);
    assert.equal((await colleague.get('/dashboard/sandbox')).statusCode, 200, 'the confirmation step changes nothing');
    const on = await owner.post(`${security}/require`, { required: 'on', confirmed: '1' });
    assert.equal(on.statusCode, 303);
    assert.match(textOf((await owner.get(String(on.headers.location))).body), /now required for every user/);

    // The colleague's open session is held at enrolment: every other page and form redirects there.
    for (const url of ['/dashboard/sandbox', '/dashboard/sandbox/customers', security]) {
      const held = await colleague.get(url);
      assert.equal(held.statusCode, 303, url);
      assert.equal(held.headers.location, `${security}/two-factor`, url);
    }
    // A fresh sign-in goes the same way right after the password.
    const fresh = new DashboardClient(context);
    await fresh.signIn(other);
    const landing = await fresh.get('/dashboard/sandbox');
    assert.equal(landing.headers.location, `${security}/two-factor`);
    const enrolPage = await fresh.get(`${security}/two-factor`);
    assert.match(textOf(enrolPage.body), /Your account requires two-factor sign-in/);
    await enrolTwoFactor(fresh, context.clock);
    assert.equal((await fresh.get('/dashboard/sandbox')).statusCode, 200, 'enrolled: the dashboard opens');

    // While required, nobody can turn it off.
    await fresh.get(security);
    const refused = await fresh.post(`${security}/two-factor/disable`, { credential: other.password, confirmed: '1' });
    assert.match(String(refused.headers.location), /error=disable-required/);
    assert.match(textOf((await fresh.get(security)).body), /On since/);

    const off = await owner.post(`${security}/require`, { required: 'off' });
    assert.match(String(off.headers.location), /notice=require-off/);
    const rows = await auditRows(merchant.id);
    const outcomesOf = (action: string) => rows.filter((row) => row.action === action).map((row) => row.outcome).sort();
    assert.deepEqual(outcomesOf('merchants_requireTwoFactor'), ['FAILED', 'FAILED', 'SUCCEEDED'], 'turning it on: the early refusal and the bad value (400) failed; on succeeded');
    assert.deepEqual(outcomesOf('merchants_stopRequiringTwoFactor'), ['SUCCEEDED'], 'turning it off is a row of its own: the row says on or off');
  });

  test('sessions are listed with browser, address and times; one is revoked, then all others; the revoked cookie is signed out', async () => {
    const merchant = await context.createMerchant({ name: 'Sessions' });
    const laptop = new DashboardClient(context, '203.0.113.7');
    laptop.userAgent = firefox;
    await laptop.signIn(merchant.dashboardUser);
    const phone = new DashboardClient(context, '198.51.100.20');
    phone.userAgent = iphone;
    await phone.signIn(merchant.dashboardUser);
    const third = await signedInClient(context, merchant);

    const page = await laptop.get(security);
    const text = textOf(page.body);
    assert.match(text, /Firefox 133 on Linux This session 203\.0\.113\.7/);
    assert.match(text, /Safari 18 on iOS 198\.51\.100\.20/);
    assert.equal([...page.body.matchAll(/\/sessions\/(dss_[0-9a-z]+)\/revoke/g)].length, 3);

    const phoneSession = /<td id="session-(dss_[0-9a-z]+)">Safari 18 on iOS/.exec(page.body)?.[1];
    assert.ok(phoneSession);
    const confirming = await laptop.post(`${security}/sessions/${phoneSession}/revoke`, {});
    assert.equal(confirming.statusCode, 200);
    assert.match(textOf(confirming.body), /Sign out this session\? Safari 18 on iOS from 198\.51\.100\.20/);
    assert.equal((await phone.get('/dashboard/sandbox')).statusCode, 200, 'the confirmation step changes nothing');
    const revoked = await laptop.post(`${security}/sessions/${phoneSession}/revoke`, { confirmed: '1' });
    assert.equal(revoked.statusCode, 303);
    const signedOut = await phone.get('/dashboard/sandbox');
    assert.equal(signedOut.statusCode, 303);
    assert.match(String(signedOut.headers.location), /^\/dashboard\/sign-in/);

    // Another merchant's user cannot see or revoke this user's sessions.
    const stranger = await signedInClient(context, await context.createMerchant({ name: 'Stranger' }));
    await stranger.get(security);
    const laptopSession = /<td id="session-(dss_[0-9a-z]+)">Firefox/.exec((await laptop.get(security)).body)?.[1];
    const foreign = await stranger.post(`${security}/sessions/${laptopSession}/revoke`, { confirmed: '1' });
    assert.equal(foreign.statusCode, 404);
    assert.equal((await laptop.get('/dashboard/sandbox')).statusCode, 200);

    await laptop.get(security);
    const everywhere = await laptop.post(`${security}/sessions/revoke-others`, { confirmed: '1' });
    assert.match(String(everywhere.headers.location), /notice=sessions-revoked/);
    assert.equal((await third.get('/dashboard/sandbox')).statusCode, 303, 'the other session is signed out');
    assert.equal((await laptop.get('/dashboard/sandbox')).statusCode, 200, 'this session stays');
    assert.equal([...(await laptop.get(security)).body.matchAll(/\/sessions\/(dss_[0-9a-z]+)\/revoke/g)].length, 1);

    const self = /<td id="session-(dss_[0-9a-z]+)">Firefox/.exec(laptop.lastPage)?.[1];
    const bye = await laptop.post(`${security}/sessions/${self}/revoke`, { confirmed: '1' });
    assert.equal(bye.headers.location, '/dashboard/sign-in?signed_out=1');
    assert.equal((await laptop.get('/dashboard/sandbox')).statusCode, 303);

    const actions = (await auditRows(merchant.id)).map((row) => `${row.action} ${row.outcome}`).sort();
    assert.deepEqual(actions, ['dashboardSessions_revoke SUCCEEDED', 'dashboardSessions_revoke SUCCEEDED', 'dashboardSessions_revokeOthers SUCCEEDED']);
  });

  test('last activity is refreshed at most once a minute', async () => {
    const merchant = await context.createMerchant({ name: 'Activity' });
    const client = await signedInClient(context, merchant);
    const lastActive = async () => /<td><time datetime="([^"]+)"[^>]*>[^<]*<\/time><\/td>\s*<td><form/.exec((await client.get(security)).body)?.[1];
    const first = await lastActive();
    context.clock.advance(30_000);
    assert.equal(await lastActive(), first);
    context.clock.advance(2 * totpStepMs);
    const later = await lastActive();
    assert.ok(first && later && new Date(later).getTime() > new Date(first).getTime(), `${first} → ${later}`);
  });

  test("the operator resets a user who lost phone and recovery codes: two-factor off, sessions ended; only that merchant's user", async () => {
    const merchant = await context.createMerchant({ name: 'Lost phone' });
    const client = await signedInClient(context, merchant);
    await enrolTwoFactor(client, context.clock);
    const email = merchant.dashboardUser.email;
    const other = await context.createMerchant({ name: 'Someone else' });
    const refused = await runInProcess(context.platform, ['merchants', 'reset-two-factor', other.id, email]);
    assert.equal(refused.code, 1, refused.stderr);
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 200, 'nothing changed for a user of another merchant');

    const reset = await runInProcess(context.platform, ['merchants', 'reset-two-factor', merchant.id, email.toUpperCase()]);
    assert.equal(reset.code, 0, reset.stderr);
    assert.match(reset.stdout, /Two-factor sign-in is off for/);
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 303, 'the session was ended');
    const again = new DashboardClient(context);
    assert.equal((await again.signIn(merchant.dashboardUser)).headers.location, '/dashboard', 'the password alone signs in');
    const rows = await auditRows(merchant.id);
    assert.deepEqual(
      rows.filter((row) => row.action === 'adminDashboardUsers_resetTwoFactor').map((row) => [row.actorType, row.outcome]),
      [['operator', 'SUCCEEDED']],
    );
  });
});
