import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext, type TestMerchant } from '../helpers/context.ts';
import { createPage, eventsOf, testCards, type PageBody } from '../helpers/payment-pages.ts';

/** A browser without JavaScript: keeps cookies, reads the form's hidden CSRF token, posts urlencoded. */
class FormClient {
  private cookies = new Map<string, string>();
  constructor(private readonly context: TestContext) {}

  private remember(response: LightMyRequestResponse): void {
    for (const cookie of response.cookies) {
      this.cookies.set(cookie.name, cookie.value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  async get(url: string): Promise<LightMyRequestResponse> {
    const response = await this.context.app.inject({ method: 'GET', url, headers: { cookie: this.cookieHeader() } });
    this.remember(response);
    return response;
  }

  async post(url: string, fields: Record<string, string>): Promise<LightMyRequestResponse> {
    const response = await this.context.app.inject({
      method: 'POST',
      url,
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams(fields).toString(),
    });
    this.remember(response);
    return response;
  }
}

function csrfToken(html: string): string {
  const match = /name="_csrf" value="([^"]+)"/.exec(html);
  assert.ok(match?.[1], 'the form carries a CSRF token');
  return match[1];
}

function expiry(): string {
  return `12 / ${String((new Date().getUTCFullYear() + 3) % 100).padStart(2, '0')}`;
}

describe('hosted checkout /payment-page/<id> (server-rendered, no JavaScript needed)', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme <Books> & Co' });
    live = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  async function read(pageId: string): Promise<PageBody> {
    return json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}`, apiKey: merchant.apiKey })).data;
  }

  test('the form: amount and merchant (escaped), labelled fields with autocomplete, a CSRF token, strict CSP with a nonce and the return URL origins', async () => {
    const page = await createPage(context, merchant, { amount: 123456, currency: 'EUR', successReturnUrl: 'https://shop.example.com/ok', failureReturnUrl: 'https://cart.example.org/back' });
    const response = await new FormClient(context).get(`/payment-page/${page.id}`);
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/html/);
    const html = response.body;
    assert.ok(html.startsWith('<!doctype html>'));
    assert.ok(html.includes('€1,234.56'));
    assert.ok(html.includes('Acme &lt;Books&gt; &amp; Co'), 'the merchant name is escaped');
    for (const [id, autocomplete] of [
      ['cardNumber', 'cc-number'],
      ['expiry', 'cc-exp'],
      ['cvc', 'cc-csc'],
      ['cardholderName', 'cc-name'],
    ]) {
      assert.ok(html.includes(`<label for="${id}">`), `${id} has a label`);
      assert.match(html, new RegExp(`id="${id}"[^>]*autocomplete="${autocomplete}"`));
    }
    assert.match(html, /<meta name="viewport" content="width=device-width, initial-scale=1"\/>/);
    assert.match(html, /<form method="post" action="\/payment-page\/page_[0-9a-z]+"/);
    csrfToken(html);
    assert.ok(html.includes('href="https://cart.example.org/back"'), 'a way back to the merchant');
    const csp = String(response.headers['content-security-policy']);
    const nonce = /script-src 'nonce-([^']+)'/.exec(csp)?.[1];
    assert.ok(nonce);
    assert.ok(csp.includes("default-src 'none'"));
    assert.ok(csp.includes("form-action 'self' https://shop.example.com https://cart.example.org"));
    assert.ok(csp.includes("frame-ancestors 'none'"));
    assert.ok(html.includes(`<script nonce="${nonce}">`), 'the only script carries the nonce');
    assert.equal((html.match(/<script/g) ?? []).length, 1);
    assert.ok(!html.includes('&gt; *'), 'styles are not HTML-escaped');
    assert.equal(response.headers['x-frame-options'], 'DENY');
    assert.equal(response.headers['cache-control'], 'no-store');
    assert.ok(response.cookies.some((cookie) => cookie.name === 'ps_csrf' && cookie.httpOnly && cookie.sameSite === 'Strict'));
  });

  test('CSRF: a post without the token, with a wrong one, or without the cookie answers 403 and charges nothing', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const fields = { cardNumber: testCards.visaCredit, expiry: expiry(), cvc: '123', cardholderName: 'Ada' };
    const missing = await client.post(`/payment-page/${page.id}`, fields);
    assert.equal(missing.statusCode, 403);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assert.ok(missing.body.includes('This form has expired'));
    assert.ok(!missing.body.includes(testCards.visaCredit));
    assert.equal((await client.post(`/payment-page/${page.id}`, { ...fields, _csrf: `${token.slice(0, -2)}xx` })).statusCode, 403);
    const otherPage = await createPage(context, merchant);
    assert.equal((await client.post(`/payment-page/${otherPage.id}`, { ...fields, _csrf: token })).statusCode, 403, 'a token is bound to its page');
    const noCookie = await new FormClient(context).post(`/payment-page/${page.id}`, { ...fields, _csrf: token });
    assert.equal(noCookie.statusCode, 403);
    assert.equal((await read(page.id)).status, 'CREATED');
  });

  test('paying with 4242 (spaces allowed) redirects 303 to successReturnUrl; the page is PAID; revisiting shows the paid page', async () => {
    const page = await createPage(context, merchant, { successReturnUrl: 'https://shop.example.com/thanks?o=1' });
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const response = await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: '4242 4242 4242 4242', expiry: expiry(), cvc: '123', cardholderName: 'Ada Lovelace' });
    assert.equal(response.statusCode, 303, response.body);
    assert.equal(response.headers.location, 'https://shop.example.com/thanks?o=1');
    const paid = await read(page.id);
    assert.equal(paid.status, 'PAID');
    assert.equal(paid.payinDetails?.last4, '4242');
    assert.equal((await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id)).length, 1);
    const again = await client.get(`/payment-page/${page.id}`);
    assert.ok(again.body.includes('Payment complete'));
    assert.ok(again.body.includes('Visa ending in 4242'));
    assert.ok(!again.body.includes('name="cardNumber"'));
  });

  test('without a successReturnUrl the customer lands on the paid page', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const response = await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: testCards.mastercardCredit, expiry: expiry(), cvc: '123', cardholderName: 'Ada' });
    assert.equal(response.statusCode, 303);
    assert.equal(response.headers.location, `/payment-page/${page.id}`);
    assert.ok((await client.get(`/payment-page/${page.id}`)).body.includes('Mastercard ending in 4444'));
  });

  test('a decline shows its message, keeps the name and expiry, never re-renders the card number or CVC; the page stays open', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const declined = await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: testCards.declined, expiry: expiry(), cvc: '987', cardholderName: 'Ada Declined' });
    assert.equal(declined.statusCode, 402);
    assert.ok(declined.body.includes('Your card was declined. Please use a different card.'));
    assert.ok(declined.body.includes('role="alert"'));
    assert.ok(declined.body.includes('value="Ada Declined"'));
    assert.ok(!declined.body.includes(testCards.declined) && !declined.body.includes('987'), 'no card number or CVC in the page');
    const insufficient = await client.post(`/payment-page/${page.id}`, { _csrf: csrfToken(declined.body), cardNumber: testCards.insufficientFunds, expiry: expiry(), cvc: '123', cardholderName: 'Ada' });
    assert.ok(insufficient.body.includes('insufficient funds'));
    assert.equal((await read(page.id)).status, 'CREATED');
  });

  test('field errors: bad number, unreadable or past expiry, bad CVC, missing name, each beside its field', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const base = { _csrf: token, cardNumber: testCards.visaCredit, expiry: expiry(), cvc: '123', cardholderName: 'Ada' };
    const cases: Array<[Record<string, string>, string, string]> = [
      [{ cardNumber: '4242424242424241' }, 'cardNumber', 'This card number is not valid. Check it and try again.'],
      [{ cardNumber: '' }, 'cardNumber', 'Enter your card number.'],
      [{ expiry: '13/30' }, 'expiry', 'That is not a valid month: enter a month from 01 to 12.'],
      [{ expiry: '01/20' }, 'expiry', 'This card has expired. Check the date, or use another card.'],
      [{ expiry: 'soon' }, 'expiry', 'Enter the expiry date as MM / YY, for example 04 / 28.'],
      [{ cvc: '12' }, 'cvc', 'Enter the 3-digit security code (4 digits on the front for American Express).'],
      [{ cardholderName: '' }, 'cardholderName', 'Enter the name on the card.'],
      [{ cardholderName: 'Ada 4242424242424242' }, 'cardholderName', 'Enter the name as it appears on the card.'],
    ];
    for (const [override, field, message] of cases) {
      const response = await client.post(`/payment-page/${page.id}`, { ...base, ...override });
      assert.equal(response.statusCode, 400, JSON.stringify(override));
      assert.ok(response.body.includes(message), message);
      assert.match(response.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
      assert.ok(response.body.includes(`id="${field}-error"`));
      assert.ok(!response.body.includes('4242424242424241'));
    }
    assert.equal((await read(page.id)).status, 'CREATED');
  });

  test('every error at once: month 13, a short CVC and no name are all listed in the summary, in form order, and each beside its field', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    const response = await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: testCards.visaCredit, expiry: '13/30', cvc: '1', cardholderName: '' });
    assert.equal(response.statusCode, 400);
    const summary = /<div class="error-summary"[\s\S]*?<\/div>/.exec(response.body)?.[0] ?? '';
    const listed = [...summary.matchAll(/<a href="#(\w+)">([^<]+)<\/a>/g)].map((match) => [match[1], match[2]]);
    assert.deepEqual(listed, [
      ['expiry', 'That is not a valid month: enter a month from 01 to 12.'],
      ['cvc', 'Enter the 3-digit security code (4 digits on the front for American Express).'],
      ['cardholderName', 'Enter the name on the card.'],
    ]);
    for (const field of ['expiry', 'cvc', 'cardholderName']) {
      assert.match(response.body, new RegExp(`id="${field}"[^>]*aria-invalid="true"`));
      assert.ok(response.body.includes(`id="${field}-error"`), field);
    }
    assert.doesNotMatch(response.body, /id="cardNumber"[^>]*aria-invalid="true"/, 'the valid card number is not marked');
    assert.ok(!response.body.includes(testCards.visaCredit), 'the card number is never echoed');
    assert.equal((await read(page.id)).status, 'CREATED');
  });

  test('the expired page: after expire, and once expiresAt has passed; posting to it shows the expired page', async () => {
    const page = await createPage(context, merchant, { failureReturnUrl: 'https://shop.example.com/cart' });
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    await context.request({ method: 'POST', url: `/v1/payment_pages/${page.id}/expire`, apiKey: merchant.apiKey });
    const shown = await client.get(`/payment-page/${page.id}`);
    assert.equal(shown.statusCode, 200);
    assert.ok(shown.body.includes('This payment page has expired'));
    assert.ok(shown.body.includes('href="https://shop.example.com/cart"'));
    const posted = await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: testCards.visaCredit, expiry: expiry(), cvc: '123', cardholderName: 'Ada' });
    assert.equal(posted.statusCode, 303);
    assert.ok((await client.get(`/payment-page/${page.id}`)).body.includes('This payment page has expired'));

    const timed = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 10_000 });
    context.clock.advance(10_000);
    assert.ok((await client.get(`/payment-page/${timed.id}`)).body.includes('This payment page has expired'));
  });

  test('unknown page → 404 HTML page; a live page without a live processor says card payments are unavailable', async () => {
    const missing = await context.app.inject({ method: 'GET', url: '/payment-page/page_nope' });
    assert.equal(missing.statusCode, 404);
    assert.match(String(missing.headers['content-type']), /^text\/html/);
    assert.ok(missing.body.includes('Page not found'));
    const livePage = await createPage(context, live, {}, '?livemode=true');
    const shown = await context.app.inject({ method: 'GET', url: `/payment-page/${livePage.id}` });
    assert.equal(shown.statusCode, 200);
    assert.ok(shown.body.includes('Card payments are not available'));
    assert.ok(!shown.body.includes('name="cardNumber"'));
    assert.ok(!shown.body.includes('Sandbox: no money moves'));
  });

  test('no form body reaches the logs', async () => {
    const page = await createPage(context, merchant);
    const client = new FormClient(context);
    const token = csrfToken((await client.get(`/payment-page/${page.id}`)).body);
    await client.post(`/payment-page/${page.id}`, { _csrf: token, cardNumber: '4000 0566 5566 5556', expiry: expiry(), cvc: '482', cardholderName: 'Log Canary' });
    const logs = context.logs.join('\n');
    assert.ok(!logs.includes('4000056655665556') && !logs.includes('4000 0566 5566 5556'));
    assert.ok(!logs.includes('Log Canary'));
  });
});
