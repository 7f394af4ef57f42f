import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { FormClient, visibleText } from '../helpers/browser.ts';
import { advanceAndDrain, closePayoutPageSuite, createPage, getPage, latestCode, openPayoutPageSuite, pageEmails, payoutEvents, uniqueReference, type PayoutPageData } from '../helpers/payout-pages.ts';

const canary = '<script>window.__pwned=1</script>';

describe('hosted payout page /payout-page/<id> (server-rendered forms through inject)', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPayoutPageSuite()));
  after(() => closePayoutPageSuite(context, { quietLogs: true }));

  /** A customer with partial KYC data (first name is the script canary) and a page for them. */
  async function partialCustomerPage(overrides: Record<string, unknown> = {}): Promise<PayoutPageData> {
    const referenceId = uniqueReference('partial');
    const created = await context.request({
      method: 'POST',
      url: '/v1/customers?livemode=false',
      apiKey: merchant.apiKey,
      body: { referenceId, signupAt: 1_700_000_000_000, email: 'ada@example.com', firstName: canary, address: { country: 'US', city: 'San Francisco' } },
    });
    assert.equal(created.statusCode, 200, created.body);
    return createPage(context, merchant, {
      customer: { referenceId, email: 'ada@example.com' },
      successReturnUrl: 'https://merchant.example/payouts/done',
      failureReturnUrl: 'https://other.example/payouts/failed',
      ...overrides,
    });
  }

  async function verified(page: PayoutPageData): Promise<FormClient> {
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${page.id}`);
    context.clock.advance(31_000); // past the resend interval of an earlier code
    const sent = await client.post(`/payout-page/${page.id}/code`, {});
    assert.equal(sent.statusCode, 303);
    await client.get(String(sent.headers.location));
    const done = await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
    assert.equal(done.statusCode, 303, done.body);
    assert.ok(client.cookie('ps_payout_session'));
    return client;
  }

  test('unknown or malformed ids answer a 404 HTML page', async () => {
    for (const url of ['/payout-page/payout_page_00000000000000000000000000000000000', '/payout-page/nope']) {
      const response = await context.app.inject({ method: 'GET', url });
      assert.equal(response.statusCode, 404, url);
      assert.match(String(response.headers['content-type']), /text\/html/);
      assert.ok(visibleText(response.body).includes('Page not found'));
    }
  });

  test('before verification: amount and merchant only, strict CSP with a nonce, return origins in form-action, no PII', async () => {
    const page = await partialCustomerPage({ amount: 123_456 });
    const response = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.equal(response.statusCode, 200);
    const csp = String(response.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce);
    assert.match(csp, /default-src 'none'/);
    assert.match(csp, /form-action 'self' https:\/\/merchant\.example https:\/\/other\.example/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.ok(response.body.includes(`<style nonce="${nonce}">`));
    assert.equal(/<script(?![^>]*nonce)/.test(response.body), false, 'no script without the nonce');
    const textContent = visibleText(response.body);
    assert.ok(textContent.includes('Acme Payouts'));
    assert.ok(textContent.includes('1,234.56 USDC'));
    assert.ok(textContent.includes('Sandbox'));
    assert.equal(response.body.includes('window.__pwned'), false, 'the first name is not shown before verification');
    assert.equal(response.body.includes('San Francisco'), false);
    assert.equal(response.body.includes('ada@example.com'), false);
    assert.ok(response.body.includes('lang="en"'));
    assert.ok(response.body.includes('name="viewport"'));
  });

  test('forms without the CSRF token (or with another page’s) are refused with 403', async () => {
    const page = await partialCustomerPage();
    const other = await partialCustomerPage();
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${other.id}`);
    const otherToken = client.csrfToken();
    await client.get(`/payout-page/${page.id}`);
    const pageToken = client.csrfToken();
    const missing = await client.post(`/payout-page/${page.id}/code`, {}, { csrf: false });
    assert.equal(missing.statusCode, 403);
    assert.match(String(missing.headers['content-type']), /text\/html/);
    const crossPage = await client.post(`/payout-page/${page.id}/code`, { _csrf: otherToken }, { csrf: false });
    assert.equal(crossPage.statusCode, 403);
    const stranger = new FormClient(context.app);
    const noCookie = await stranger.post(`/payout-page/${page.id}/code`, { _csrf: pageToken }, { csrf: false });
    assert.equal(noCookie.statusCode, 403);
    assert.equal((await pageEmails(context, page.id)).filter((email) => email.template === 'payout_page_verification_code').length, 0);
  });

  test('the 6-digit code: stored hashed, wrong guesses counted (5), a used-up code stops working, then a new one works', async () => {
    const page = await partialCustomerPage();
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/code`, {})).headers.location, `/payout-page/${page.id}?notice=sent`);
    const code = await latestCode(context, page.id);
    const stored = await context.database.db.execute(`select code_hash from payout_page_access_codes where payout_page_id = '${page.id}'`);
    assert.equal(JSON.stringify(stored).includes(code), false, 'only an HMAC of the code is stored');
    const wrongCode = code === '000000' ? '111111' : '000000';
    for (let attempt = 1; attempt <= 5; attempt += 1) {
      await client.get(`/payout-page/${page.id}`);
      const wrong = await client.post(`/payout-page/${page.id}/verify`, { code: wrongCode });
      assert.equal(wrong.statusCode, 400);
      assert.ok(visibleText(wrong.body).includes(attempt < 5 ? `${5 - attempt} attempt` : 'expired or was used up'), visibleText(wrong.body));
    }
    await client.get(`/payout-page/${page.id}`);
    const late = await client.post(`/payout-page/${page.id}/verify`, { code });
    assert.equal(late.statusCode, 400, 'the right code no longer works after 5 wrong guesses');
    assert.equal(client.cookie('ps_payout_session'), undefined);
    // A new code (30 s later) works.
    context.clock.advance(30_000);
    await client.get(`/payout-page/${page.id}`);
    await client.post(`/payout-page/${page.id}/code`, {});
    await client.get(`/payout-page/${page.id}`);
    const ok = await client.post(`/payout-page/${page.id}/verify`, { code: await latestCode(context, page.id) });
    assert.equal(ok.statusCode, 303);
    const cookie = (ok.cookies as Array<{ name: string; httpOnly?: boolean; sameSite?: string; path?: string }>).find((candidate) => candidate.name === 'ps_payout_session');
    assert.equal(cookie?.httpOnly, true);
    assert.equal(cookie?.path, `/payout-page/${page.id}`);
    assert.equal(cookie?.sameSite, 'Lax');
  });

  test('codes expire after 10 minutes; resends are limited (30 s apart, 5 an hour)', async () => {
    const page = await partialCustomerPage();
    const client = new FormClient(context.app);
    await client.get(`/payout-page/${page.id}`);
    await client.post(`/payout-page/${page.id}/code`, {});
    const code = await latestCode(context, page.id);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/code`, {})).headers.location, `/payout-page/${page.id}?notice=recently_sent`);
    context.clock.advance(10 * 60_000);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/verify`, { code })).statusCode, 400, 'expired');
    for (let sent = 2; sent <= 5; sent += 1) {
      context.clock.advance(31_000);
      await client.get(`/payout-page/${page.id}`);
      assert.equal((await client.post(`/payout-page/${page.id}/code`, {})).headers.location, `/payout-page/${page.id}?notice=sent`, `code ${sent}`);
    }
    context.clock.advance(31_000);
    await client.get(`/payout-page/${page.id}`);
    assert.equal((await client.post(`/payout-page/${page.id}/code`, {})).headers.location, `/payout-page/${page.id}?notice=too_many`);
  });

  test('a session is bound to its page; every customer action requires one', async () => {
    const page = await partialCustomerPage();
    const client = await verified(page);
    const other = await partialCustomerPage();
    const token = client.cookie('ps_payout_session') ?? '';
    const thief = new FormClient(context.app);
    thief.setCookie('ps_payout_session', token, `/payout-page/${other.id}`);
    await thief.get(`/payout-page/${other.id}`);
    assert.ok(visibleText(thief.lastHtml).includes('E-mail me a code'), 'the other page still asks for its own code');
    for (const action of ['review', 'confirm', 'kyc', 'decline']) {
      const response = await thief.post(`/payout-page/${other.id}/${action}`, { type: 'BANK_TRANSFER' });
      assert.equal(response.statusCode, 303, action);
      assert.equal(response.headers.location, `/payout-page/${other.id}?notice=session_expired`);
      assert.equal((await getPage(context, merchant, other.id)).status, 'CREATED', `after ${action}`);
    }
    const untouched = await getPage(context, merchant, other.id);
    assert.equal(untouched.status, 'CREATED', JSON.stringify(untouched));
  });

  test('bank flow: choose → details (errors named) → review (masked) → confirm → KYC form pre-filled → in review → paid', async () => {
    const page = await partialCustomerPage({ releaseMethod: 'AUTOMATIC', amount: 50_000 });
    const client = await verified(page);
    const choose = await client.get(`/payout-page/${page.id}`);
    const chooseText = visibleText(choose.body);
    assert.ok(chooseText.includes(`Hi ${canary}, how would you like to get paid?`), 'the first name is shown, escaped, after verification');
    assert.equal(choose.body.includes(canary), false, 'never as markup');
    assert.ok(choose.body.includes('&lt;script&gt;'));

    await client.get(`/payout-page/${page.id}?method=BANK_TRANSFER`);
    const bad = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000022', accountNumber: '000123456789', accountNumberConfirmation: '000123456789', accountType: 'CHECKING' });
    assert.equal(bad.statusCode, 400);
    assert.ok(visibleText(bad.body).includes('Routing number: Must be a valid 9-digit ABA routing number'));
    assert.ok(bad.body.includes('aria-invalid="true"'));
    assert.ok(bad.body.includes('value="Ada Lovelace"'), 'entered values are kept');
    // Every problem at once: a bad routing number and a bad account number are both listed and marked.
    const both = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000022', accountNumber: '12', accountNumberConfirmation: '12', accountType: 'CHECKING' });
    assert.equal(both.statusCode, 400);
    const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(both.body)?.[0] ?? '';
    assert.deepEqual(
      [...summary.matchAll(/<a href="#(\w+)">/g)].map((match) => match[1]),
      ['routingNumber', 'accountNumber'],
      'both problems, in form order',
    );
    assert.match(both.body, /id="routingNumber"[^>]*aria-invalid="true"/);
    assert.match(both.body, /id="accountNumber"[^>]*aria-invalid="true"/);
    assert.ok(visibleText(both.body).includes('Account number: Must be 4 to 17 digits'));

    const review = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'Ada Lovelace', routingNumber: '021000021', accountNumber: '000123456789', accountNumberConfirmation: '000123456789', accountType: 'SAVINGS' });
    assert.equal(review.statusCode, 200, review.body);
    assert.ok(visibleText(review.body).includes('•••• 6789'));
    assert.equal((await getPage(context, merchant, page.id)).status, 'CREATED', 'nothing is stored at review');

    const confirm = await client.post(`/payout-page/${page.id}/confirm`, Object.fromEntries([...review.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].filter((match) => match[1] !== '_csrf').map((match) => [match[1] ?? '', match[2] ?? ''])));
    assert.equal(confirm.statusCode, 303);
    const afterConfirm = await getPage(context, merchant, page.id);
    assert.equal(afterConfirm['sub-status'], 'KYC_REQUIRED');
    assert.deepEqual(afterConfirm.payoutMethod, { type: 'BANK_TRANSFER', last4: '6789', routingNumber: '021000021' });

    const kyc = await client.get(`/payout-page/${page.id}`);
    assert.ok(kyc.body.includes('value="San Francisco"'), 'pre-filled with what is known');
    assert.ok(kyc.body.includes('&lt;script&gt;window.__pwned=1&lt;/script&gt;'), 'the known first name, escaped, read-only');
    const invalid = await client.post(`/payout-page/${page.id}/kyc`, { lastName: 'Lovelace', dateOfBirth: '1990-12-10', phoneNumber: '123', 'address.line1': '1 Market St', 'address.state': 'CA', 'address.postalCode': '94105' });
    assert.equal(invalid.statusCode, 400);
    assert.ok(visibleText(invalid.body).includes('Phone number: Must be a valid phone number'), visibleText(invalid.body).slice(0, 600));
    assert.ok(invalid.body.includes('value="1 Market St"'));
    // Every problem at once: a birth date in the future, a short phone number and four empty required fields.
    const many = await client.post(`/payout-page/${page.id}/kyc`, { dateOfBirth: '2999-01-01', phoneNumber: '12' });
    assert.equal(many.statusCode, 400);
    const manySummary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(many.body)?.[0] ?? '';
    assert.deepEqual(
      [...manySummary.matchAll(/<a href="#([^"]+)">/g)].map((match) => match[1]),
      ['lastName', 'dateOfBirth', 'phoneNumber', 'address.line1', 'address.state', 'address.postalCode'],
      visibleText(manySummary),
    );
    assert.ok(visibleText(manySummary).includes('Must be in the past'), visibleText(manySummary));
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_REQUIRED', 'nothing submitted');
    const submitted = await client.post(`/payout-page/${page.id}/kyc`, { lastName: 'Lovelace', dateOfBirth: '1990-12-10', phoneNumber: '(415) 555-0123', 'address.line1': '1 Market St', 'address.state': 'CA', 'address.postalCode': '94105' });
    assert.equal(submitted.statusCode, 303);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'KYC_IN_REVIEW');
    const status = await client.get(`/payout-page/${page.id}`);
    assert.equal(status.body.includes('http-equiv="refresh"'), false, 'no timed refresh (WCAG 2.2.1)');
    assert.match(status.body, new RegExp(`<a class="button secondary" href="/payout-page/${page.id}">Check again</a>`), 'without JavaScript the status view offers Check again');
    assert.ok(status.body.includes('data-status-watch=""'), 'with JavaScript it watches for a change');
    assert.ok(visibleText(status.body).includes('verifying your identity'));

    await advanceAndDrain(context);
    await advanceAndDrain(context);
    const paid = await client.get(`/payout-page/${page.id}`);
    assert.ok(visibleText(paid.body).includes('You’ve been paid'));
    assert.equal(paid.body.includes('http-equiv="refresh"'), false, 'a final state does not refresh');
    assert.equal(paid.body.includes('Check again'), false, 'a final state has nothing to check again');
    assert.equal(paid.body.includes('data-status-watch'), false, 'nor anything to watch');
    assert.ok(visibleText(paid.body).includes('savings account ending 6789'));
    const back = await client.post(`/payout-page/${page.id}/return`, {});
    assert.equal(back.statusCode, 303);
    assert.equal(back.headers.location, 'https://merchant.example/payouts/done');
    assert.equal((await payoutEvents(context, page.id)).length, 5);
  });

  test('crypto flow with a single supported method goes straight to the wallet form; checksum errors are shown', async () => {
    const page = await partialCustomerPage({ releaseMethod: 'MANUAL' });
    await context.admin('POST', `/admin/v1/customers/${page.customer.id}/supported_payout_methods`, { supportedPayoutMethods: ['CRYPTO_WALLET'] });
    const client = await verified(page);
    const form = await client.get(`/payout-page/${page.id}`);
    assert.ok(form.body.includes('name="address"'));
    assert.equal(form.body.includes('name="routingNumber"'), false);
    const bank = await client.post(`/payout-page/${page.id}/review`, { type: 'BANK_TRANSFER', accountHolderName: 'A', routingNumber: '021000021', accountNumber: '1234', accountNumberConfirmation: '1234', accountType: 'CHECKING' });
    assert.equal(bank.statusCode, 303, 'an unsupported method is not accepted');
    await client.get(`/payout-page/${page.id}`);
    const bad = await client.post(`/payout-page/${page.id}/review`, { type: 'CRYPTO_WALLET', network: 'POLYGON', address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD' });
    assert.equal(bad.statusCode, 400);
    assert.ok(visibleText(bad.body).includes('Wallet address: Must be a POLYGON address'));
    const review = await client.post(`/payout-page/${page.id}/review`, { type: 'CRYPTO_WALLET', network: 'POLYGON', address: '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed' });
    assert.ok(visibleText(review.body).includes('0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed'), 'normalised to the checksummed form');
    const confirm = await client.post(`/payout-page/${page.id}/confirm`, Object.fromEntries([...review.body.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)"/g)].filter((match) => match[1] !== '_csrf').map((match) => [match[1] ?? '', match[2] ?? ''])));
    assert.equal(confirm.statusCode, 303);
    assert.deepEqual((await getPage(context, merchant, page.id)).payoutMethod, { type: 'CRYPTO_WALLET', network: 'POLYGON', address: '0x5aAe...eAed' });
  });

  test('decline: confirmation step, then CANCELED/CUSTOMER_DECLINED and a redirect to failureReturnUrl', async () => {
    const page = await partialCustomerPage();
    const client = await verified(page);
    const ask = await client.get(`/payout-page/${page.id}?step=decline`);
    assert.ok(visibleText(ask.body).includes('Decline this payout?'));
    const declined = await client.post(`/payout-page/${page.id}/decline`, {});
    assert.equal(declined.statusCode, 303);
    assert.equal(declined.headers.location, 'https://other.example/payouts/failed');
    const read = await getPage(context, merchant, page.id);
    assert.equal(read['sub-status'], 'CUSTOMER_DECLINED');
    const view = await client.get(`/payout-page/${page.id}`);
    assert.ok(visibleText(view.body).includes('You declined this payout'));
    const again = await client.post(`/payout-page/${page.id}/decline`, {});
    assert.equal(again.headers.location, `/payout-page/${page.id}`);
  });

  test('expired and canceled pages say so clearly (even before the expiry job ran)', async () => {
    const page = await partialCustomerPage({ expiresAt: context.clock.now().getTime() + 5_000 });
    context.clock.advance(5_000);
    const expired = await context.app.inject({ method: 'GET', url: `/payout-page/${page.id}` });
    assert.ok(visibleText(expired.body).includes('This payout link has expired'));
    assert.ok(expired.body.includes('Return to Acme Payouts'));
    const canceled = await partialCustomerPage();
    await context.request({ method: 'POST', url: `/v1/payout_pages/${canceled.id}/cancel`, apiKey: merchant.apiKey });
    const view = await context.app.inject({ method: 'GET', url: `/payout-page/${canceled.id}` });
    assert.ok(visibleText(view.body).includes('This payout was canceled'));
    await context.drainJobs();
  });

  test('e-mails: verification code and the rest carry no PII beyond the first name; HTML is escaped', async () => {
    const page = await partialCustomerPage();
    await verified(page);
    const all = await pageEmails(context, page.id);
    for (const email of all) {
      assert.equal(email.html.includes('<script>window'), false, email.template);
      assert.equal(email.text.includes('San Francisco'), false);
    }
    const code = all.find((email) => email.template === 'payout_page_verification_code');
    assert.ok(code?.html.includes('Hi &lt;script&gt;'), 'the greeting is escaped');
    assert.equal(json(await context.request({ method: 'GET', url: `/v1/payout_pages/${page.id}`, apiKey: merchant.apiKey })).status, 'SUCCEEDED');
  });
});
