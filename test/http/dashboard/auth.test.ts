import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createMemoryRateLimiter } from '../../../src/http/rate-limit.ts';
import { signInLimits } from '../../../src/modules/dashboard/routes.tsx';
import { DashboardClient, signedInClient, textOf } from './client.ts';

describe('dashboard sign-in, sessions, CSRF and password change', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
  });
  after(async () => context.close());

  test('pages need a session: a signed-out visit goes to the sign-in page, keeping where it was going', async () => {
    const client = new DashboardClient(context);
    const response = await client.get('/dashboard/sandbox/customers?kyc=APPROVED');
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard/sign-in?next=%2Fdashboard%2Fsandbox%2Fcustomers%3Fkyc%3DAPPROVED');
    const root = await client.get('/dashboard');
    assert.equal(root.headers.location, '/dashboard/sign-in');
  });

  test('the sign-in page is a strict-CSP HTML form with a CSRF token', async () => {
    const client = new DashboardClient(context);
    const response = await client.get('/dashboard/sign-in');
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    const csp = String(response.headers['content-security-policy']);
    assert.match(csp, /script-src 'nonce-[^']+'/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.match(response.body, /<form method="post" action="\/dashboard\/sign-in"/);
    assert.ok(client.csrfToken().length > 20);
    const csrfCookie = response.cookies.find((cookie) => cookie.name === 'ps_csrf');
    assert.equal(csrfCookie?.httpOnly, true);
    assert.equal(csrfCookie?.sameSite, 'Strict');
  });

  test('signing in sets an HttpOnly SameSite session cookie scoped to /dashboard and lands on the sandbox overview', async () => {
    const client = new DashboardClient(context);
    const response = await client.signIn(merchant.dashboardUser);
    assert.equal(response.headers.location, '/dashboard');
    const session = response.cookies.find((cookie) => cookie.name === 'ps_dashboard_session');
    assert.ok(session);
    assert.equal(session.httpOnly, true);
    assert.equal(session.sameSite, 'Strict');
    assert.equal(session.path, '/dashboard');
    assert.ok(session.expires instanceof Date);
    const home = await client.get('/dashboard');
    assert.equal(home.headers.location, '/dashboard/sandbox');
    const overview = await client.get('/dashboard/sandbox');
    assert.equal(overview.statusCode, 200);
    const text = textOf(overview.body);
    assert.match(text, /Overview/);
    assert.match(text, /Acme Sails/);
    assert.match(text, /Sandbox: test data only/);
    // Live is visible but greyed out until the operator enables it.
    assert.match(overview.body, /<span class="disabled" aria-disabled="true"[^>]*>Live/);
    const live = await client.get('/dashboard/live');
    assert.equal(live.statusCode, 403);
    assert.match(textOf(live.body), /Live mode is not enabled for your account yet/);
  });

  test('the sign-in follows `next` only to dashboard paths', async () => {
    const client = new DashboardClient(context);
    await client.get('/dashboard/sign-in?next=%2Fdashboard%2Fsandbox%2Finbox');
    const response = await client.post('/dashboard/sign-in', { email: merchant.dashboardUser.email, password: merchant.dashboardUser.password, next: '/dashboard/sandbox/inbox' });
    assert.equal(response.headers.location, '/dashboard/sandbox/inbox');

    const other = new DashboardClient(context);
    await other.get('/dashboard/sign-in');
    const offsite = await other.post('/dashboard/sign-in', { email: merchant.dashboardUser.email, password: merchant.dashboardUser.password, next: '//evil.example/dashboard' });
    assert.equal(offsite.headers.location, '/dashboard');
  });

  test('a wrong password answers 401 with the form again, and no session', async () => {
    const client = new DashboardClient(context, '10.0.0.2');
    await client.get('/dashboard/sign-in');
    const response = await client.post('/dashboard/sign-in', { email: merchant.dashboardUser.email, password: 'not-the-password' });
    assert.equal(response.statusCode, 401);
    assert.match(textOf(response.body), /The e-mail or the password is not correct/);
    assert.equal(client.cookies.has('ps_dashboard_session'), false);
    const unknown = await client.post('/dashboard/sign-in', { email: 'nobody@example.com', password: 'whatever-password' });
    assert.equal(unknown.statusCode, 401);
  });

  test('sign-in is rate limited per e-mail and address, then per e-mail across addresses: the account budget is shared', async () => {
    const client = new DashboardClient(context, '10.0.0.3');
    await client.get('/dashboard/sign-in');
    const email = `limited-${Date.now()}@example.com`;
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      const response = await client.post('/dashboard/sign-in', { email, password: 'wrong-password' });
      assert.equal(response.statusCode, 401, `attempt ${attempt}`);
    }
    const limited = await client.post('/dashboard/sign-in', { email, password: 'wrong-password' });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(textOf(limited.body), /Too many sign-in attempts/);

    // Other addresses get their own 5 a minute for this e-mail, but only until the account's budget
    // (signInLimits.perAccount, 20 per 15 minutes whatever the address) is spent: guessing from many
    // addresses is as slow as from one.
    const { burst, perSecond } = signInLimits.perAccount;
    const started = Date.now();
    let accepted = 5;
    let refusedAt: string | undefined;
    for (let address = 10; address < 30 && !refusedAt; address += 1) {
      const elsewhere = new DashboardClient(context, `10.0.1.${address}`);
      await elsewhere.get('/dashboard/sign-in');
      for (let attempt = 1; attempt <= 4; attempt += 1) {
        const response = await elsewhere.post('/dashboard/sign-in', { email, password: 'wrong-password' });
        if (response.statusCode === 429) {
          refusedAt = `10.0.1.${address}`;
          assert.match(textOf(response.body), /Too many sign-in attempts/);
          break;
        }
        assert.equal(response.statusCode, 401);
        accepted += 1;
      }
    }
    assert.ok(refusedAt, 'an address that never tried before is refused once the account budget is spent');
    // The refused sixth attempt above took a token too; a few may have refilled meanwhile.
    const refilled = Math.ceil(((Date.now() - started) / 1000) * perSecond);
    assert.ok(accepted <= burst - 1 + refilled && accepted >= burst - 2, `attempts let through for one account from many addresses: ${accepted}`);
    const fresh = new DashboardClient(context, '10.0.2.1');
    await fresh.get('/dashboard/sign-in');
    const refused = await fresh.post('/dashboard/sign-in', { email, password: 'wrong-password' });
    assert.equal(refused.statusCode, 429, 'a fresh address is refused for this account');
    assert.ok(Number(refused.headers['retry-after']) >= 1);
    // The limit is the account's, not the address's: another e-mail from that address still signs in.
    assert.equal((await fresh.post('/dashboard/sign-in', { email: merchant.dashboardUser.email, password: merchant.dashboardUser.password })).statusCode, 303);
  });

  test('sign-in is rate limited per address whatever the e-mail: one address cannot try a list of accounts', async () => {
    const client = new DashboardClient(context, '10.0.3.1');
    await client.get('/dashboard/sign-in');
    const { burst, perSecond } = signInLimits.perAddress;
    const started = Date.now();
    let accepted = 0;
    let limited: Awaited<ReturnType<DashboardClient['post']>> | undefined;
    for (let attempt = 0; attempt < burst * 2 && !limited; attempt += 1) {
      // A new e-mail every time: neither the per-account nor the per-account-and-address budget is spent.
      const response = await client.post('/dashboard/sign-in', { email: `stuffing-${attempt}-${Date.now()}@example.com`, password: 'wrong-password' });
      if (response.statusCode === 429) {
        limited = response;
      } else {
        assert.equal(response.statusCode, 401);
        accepted += 1;
      }
    }
    assert.ok(limited, 'the address is refused after its budget');
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    const refilled = Math.ceil(((Date.now() - started) / 1000) * perSecond);
    assert.ok(accepted >= burst && accepted <= burst + refilled, `attempts let through from one address: ${accepted}`);
    const elsewhere = new DashboardClient(context, '10.0.3.2');
    await elsewhere.get('/dashboard/sign-in');
    assert.equal((await elsewhere.post('/dashboard/sign-in', { email: `stuffing-other-${Date.now()}@example.com`, password: 'wrong-password' })).statusCode, 401, 'another address is not affected');
  });

  test('the in-process limiter evicts the least recently used buckets when full, instead of forgetting every bucket', async () => {
    let now = 0;
    const limiter = createMemoryRateLimiter(1, 2, () => now, { maxKeys: 3 });
    assert.deepEqual([await limiter.take('hot'), await limiter.take('hot')], [0, 0]);
    assert.ok((await limiter.take('hot')) > 0, 'the hot bucket is empty');
    // A flood of new keys: the map holds 3, the hot key is used between them and keeps its state.
    for (let index = 0; index < 20; index += 1) {
      assert.equal(await limiter.take(`flood-${index}`), 0);
      assert.ok((await limiter.take('hot')) > 0, `the hot bucket is still empty after ${index + 1} new keys`);
    }
    // The least recently used bucket was evicted: it starts full again.
    assert.equal(await limiter.take('flood-0'), 0);
    // Buckets idle long enough to have refilled go first, and the refill itself still works.
    now += 2_000;
    assert.equal(await limiter.take('hot'), 0);
    await limiter.close();
  });

  test('a sign-in form posted without its CSRF token is refused with 403', async () => {
    const client = new DashboardClient(context, '10.0.0.5');
    await client.get('/dashboard/sign-in');
    const response = await client.post('/dashboard/sign-in', { email: merchant.dashboardUser.email, password: merchant.dashboardUser.password }, { csrf: null });
    assert.equal(response.statusCode, 403);
    assert.equal(client.cookies.has('ps_dashboard_session'), false);
  });

  test('a signed-in form posted without (or with a foreign) CSRF token is refused with 403 and changes nothing', async () => {
    const client = await signedInClient(context, merchant);
    await client.get('/dashboard/sandbox/developers/api-keys');
    const before = (await context.platform.services.merchants.listApiKeys(merchant.id)).length;
    const missing = await client.post('/dashboard/sandbox/developers/api-keys', { name: 'No token' }, { csrf: null });
    assert.equal(missing.statusCode, 403);
    assert.match(textOf(missing.body), /This form has expired or did not come from your dashboard/);
    // A token issued to another session does not work either.
    const other = await signedInClient(context, merchant);
    await other.get('/dashboard/sandbox/developers/api-keys');
    const foreign = await client.post('/dashboard/sandbox/developers/api-keys', { name: 'Foreign token' }, { csrf: other.csrfToken() });
    assert.equal(foreign.statusCode, 403);
    assert.equal((await context.platform.services.merchants.listApiKeys(merchant.id)).length, before);
    const signOut = await client.post('/dashboard/sign-out', {}, { csrf: null });
    assert.equal(signOut.statusCode, 403);
  });

  test('sign-out ends the session on the server, not only the cookie', async () => {
    const client = await signedInClient(context, merchant);
    await client.get('/dashboard/sandbox');
    const token = client.cookies.get('ps_dashboard_session');
    const response = await client.post('/dashboard/sign-out');
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, '/dashboard/sign-in?signed_out=1');
    assert.equal(client.cookies.has('ps_dashboard_session'), false);
    const replay = await context.app.inject({ method: 'GET', url: '/dashboard/sandbox', headers: { cookie: `ps_dashboard_session=${token}` } });
    assert.equal(replay.statusCode, 303);
  });

  test('a session expires after 12 hours', async () => {
    const client = await signedInClient(context, merchant);
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 200);
    context.clock.advance(12 * 60 * 60 * 1000 + 1);
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 303);
  });

  test('password change checks the current password, signs out other sessions and keeps this one', async () => {
    const own = await context.createMerchant({ name: 'Password Co' });
    const client = await signedInClient(context, own);
    const elsewhere = await signedInClient(context, own);
    await client.get('/dashboard/sandbox/account');

    const wrong = await client.post('/dashboard/sandbox/account/password', { currentPassword: 'nope', newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
    assert.equal(wrong.statusCode, 400);
    assert.match(textOf(wrong.body), /The current password is not correct/);
    const short = await client.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'short', confirmation: 'short' });
    assert.equal(short.statusCode, 400);
    assert.match(textOf(short.body), /at least|between 12/);
    const mismatch = await client.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'a-much-longer-password', confirmation: 'another-long-password' });
    assert.equal(mismatch.statusCode, 400);

    const oldToken = client.cookies.get('ps_dashboard_session');
    assert.ok(oldToken);
    const changed = await client.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
    assert.equal(changed.statusCode, 303);
    assert.equal(changed.headers.location, '/dashboard/sandbox/account?notice=password-changed');
    // A fresh session token replaces the old one: HttpOnly, SameSite, scoped to /dashboard.
    const renewed = changed.cookies.find((cookie) => cookie.name === 'ps_dashboard_session');
    assert.ok(renewed && renewed.value !== '' && renewed.value !== oldToken, 'a new session cookie is set');
    assert.equal(renewed.httpOnly, true);
    assert.equal(renewed.sameSite, 'Strict');
    assert.equal(renewed.path, '/dashboard');
    const page = await client.get('/dashboard/sandbox/account?notice=password-changed');
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Your password was changed/);
    assert.equal((await elsewhere.get('/dashboard/sandbox')).statusCode, 303, 'the other session was signed out');
    const replay = await context.app.inject({ method: 'GET', url: '/dashboard/sandbox', headers: { cookie: `ps_dashboard_session=${oldToken}` } });
    assert.equal(replay.statusCode, 303, 'the old token of this session no longer works');
    assert.match(String(replay.headers.location), /^\/dashboard\/sign-in/);

    const fresh = new DashboardClient(context, '10.0.0.6');
    await fresh.get('/dashboard/sign-in');
    assert.equal((await fresh.post('/dashboard/sign-in', { email: own.dashboardUser.email, password: own.dashboardUser.password })).statusCode, 401);
    assert.equal((await fresh.post('/dashboard/sign-in', { email: own.dashboardUser.email, password: 'a-much-longer-password' })).statusCode, 303);
  });

  test('password change attempts are limited per user, whatever the session', async () => {
    const own = await context.createMerchant({ name: 'Guessing Co' });
    const client = await signedInClient(context, own);
    const other = await signedInClient(context, own);
    await client.get('/dashboard/sandbox/account');
    const { burst } = signInLimits.passwordChange;
    for (let attempt = 1; attempt <= burst; attempt += 1) {
      const wrong = await client.post('/dashboard/sandbox/account/password', { currentPassword: `guess-${attempt}`, newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
      assert.equal(wrong.statusCode, 400, `attempt ${attempt}`);
    }
    const limited = await client.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
    assert.equal(limited.statusCode, 429);
    assert.ok(Number(limited.headers['retry-after']) >= 1);
    assert.match(textOf(limited.body), /Too many password change attempts/);
    // Another session of the same user shares the budget.
    await other.get('/dashboard/sandbox/account');
    const fromOther = await other.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
    assert.equal(fromOther.statusCode, 429);
    // Nothing changed: the original password still signs in.
    const check = new DashboardClient(context);
    await check.get('/dashboard/sign-in');
    assert.equal((await check.post('/dashboard/sign-in', { email: own.dashboardUser.email, password: own.dashboardUser.password })).statusCode, 303);
  });

  test('unknown dashboard addresses answer an HTML 404 page, inside the dashboard frame when signed in', async () => {
    const client = await signedInClient(context, merchant);
    const response = await client.get('/dashboard/sandbox/nothing-here/at-all');
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    assert.match(textOf(response.body), /Not found This dashboard address does not exist/);
    // The frame: the header with the sandbox/live switch, the sections, the account and sign-out.
    assert.match(response.body, /<nav class="modes" aria-label="Mode"><a href="\/dashboard\/sandbox" aria-current="page">Sandbox<\/a><span class="disabled" aria-disabled="true"/);
    assert.match(response.body, /<nav class="sections" aria-label="Sections">/);
    assert.match(response.body, new RegExp(`<a href="/dashboard/sandbox/account">${merchant.dashboardUser.email.replace(/[.+]/g, '\\$&')}</a>`));
    assert.match(response.body, /<form method="post" action="\/dashboard\/sign-out"><input type="hidden" name="_csrf" value="[^"]+"/);
    const badMode = await client.get('/dashboard/staging/customers');
    assert.equal(badMode.statusCode, 404);
    assert.match(badMode.body, /<nav class="modes" aria-label="Mode">/);
    // Signed out, the 404 has no frame (nothing about the account is shown).
    const signedOut = await new DashboardClient(context).get('/dashboard/sandbox/nothing-here/at-all');
    assert.equal(signedOut.statusCode, 404);
    assert.doesNotMatch(signedOut.body, /<nav class="modes"/);
  });

  test('dashboard pages stay out of the API OpenAPI document', async () => {
    const response = await context.app.inject({ method: 'GET', url: '/openapi.json' });
    const paths = Object.keys((JSON.parse(response.body) as { paths: Record<string, unknown> }).paths);
    assert.equal(
      paths.some((path) => path.startsWith('/dashboard')),
      false,
    );
  });
});
