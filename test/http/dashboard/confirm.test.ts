import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { LightMyRequestResponse } from 'fastify';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createEndpoint } from '../../helpers/webhooks.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createPaymentPage, createPayoutPage, payPaymentPage, payoutAwaitingRelease } from './fixtures.ts';
import escapeStringRegexp from 'escape-string-regexp';

/**
 * Issue 16 item 8: every irreversible dashboard action (release, cancel payout, expire page, cancel
 * subscription, revoke key, rotate webhook secret or PII key, delete endpoint; the refund in
 * refunds.test.ts) says what will happen before it runs. A POST without `confirmed=1` changes nothing
 * and answers the confirmation page; that page's form (with `confirmed=1`) performs it, once.
 */
describe('dashboard: irreversible actions are confirmed first', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Acme Sails' });
    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  async function apiGet(url: string): Promise<Record<string, unknown>> {
    const response = await context.request({ method: 'GET', url, apiKey: merchant.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: Record<string, unknown> }>(response).data;
  }

  async function merchantRow() {
    return context.platform.services.merchants.getMerchant(merchant.id);
  }

  /** The hidden fields of the confirmation page's form for `action` (the form a browser would post). */
  function confirmationForm(page: string, action: string): Record<string, string> {
    const form = new RegExp(`<form method="post" action="${escapeStringRegexp(action)}" class="card compact confirm-page"[^>]*>([^]*?)</form>`).exec(page)?.[1];
    assert.ok(form, `the confirmation page posts to ${action}`);
    return Object.fromEntries([...form.matchAll(/<input type="hidden" name="(\w+)" value="([^"]*)"\/>/g)].map((match) => [String(match[1]), String(match[2])]));
  }

  /**
   * The screen offers the dialog (naming the same things), a POST without `confirmed` answers the
   * confirmation page naming `says` with nothing changed (`unchanged`), and its form performs the action.
   */
  async function confirmThenPost(options: { screen: string; action: string; says: RegExp; back: string; unchanged: () => Promise<void>; fields?: Record<string, string> }): Promise<LightMyRequestResponse> {
    const screen = await client.get(options.screen);
    assert.equal(screen.statusCode, 200);
    const dialog = new RegExp(`<form method="post" action="${escapeStringRegexp(options.action)}" class="inline" data-confirm="(confirm-[^"]+)">[^]*?<dialog id="\\1" class="confirm" aria-labelledby="\\1-title" aria-describedby="\\1-text" data-confirm-dialog="">([^]*?)</dialog>`).exec(screen.body);
    assert.ok(dialog?.[2], `the button of ${options.action} opens a labelled, described dialog`);
    assert.match(textOf(dialog[2]), options.says, 'the dialog says what will happen');
    assert.match(dialog[2], /<button type="submit"( class="danger")? name="confirmed" value="1">/, "the dialog's Confirm submits the form with confirmed=1");

    const asked = await client.post(options.action, options.fields ?? {});
    assert.equal(asked.statusCode, 200, `${options.action} without confirmed=1 answers the confirmation page`);
    assert.match(textOf(asked.body), options.says);
    assert.match(asked.body, new RegExp(`<a class="button secondary" href="${escapeStringRegexp(options.back)}">`), 'Cancel goes back');
    await options.unchanged();
    const fields = confirmationForm(asked.body, options.action);
    assert.equal(fields['confirmed'], '1');
    assert.ok(fields['_csrf'], 'with a fresh token');
    const { _csrf: token, ...rest } = fields;
    return client.post(options.action, rest, { csrf: token ?? null });
  }

  test('release a payout: the amount, the payee and the bank account; once', async () => {
    const page = await payoutAwaitingRelease(context, merchant);
    const base = `/dashboard/sandbox/payout-pages/${page.id}`;
    const awaiting = async () => assert.equal((await apiGet(`/v1/payout_pages/${page.id}`))['sub-status'], 'AWAITING_RELEASE', 'not released');
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/release`,
      back: base,
      says: /Release this payout\? 123\.45 USDC will be paid to payee@example\.com \(customer \S+\) by bank transfer to account …6789\. Once released, the payout cannot be stopped or undone\. .*Release 123\.45 USDC/,
      unchanged: awaiting,
    });
    assert.equal(done.headers.location, `${base}?notice=released`);
    assert.equal((await apiGet(`/v1/payout_pages/${page.id}`)).status, 'PROCESSING');
    // The same confirmed form again (a resubmission) is refused: released once.
    await client.get(base);
    assert.equal((await client.post(`${base}/release`, { confirmed: '1' })).headers.location, `${base}?error=INVALID_STATE`);
  });

  test('cancel a payout page: the amount and the payee; "Keep payout page" goes back', async () => {
    const page = await createPayoutPage(context, merchant);
    const base = `/dashboard/sandbox/payout-pages/${page.id}`;
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/cancel`,
      back: base,
      says: /Cancel this payout page\? The payout of 123\.45 USDC to payee@example\.com \(customer \S+\) will not be made.*Keep payout page Cancel payout page/,
      unchanged: async () => assert.equal((await apiGet(`/v1/payout_pages/${page.id}`)).status, 'CREATED'),
    });
    assert.equal(done.headers.location, `${base}?notice=canceled`);
    assert.equal((await apiGet(`/v1/payout_pages/${page.id}`))['sub-status'], 'MERCHANT_CANCELED');
  });

  test('expire a payment page: the customer and the amount', async () => {
    const page = await createPaymentPage(context, merchant);
    const base = `/dashboard/sandbox/payment-pages/${page.id}`;
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/expire`,
      back: base,
      says: new RegExp(`Expire this payment page\\? buyer@example\\.com \\(customer buyer-\\S+\\) can no longer pay 25\\.00 USD on payment page ${page.clientReferenceId}`),
      unchanged: async () => assert.equal((await apiGet(`/v1/payment_pages/${page.id}`)).status, 'CREATED'),
    });
    assert.equal(done.headers.location, `${base}?notice=expired`);
    assert.equal((await apiGet(`/v1/payment_pages/${page.id}`)).status, 'EXPIRED');
  });

  test('cancel a subscription: the customer, the price and the last day', async () => {
    const page = await createPaymentPage(context, merchant, { subscription: { productId: 'pro-plan', interval: 'MONTH', intervalCount: 1 } });
    const paid = await payPaymentPage(context, merchant, page.id);
    await context.drainJobs();
    assert.ok(paid.subscriptionId);
    const subscription = await apiGet(`/v1/subscriptions/${paid.subscriptionId}?livemode=false`);
    const lastDay = new Date(Number(subscription.currentPeriodEnd)).toISOString().slice(0, 10);
    const base = `/dashboard/sandbox/subscriptions/${paid.subscriptionId}`;
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/cancel`,
      back: base,
      says: new RegExp(`Cancel this subscription\\? Customer buyer-\\S+ will not be charged 25\\.00 USD every month any more: pro-plan ends on ${lastDay} \\(UTC\\).*Keep subscription Cancel subscription`),
      unchanged: async () => assert.equal((await apiGet(`/v1/subscriptions/${paid.subscriptionId}?livemode=false`)).cancelAtPeriodEnd, false),
    });
    assert.equal(done.headers.location, `${base}?notice=subscription-canceled`);
    assert.equal((await apiGet(`/v1/subscriptions/${paid.subscriptionId}?livemode=false`)).cancelAtPeriodEnd, true);
  });

  test('revoke an API key: its name and last four characters', async () => {
    const created = await context.platform.services.merchants.createApiKey(merchant.id, 'Billing server');
    const keyId = created.id;
    const base = '/dashboard/sandbox/developers/api-keys';
    const works = async () => assert.equal((await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: created.apiKey })).statusCode, 200, 'the key still works');
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/${keyId}/revoke`,
      back: base,
      says: new RegExp(`Revoke the API key “Billing server”\\? Every request made with sk_…${escapeStringRegexp(created.apiKey.slice(-4))} \\(“Billing server”\\) will answer 401 from now on`),
      unchanged: works,
    });
    assert.equal(done.headers.location, `${base}?notice=api-key-revoked`);
    assert.equal((await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: created.apiKey })).statusCode, 401);
    // An unknown key id: 404, no confirmation page.
    assert.equal((await client.post(`${base}/key_${'0'.repeat(36)}/revoke`)).statusCode, 404);
  });

  test('rotate the PII key', async () => {
    const base = '/dashboard/sandbox/developers/pii-key';
    const before = await context.platform.services.merchants.revealPiiKeys(merchant.id);
    const done = await confirmThenPost({
      screen: base,
      action: `${base}/rotate`,
      back: base,
      says: /Rotate the PII key\? A new key will encrypt your customers' personal data in every API answer from now on/,
      unchanged: async () => assert.equal((await context.platform.services.merchants.revealPiiKeys(merchant.id)).length, before.length, 'no new key'),
    });
    assert.equal(done.headers.location, `${base}?notice=pii-key-rotated`);
    assert.equal((await context.platform.services.merchants.revealPiiKeys(merchant.id)).length, before.length + 1);
  });

  test('rotate a webhook secret and delete the endpoint: its URL', async () => {
    const endpoint = await createEndpoint(context, merchant, { url: 'https://hooks.example.com/paysail' });
    const base = `/dashboard/sandbox/developers/webhooks/${endpoint.id}`;
    const read = async () => context.platform.services.webhooks.getEndpoint(await merchantRow(), false, endpoint.id);
    const rotated = await confirmThenPost({
      screen: base,
      action: `${base}/rotate`,
      back: base,
      says: /Rotate the signing secret\? Events sent to https:\/\/hooks\.example\.com\/paysail will be signed with a new secret, shown once after the rotation\. The current secret keeps signing for 24 hours too/,
      unchanged: async () => assert.equal((await read()).previousSecretExpiresAt, undefined, 'not rotated'),
    });
    assert.equal(rotated.headers.location, `${base}?notice=secret-rotated`);
    assert.notEqual((await read()).previousSecretExpiresAt, undefined, 'rotated');

    const deleted = await confirmThenPost({
      screen: base,
      action: `${base}/delete`,
      back: base,
      says: /Delete this webhook endpoint\? https:\/\/hooks\.example\.com\/paysail will receive no more events/,
      unchanged: async () => assert.equal((await read()).status, 'ENABLED'),
    });
    assert.equal(deleted.headers.location, '/dashboard/sandbox/developers/webhooks?notice=endpoint-deleted');
    await assert.rejects(read(), /not found|No webhook endpoint/i);
  });

  test('the CSRF check comes first, and only confirmed=1 confirms', async () => {
    const page = await createPaymentPage(context, merchant);
    const base = `/dashboard/sandbox/payment-pages/${page.id}`;
    await client.get(base);
    const forged = await client.post(`${base}/expire`, { confirmed: '1' }, { csrf: null });
    assert.equal(forged.statusCode, 403);
    const unconfirmed = await client.post(`${base}/expire`, {}, { csrf: null });
    assert.equal(unconfirmed.statusCode, 403, 'no confirmation page without a valid token either');
    assert.doesNotMatch(textOf(unconfirmed.body), /Expire this payment page\?/);
    await client.get(base);
    for (const value of ['yes', 'true', '']) {
      const answer = await client.post(`${base}/expire`, { confirmed: value });
      assert.equal(answer.statusCode, 200, value);
      assert.match(textOf(answer.body), /Expire this payment page\?/);
    }
    assert.equal((await apiGet(`/v1/payment_pages/${page.id}`)).status, 'CREATED');
  });
});
