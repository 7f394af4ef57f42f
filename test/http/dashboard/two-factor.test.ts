import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { auditEvents, dashboardTwoFactor, dashboardUsers } from '../../../src/db/schema/index.ts';
import { createTwoFactor } from '../../../src/modules/dashboard/two-factor.ts';
import { DashboardClient, signedInClient, textOf } from './client.ts';
import { enrolTwoFactor, recoveryCodesOf, securityPath as security, totpCode, totpStepMs } from './two-factor-client.ts';


describe('dashboard two-factor sign-in: enrolment, the code step, recovery codes, disabling', () => {
  let context: TestContext;

  before(async () => {
    context = await createTestContext();
    // Ten seconds into a time step, so "the previous and the next step" are unambiguous.
    const now = context.clock.now().getTime();
    context.clock.set(Math.ceil(now / totpStepMs) * totpStepMs + 10_000);
  });
  after(async () => context.close());

  const codeAt = (secret: string, offsetSteps = 0) => totpCode(context.clock, secret, offsetSteps);
  const nextStep = () => context.clock.advance(totpStepMs);

  const enrol = (client: DashboardClient) => enrolTwoFactor(client, context.clock);

  /** The password step; answers the redirect it got. */
  async function passwordStep(client: DashboardClient, user: TestMerchant['dashboardUser']) {
    await client.get('/dashboard/sign-in');
    return client.post('/dashboard/sign-in', { email: user.email, password: user.password });
  }

  async function signInWithCode(user: TestMerchant['dashboardUser'], code: string) {
    const client = new DashboardClient(context);
    const first = await passwordStep(client, user);
    assert.equal(first.headers.location, '/dashboard/sign-in/code');
    await client.get('/dashboard/sign-in/code');
    return { client, response: await client.post('/dashboard/sign-in/code', { code }) };
  }

  /** The actions audited for the merchant (sorted: entries of one test share a clock time). */
  async function auditActions(merchantId: string): Promise<string[]> {
    await context.platform.services.audit.flush();
    const rows = await context.database.db.select({ action: auditEvents.action, outcome: auditEvents.outcome }).from(auditEvents).where(eq(auditEvents.merchantId, merchantId));
    return rows
      .filter((row) => row.outcome === 'SUCCEEDED')
      .map((row) => row.action)
      .sort();
  }

  test('enrolment: QR and secret, a wrong code keeps it off, a real code turns it on and shows ten recovery codes once', async () => {
    const merchant = await context.createMerchant({ name: 'Enrolment' });
    const client = await signedInClient(context, merchant);
    const before = textOf((await client.get(security)).body);
    assert.match(before, /Two-factor sign-in Off Signing in needs only your password/);

    const page = await client.get(`${security}/two-factor`);
    assert.match(page.body, /<div class="qr" role="img" aria-label="QR code to scan with your authenticator app"><svg[^>]*viewBox/);
    const secret = /<code class="secret"[^>]*>([A-Z2-7 ]+)<\/code>/.exec(page.body)?.[1]?.replace(/ /g, '') ?? '';
    assert.equal((await client.get(`${security}/two-factor`)).body.includes(secret.slice(0, 4)), true, 'a reload shows the same secret');

    const [user] = await context.database.db.select().from(dashboardUsers).where(eq(dashboardUsers.email, merchant.dashboardUser.email));
    assert.ok(user);
    const enrolment = await createTwoFactor({ database: context.database, clock: context.clock, keyRing: context.keyRing }).enrolment(user.id, user.email);
    assert.equal(enrolment?.uri, `otpauth://totp/Paysail:${encodeURIComponent(user.email)}?issuer=Paysail&secret=${secret}&algorithm=SHA1&digits=6&period=30`);
    const [stored] = await context.database.db.select().from(dashboardTwoFactor).where(eq(dashboardTwoFactor.userId, user.id));
    assert.match(stored?.secretCiphertext ?? '', /^v1\./);
    assert.ok(!stored?.secretCiphertext.includes(secret), 'the secret is sealed at rest');

    const wrong = await client.post(`${security}/two-factor`, { code: codeAt(secret, 3) });
    assert.equal(wrong.statusCode, 400);
    assert.match(textOf(wrong.body), /The code is not correct/);
    const malformed = await client.post(`${security}/two-factor`, { code: 'abc' });
    assert.equal(malformed.statusCode, 400);
    assert.match(textOf((await client.get(security)).body), /Off Signing in needs only your password/);

    const enabled = await client.post(`${security}/two-factor`, { code: codeAt(secret) });
    assert.equal(enabled.statusCode, 303);
    const shown = await client.get(`${security}/recovery-codes`);
    const codes = recoveryCodesOf(shown.body);
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    assert.match(textOf(shown.body), /This is the only time they are shown/);
    const again = await client.get(`${security}/recovery-codes`);
    assert.equal(again.statusCode, 303, 'shown once: a reload goes back to the Security screen');
    assert.match(textOf((await client.get(security)).body), /On since .* 10 of 10 unused/);
    assert.deepEqual(await auditActions(merchant.id), ['dashboardUsers_enableTwoFactor']);
  });

  test('sign-in asks for the code after the password; no session exists before it; ±1 step accepted, replays and far codes refused', async () => {
    const merchant = await context.createMerchant({ name: 'Code step' });
    const { secret } = await enrol(await signedInClient(context, merchant));
    nextStep();

    const client = new DashboardClient(context);
    const first = await passwordStep(client, merchant.dashboardUser);
    assert.equal(first.statusCode, 303);
    assert.equal(first.headers.location, '/dashboard/sign-in/code');
    assert.ok(!client.cookies.has('ps_dashboard_session'), 'no session after the password alone');
    const pending = first.cookies.find((cookie) => cookie.name === 'ps_dashboard_pending');
    assert.equal(pending?.httpOnly, true);
    assert.equal(pending?.sameSite, 'Strict');
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 303, 'the pending step opens no page');
    const codePage = await client.get('/dashboard/sign-in/code');
    assert.equal(codePage.statusCode, 200);
    assert.match(codePage.body, /autocomplete="one-time-code"/);

    const wrong = await client.post('/dashboard/sign-in/code', { code: codeAt(secret, 4) });
    assert.equal(wrong.statusCode, 401);
    assert.match(textOf(wrong.body), /The code is not correct/);
    const bad = await client.post('/dashboard/sign-in/code', { code: 'not a code' });
    assert.equal(bad.statusCode, 400);
    const code = codeAt(secret);
    const right = await client.post('/dashboard/sign-in/code', { code });
    assert.equal(right.statusCode, 303);
    assert.equal(right.headers.location, '/dashboard');
    assert.ok(client.cookies.has('ps_dashboard_session'));
    assert.ok(!client.cookies.has('ps_dashboard_pending'), 'the pending cookie is cleared');
    assert.equal((await client.get('/dashboard/sandbox')).statusCode, 200);

    assert.equal((await signInWithCode(merchant.dashboardUser, code)).response.statusCode, 401, 'the same code again is a replay');
    nextStep();
    nextStep();
    assert.equal((await signInWithCode(merchant.dashboardUser, codeAt(secret, -1))).response.statusCode, 303, 'the previous step is accepted');
    assert.equal((await signInWithCode(merchant.dashboardUser, codeAt(secret, 1))).response.statusCode, 303, 'the next step is accepted');
    assert.equal((await signInWithCode(merchant.dashboardUser, codeAt(secret))).response.statusCode, 401, 'a step before the last accepted one is refused');
    assert.equal((await signInWithCode(merchant.dashboardUser, codeAt(secret, 3))).response.statusCode, 401, 'two steps ahead is refused');
  });

  test('a wrong password answers the same whether or not the user has two-factor sign-in', async () => {
    const withTwoFactor = await context.createMerchant({ name: 'With' });
    await enrol(await signedInClient(context, withTwoFactor));
    const without = await context.createMerchant({ name: 'Without' });
    const answers = [];
    for (const user of [withTwoFactor.dashboardUser, without.dashboardUser]) {
      const client = new DashboardClient(context);
      const response = await passwordStep(client, { email: user.email, password: 'not-the-password' });
      answers.push({ status: response.statusCode, text: /<p class="error">([^<]+)<\/p>/.exec(response.body)?.[1], cookies: response.cookies.map((cookie) => cookie.name).sort() });
    }
    assert.equal(answers[0]?.status, 401);
    assert.deepEqual(answers[0], answers[1]);
  });

  test('recovery codes: each signs in once, in any case and spacing; regenerating ends the old set', async () => {
    const merchant = await context.createMerchant({ name: 'Recovery' });
    const client = await signedInClient(context, merchant);
    const { codes } = await enrol(client);
    const [first, second] = codes;
    assert.ok(first && second);
    assert.equal((await signInWithCode(merchant.dashboardUser, first)).response.statusCode, 303);
    assert.equal((await signInWithCode(merchant.dashboardUser, first)).response.statusCode, 401, 'a used recovery code is refused');
    assert.equal((await signInWithCode(merchant.dashboardUser, ` ${second.replace('-', ' ').toUpperCase()} `)).response.statusCode, 303);
    assert.match(textOf((await client.get(security)).body), /8 of 10 unused/);

    await client.get(security);
    const confirming = await client.post(`${security}/recovery-codes`, {});
    assert.equal(confirming.statusCode, 200);
    assert.match(textOf(confirming.body), /Make new recovery codes\?/);
    const made = await client.post(`${security}/recovery-codes`, { confirmed: '1' });
    assert.equal(made.statusCode, 303);
    const fresh = recoveryCodesOf((await client.get(`${security}/recovery-codes`)).body);
    assert.equal(fresh.length, 10);
    assert.equal((await signInWithCode(merchant.dashboardUser, codes[2] ?? '')).response.statusCode, 401, 'the old set no longer works');
    assert.equal((await signInWithCode(merchant.dashboardUser, fresh[0] ?? '')).response.statusCode, 303);
    assert.deepEqual(await auditActions(merchant.id), ['dashboardUsers_enableTwoFactor', 'dashboardUsers_regenerateRecoveryCodes']);
  });

  test('disabling needs a current code or the password, after a confirmation; then sign-in is one step again', async () => {
    const merchant = await context.createMerchant({ name: 'Disable' });
    const client = await signedInClient(context, merchant);
    const { secret } = await enrol(client);
    nextStep();
    await client.get(security);
    const empty = await client.post(`${security}/two-factor/disable`, { credential: '', confirmed: '1' });
    assert.equal(empty.statusCode, 400);
    // A wrong credential is refused before any confirmation page.
    const refusedFirst = await client.post(`${security}/two-factor/disable`, { credential: 'wrong password here' });
    assert.equal(refusedFirst.statusCode, 400);
    assert.match(textOf(refusedFirst.body), /neither a current code from your app nor your password/);
    const wrong = await client.post(`${security}/two-factor/disable`, { credential: 'wrong password here', confirmed: '1' });
    assert.equal(wrong.statusCode, 400);
    assert.match(textOf(wrong.body), /neither a current code from your app nor your password/);
    assert.match(textOf((await client.get(security)).body), /On since/);

    const off = await client.post(`${security}/two-factor/disable`, { credential: codeAt(secret), confirmed: '1' });
    assert.equal(off.statusCode, 303);
    assert.match(textOf((await client.get(String(off.headers.location))).body), /Two-factor sign-in is off/);
    const plain = await passwordStep(new DashboardClient(context), merchant.dashboardUser);
    assert.equal(plain.headers.location, '/dashboard');
    assert.deepEqual(await auditActions(merchant.id), ['dashboardUsers_disableTwoFactor', 'dashboardUsers_enableTwoFactor']);
  });

  test('without JavaScript the confirmation page carries no code or password: the check comes first, its proof is one-time', async () => {
    const merchant = await context.createMerchant({ name: 'Disable without JavaScript' });
    const client = await signedInClient(context, merchant);
    await enrol(client);
    nextStep();
    await client.get(security);
    const password = merchant.dashboardUser.password;
    const confirming = await client.post(`${security}/two-factor/disable`, { credential: password });
    assert.equal(confirming.statusCode, 200);
    assert.match(textOf(confirming.body), /Turn off two-factor sign-in\?/);
    assert.equal(confirming.body.includes(password), false, 'the password is not written into the page');
    assert.equal(/name="credential"/.test(confirming.body), false, 'no credential field at all');
    assert.deepEqual(
      [...(/<form[^>]*confirm-page[\s\S]*?<\/form>/.exec(confirming.body)?.[0] ?? '').matchAll(/<input type="hidden" name="([^"]+)"/g)].map((match) => match[1]).sort(),
      ['_csrf', 'confirmed'],
      'the confirmation form carries only its token and confirmed=1',
    );
    // Without the proof (a form crafted with confirmed=1 and no credential) nothing is turned off.
    const cookies = new Map(client.cookies);
    client.cookies.delete('ps_dashboard_flash');
    assert.equal((await client.post(`${security}/two-factor/disable`, { confirmed: '1' })).statusCode, 400);
    assert.match(textOf((await client.get(security)).body), /On since/);
    client.cookies.set('ps_dashboard_flash', String(cookies.get('ps_dashboard_flash')));

    const off = await client.post(`${security}/two-factor/disable`, { confirmed: '1' }, { csrf: /name="_csrf" value="([^"]+)"/.exec(confirming.body)?.[1] ?? null });
    assert.equal(off.statusCode, 303, textOf(off.body).slice(0, 300));
    assert.match(textOf((await client.get(String(off.headers.location))).body), /Two-factor sign-in is off/);

    // The proof was read once: after enrolling again, replaying the confirmed post turns nothing off.
    await enrol(client);
    nextStep();
    await client.get(security);
    const replay = await client.post(`${security}/two-factor/disable`, { confirmed: '1' });
    assert.equal(replay.statusCode, 400);
    assert.match(textOf((await client.get(security)).body), /On since/);
  });

  test('the pending step lasts five minutes', async () => {
    const merchant = await context.createMerchant({ name: 'Expiry' });
    const { secret } = await enrol(await signedInClient(context, merchant));
    const client = new DashboardClient(context);
    await passwordStep(client, merchant.dashboardUser);
    await client.get('/dashboard/sign-in/code');
    context.clock.advance(5 * 60 * 1000 + 1000);
    const late = await client.post('/dashboard/sign-in/code', { code: codeAt(secret) });
    assert.equal(late.statusCode, 303);
    assert.equal(late.headers.location, '/dashboard/sign-in?expired=1');
    assert.ok(!client.cookies.has('ps_dashboard_session'));
    assert.match(textOf((await client.get(String(late.headers.location))).body), /took more than five minutes/);
    assert.equal((await client.get('/dashboard/sign-in/code')).statusCode, 303);
  });

  test('code guesses are throttled like passwords, and then even the right code waits', async () => {
    const merchant = await context.createMerchant({ name: 'Throttle' });
    const { secret } = await enrol(await signedInClient(context, merchant));
    nextStep();
    const client = new DashboardClient(context);
    await passwordStep(client, merchant.dashboardUser);
    await client.get('/dashboard/sign-in/code');
    const statuses: number[] = [];
    for (let guess = 0; guess < 6; guess += 1) {
      statuses.push((await client.post('/dashboard/sign-in/code', { code: String(100000 + guess) })).statusCode);
    }
    assert.deepEqual(statuses, [401, 401, 401, 401, 429, 429], 'the password step took one attempt of the five');
    const right = await client.post('/dashboard/sign-in/code', { code: codeAt(secret) });
    assert.equal(right.statusCode, 429);
    assert.ok(Number(right.headers['retry-after']) >= 1);
    assert.ok(!client.cookies.has('ps_dashboard_session'));
  });
});
