import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
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

  test('sign-in is rate limited per e-mail and address: the sixth attempt in a minute answers 429', async () => {
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
    // Another address is not affected.
    const elsewhere = new DashboardClient(context, '10.0.0.4');
    await elsewhere.get('/dashboard/sign-in');
    assert.equal((await elsewhere.post('/dashboard/sign-in', { email, password: 'wrong-password' })).statusCode, 401);
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

    const changed = await client.post('/dashboard/sandbox/account/password', { currentPassword: own.dashboardUser.password, newPassword: 'a-much-longer-password', confirmation: 'a-much-longer-password' });
    assert.equal(changed.statusCode, 303);
    assert.equal(changed.headers.location, '/dashboard/sandbox/account?notice=password-changed');
    const page = await client.get('/dashboard/sandbox/account?notice=password-changed');
    assert.equal(page.statusCode, 200);
    assert.match(textOf(page.body), /Your password was changed/);
    assert.equal((await elsewhere.get('/dashboard/sandbox')).statusCode, 303, 'the other session was signed out');

    const fresh = new DashboardClient(context, '10.0.0.6');
    await fresh.get('/dashboard/sign-in');
    assert.equal((await fresh.post('/dashboard/sign-in', { email: own.dashboardUser.email, password: own.dashboardUser.password })).statusCode, 401);
    assert.equal((await fresh.post('/dashboard/sign-in', { email: own.dashboardUser.email, password: 'a-much-longer-password' })).statusCode, 303);
  });

  test('unknown dashboard addresses answer an HTML 404 page', async () => {
    const client = await signedInClient(context, merchant);
    const response = await client.get('/dashboard/sandbox/nothing-here/at-all');
    assert.equal(response.statusCode, 404);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    const badMode = await client.get('/dashboard/staging/customers');
    assert.equal(badMode.statusCode, 404);
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
