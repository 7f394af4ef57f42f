import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { dayAfter, dayMs, openExportSuite, readCsv } from '../../helpers/dashboard.ts';
import { createRefund } from '../../helpers/refunds.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createCustomer, createPaymentPage, createPayoutPage, identity, payPaymentPage, settleJobs } from './fixtures.ts';
import { addMember, latestInvitePath, memberEmail, postInvite } from './team-helpers.ts';

/**
 * The lists inside screens take the same creation period and CSV as the list screens (issue 16 item
 * 10, decision 0046): a customer's payouts, payments, subscriptions, refunds and identity checks; a
 * subscription's invoices and entitlements; an event's deliveries; the Team screen's members and
 * invitations. The period narrows the screen and the file alike, the file holds what the screen shows
 * (compared with the API where it answers the same rows), another merchant's id is 404, a role the
 * matrix refuses sees no link and gets 403, and a bad period is the screen's 400 naming the field.
 */
describe('dashboard: period and CSV of the lists inside a customer, a subscription, an event and the Team screen', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let owner: DashboardClient;
  let firstDay = '';
  let customerId = '';
  let otherCustomerId = '';
  let subscriptionId = '';
  let otherSubscriptionId = '';
  let testEventId = '';
  let otherTestEventId = '';
  let endpointId = '';
  const payouts: string[] = [];
  const payments: string[] = [];
  const refunds: string[] = [];
  const invitedOnDay: string[] = [];

  const day = (offset: number) => dayAfter(firstDay, offset);
  const dayThreeStart = () => Date.parse(`${day(3)}T00:00:00.000Z`);

  async function api<T>(of: TestMerchant, method: string, url: string, body?: unknown): Promise<T> {
    const response = await context.request({ method, url, apiKey: of.apiKey, ...(body === undefined ? {} : { body }) });
    assert.equal(response.statusCode, 200, `${url}: ${response.body}`);
    return json<{ data: T }>(response).data;
  }

  /** A paid page of the customer (optionally starting a subscription), refunded in part. */
  async function paidAndRefunded(of: TestMerchant, referenceId: string, clientReferenceId: string, subscription?: Record<string, unknown>) {
    const page = await createPaymentPage(context, of, { customer: { referenceId, email: 'story@example.com' }, clientReferenceId, ...(subscription ? { subscription } : {}) });
    const paid = await payPaymentPage(context, of, page.id);
    assert.equal(paid.status, 'PAID');
    const refund = subscription ? undefined : await createRefund(context, of, { paymentPageId: page.id, amount: 500 });
    return { page, paid, refund };
  }

  async function endpointWithTestEvent(of: TestMerchant): Promise<{ endpointId: string; eventId: string }> {
    const endpoint = await api<{ id: string }>(of, 'POST', '/v1/webhook_endpoints?livemode=false', { url: 'https://hooks.example.com/detail', description: 'detail lists' });
    const sent = await api<{ event: { id: string } }>(of, 'POST', `/v1/webhook_endpoints/${endpoint.id}/test?livemode=false`, { eventType: 'PAYMENT_SUCCEEDED' });
    return { endpointId: endpoint.id, eventId: sent.event.id };
  }

  before(async () => {
    ({ context, merchant, other, firstDay } = await openExportSuite({ merchant: 'Detail Sails', other: 'Other Detail Sails', live: true }));
    owner = await signedInClient(context, merchant);

    // Day 0: the customer (identity complete: a verification), a payout, a paid subscription, a refunded payment; an endpoint's test event; an invitation.
    const customer = await createCustomer(context, merchant, { ...identity, email: 'story@example.com' });
    customerId = customer.id;
    await settleJobs(context);
    payouts.push((await createPayoutPage(context, merchant, { customer: { referenceId: customer.referenceId, email: 'story@example.com' }, clientReferenceId: '=cmd|day0' })).id);
    const subscribed = await paidAndRefunded(merchant, customer.referenceId, 'plan-day-0', { productId: 'detail-plan', interval: 'MONTH' });
    subscriptionId = String(subscribed.paid.subscriptionId);
    payments.push(subscribed.page.id);
    const dayZero = await paidAndRefunded(merchant, customer.referenceId, 'order-day-0');
    payments.push(dayZero.page.id);
    refunds.push(String(dayZero.refund?.id));
    ({ endpointId, eventId: testEventId } = await endpointWithTestEvent(merchant));
    const invitedFirst = memberEmail('day0');
    assert.equal((await postInvite(owner, invitedFirst, 'support')).statusCode, 303);
    invitedOnDay.push(invitedFirst);

    // Day 3: another payout, payment and refund; the subscription renewed; the test event redelivered; a member joins, another is invited.
    context.clock.advance(3 * dayMs);
    owner = await signedInClient(context, merchant);
    payouts.push((await createPayoutPage(context, merchant, { customer: { referenceId: customer.referenceId, email: 'story@example.com' }, clientReferenceId: 'payout-day-3' })).id);
    const dayThree = await paidAndRefunded(merchant, customer.referenceId, 'order-day-3');
    payments.push(dayThree.page.id);
    refunds.push(String(dayThree.refund?.id));
    await owner.get(`/dashboard/sandbox/subscriptions/${subscriptionId}`);
    assert.equal((await owner.post(`/dashboard/sandbox/subscriptions/${subscriptionId}/renew`)).statusCode, 303);
    await owner.get(`/dashboard/sandbox/developers/events/${testEventId}`);
    assert.equal((await owner.post(`/dashboard/sandbox/developers/events/${testEventId}/redeliver`, { endpointId })).statusCode, 303);
    const invitedLater = memberEmail('day3');
    assert.equal((await postInvite(owner, invitedLater, 'developer')).statusCode, 303);
    invitedOnDay.push(invitedLater);

    // The other merchant's customer, subscription and event, on the same days.
    const otherCustomer = await createCustomer(context, other, { email: 'other.story@example.com' });
    otherCustomerId = otherCustomer.id;
    otherSubscriptionId = String((await paidAndRefunded(other, otherCustomer.referenceId, 'other-plan', { productId: 'other-plan', interval: 'MONTH' })).paid.subscriptionId);
    otherTestEventId = (await endpointWithTestEvent(other)).eventId;
  });
  after(async () => context.close());

  test('detailExports.happy: a customer — one period narrows every list of the screen and each CSV, which holds what the API answers of that customer', async () => {
    const base = `/dashboard/sandbox/customers/${customerId}`;
    const screen = await owner.get(`${base}?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.match(screen.body, new RegExp(`<input type="date" id="from" name="from" value="${day(3)}"`));
    const text = textOf(screen.body);
    assert.match(text, /Payouts \(1\) Export CSV Client reference Amount Status Created payout-day-3 /);
    assert.match(text, /Payments \(1\) Export CSV Client reference Amount Status Created order-day-3 /);
    assert.match(text, /Subscriptions \(0\) None in this period\./);
    assert.match(text, /Identity verifications \(0\) No verification in this period\./);
    assert.ok(screen.body.includes(refunds[1] ?? '-') && !screen.body.includes(refunds[0] ?? '-'), 'only the refund of day 3');
    for (const list of ['payout-pages', 'payment-pages', 'refunds']) {
      assert.match(screen.body, new RegExp(`href="${base}/${list}/export\\.csv\\?from=${day(3)}" download=""`), list);
    }
    for (const list of ['subscriptions', 'verifications']) {
      assert.ok(!screen.body.includes(`${base}/${list}/export.csv`), `${list}: nothing in the period, no file to offer`);
    }

    // The API's own account of the customer (the right-of-access document) against each CSV.
    const document = await api<{
      payoutPages: Array<{ id: string; clientReferenceId: string; amount: number; status: string; createdAt: number }>;
      paymentPages: Array<{ id: string; clientReferenceId: string; amount: number; status: string; createdAt: number }>;
      subscriptions: Array<{ id: string; productId: string; amount: number; status: string }>;
      kycVerifications: Array<{ id: string; status: string; createdAt: number }>;
    }>(merchant, 'GET', `/v1/customers/${customerId}/export?livemode=false`);
    const payoutCsv = await readCsv(owner, `${base}/payout-pages/export.csv`);
    assert.deepEqual(payoutCsv.header, ['id', 'clientReferenceId', 'amount', 'currency', 'status', 'subStatus', 'createdAt']);
    assert.deepEqual(new Set(payoutCsv.rows.map((row) => row.id)), new Set(document.payoutPages.map((page) => page.id)));
    assert.deepEqual(payoutCsv.rows.map((row) => row.id), [...payouts].reverse(), 'newest first');
    for (const page of document.payoutPages) {
      const row = payoutCsv.rows.find((found) => found.id === page.id);
      assert.equal(Number(row?.amount), page.amount);
      assert.equal(Date.parse(String(row?.createdAt)), page.createdAt);
    }
    assert.equal(payoutCsv.rows[1]?.clientReferenceId, "'=cmd|day0", 'a cell that starts like a formula is escaped');
    const paymentCsv = await readCsv(owner, `${base}/payment-pages/export.csv`);
    assert.deepEqual(new Set(paymentCsv.rows.map((row) => row.id)), new Set(document.paymentPages.map((page) => page.id)));
    assert.deepEqual(new Set(paymentCsv.rows.map((row) => `${row.id} ${row.status} ${row.amount}`)), new Set(document.paymentPages.map((page) => `${page.id} ${page.status} ${page.amount}`)));
    const subscriptionCsv = await readCsv(owner, `${base}/subscriptions/export.csv`);
    assert.deepEqual(subscriptionCsv.rows.map((row) => [row.id, row.productId, row.status, Number(row.amount)]), document.subscriptions.map((sub) => [sub.id, sub.productId, sub.status, sub.amount]));
    const verificationCsv = await readCsv(owner, `${base}/verifications/export.csv`);
    assert.deepEqual(verificationCsv.header, ['id', 'provider', 'status', 'reason', 'createdAt', 'decidedAt']);
    assert.ok(document.kycVerifications.length > 0, 'the customer was verified');
    assert.deepEqual(new Set(verificationCsv.rows.map((row) => `${row.id} ${row.status}`)), new Set(document.kycVerifications.map((check) => `${check.id} ${check.status}`)));
    const refundCsv = await readCsv(owner, `${base}/refunds/export.csv`);
    assert.deepEqual(refundCsv.rows.map((row) => row.id), [...refunds].reverse());
    assert.ok(refundCsv.rows.every((row) => row.amount === '500' && payments.includes(String(row.paymentPageId))));
    for (const file of [payoutCsv, paymentCsv, subscriptionCsv, verificationCsv, refundCsv]) {
      assert.ok(!file.body.includes('story@example.com') && !file.body.includes(identity.lastName), 'no name or e-mail: the lists do not show them');
    }

    // The period narrows each file as it narrows the screen.
    assert.deepEqual((await readCsv(owner, `${base}/payout-pages/export.csv?from=${day(3)}`)).rows.map((row) => row.id), [payouts[1]]);
    assert.deepEqual((await readCsv(owner, `${base}/refunds/export.csv?to=${day(2)}`)).rows.map((row) => row.id), [refunds[0]]);
    assert.deepEqual((await readCsv(owner, `${base}/verifications/export.csv?from=${day(3)}`)).rows, []);
    assert.equal((await readCsv(owner, `${base}/payment-pages/export.csv?to=${day(2)}`)).rows.length, 2);
  });

  test("detailExports.happy: a subscription — the period narrows its invoices and entitlements on the screen and in their CSVs, as the API's entitlements", async () => {
    const base = `/dashboard/sandbox/subscriptions/${subscriptionId}`;
    const invoices = await readCsv(owner, `${base}/invoices/export.csv`);
    assert.deepEqual(invoices.header, ['id', 'periodNumber', 'amount', 'currency', 'periodStart', 'periodEnd', 'paidAt', 'paymentId', 'createdAt']);
    assert.deepEqual(invoices.rows.map((row) => [row.periodNumber, row.amount, row.currency]), [
      ['2', '2500', 'USD'],
      ['1', '2500', 'USD'],
    ]);
    const screen = await owner.get(`${base}?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    const text = textOf(screen.body);
    assert.match(text, /#2 25\.00 USD/);
    assert.doesNotMatch(text, /#1 25\.00 USD/, 'the invoice of day 0 is outside the period');
    assert.match(screen.body, new RegExp(`href="${base}/invoices/export\\.csv\\?from=${day(3)}" download=""`));
    assert.match(screen.body, new RegExp(`href="${base}/entitlements/export\\.csv\\?from=${day(3)}" download=""`));
    assert.deepEqual((await readCsv(owner, `${base}/invoices/export.csv?from=${day(3)}`)).rows.map((row) => row.periodNumber), ['2']);
    assert.match(textOf((await owner.get(`${base}?to=${day(-1)}`)).body), /No invoice in this period\. .*No entitlement in this period\./);

    // GET /v1/entitlements answers without the envelope.
    const answer = await context.request({ method: 'GET', url: `/v1/entitlements?livemode=false&subscriptionId=${subscriptionId}`, apiKey: merchant.apiKey });
    assert.equal(answer.statusCode, 200, answer.body);
    const fromApi = json<{ entitlements: Array<{ id: string; createdAt: number }> }>(answer);
    const entitlements = await readCsv(owner, `${base}/entitlements/export.csv`);
    assert.deepEqual(entitlements.header, ['id', 'productId', 'subscriptionId', 'customerId', 'customerReferenceId', 'startPeriod', 'endPeriod', 'active', 'createdAt']);
    assert.equal(entitlements.rows.length, 2);
    assert.deepEqual(new Set(entitlements.rows.map((row) => row.id)), new Set(fromApi.entitlements.map((entitlement) => entitlement.id)));
    const dayThree = await readCsv(owner, `${base}/entitlements/export.csv?from=${day(3)}`);
    assert.deepEqual(dayThree.rows.map((row) => row.id), fromApi.entitlements.filter((entitlement) => entitlement.createdAt >= dayThreeStart()).map((entitlement) => entitlement.id));
    assert.equal(dayThree.rows.length, 1);
    assert.ok(screen.body.includes(dayThree.rows[0]?.id ?? '-') && !screen.body.includes(entitlements.rows[1]?.id ?? '-'), 'the screen lists the entitlement of day 3 only');
  });

  test("detailExports.happy: an event's deliveries — the CSV holds what the event's page lists (endpoint address, no answer body); no period: one delivery an endpoint", async () => {
    const base = `/dashboard/sandbox/developers/events/${testEventId}`;
    const all = await readCsv(owner, `${base}/export.csv`);
    assert.deepEqual(all.header, ['id', 'endpointId', 'endpointUrl', 'status', 'attemptCount', 'lastAttemptAt', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'completedAt', 'createdAt']);
    // The redelivery of day 3 reused the event's one delivery to the endpoint (one row an endpoint, created with the event).
    assert.deepEqual(all.rows.map((row) => [row.endpointId, row.endpointUrl, row.status]), [[endpointId, 'https://hooks.example.com/detail', 'PENDING']]);
    assert.ok(Date.parse(String(all.rows[0]?.createdAt)) < dayThreeStart());
    const screen = await owner.get(base);
    const listed = [...screen.body.matchAll(/<div class="card" id="(whd_[0-9a-z]+)"/g)].map((match) => match[1]);
    assert.deepEqual(listed, all.rows.map((row) => row.id), 'the screen and the file list the same deliveries');
    assert.match(screen.body, new RegExp(`href="${base}/export\\.csv" download="" aria-label="Export CSV of the deliveries"`));
    assert.ok(!/id="from"/.test(screen.body), 'no period filter on an event');
  });

  test('detailExports.happy: Team — the period narrows members and invitations on the screen and in their CSVs; no invitation link in a file', async () => {
    const screen = await owner.get(`/dashboard/sandbox/team?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.ok(screen.body.includes(invitedOnDay[1] ?? '-') && !screen.body.includes(invitedOnDay[0] ?? '-'), 'only the invitation of day 3');
    assert.match(textOf(screen.body), /Members Nobody joined in this period\./, 'the owner joined on day 0: no member, no file to offer');
    assert.ok(!screen.body.includes('/dashboard/sandbox/team/members/export.csv'));
    assert.match((await owner.get(`/dashboard/sandbox/team?to=${day(3)}`)).body, new RegExp(`href="/dashboard/sandbox/team/members/export\\.csv\\?to=${day(3)}" download=""`));
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/team/invites/export\\.csv\\?from=${day(3)}" download=""`));

    const members = await readCsv(owner, '/dashboard/sandbox/team/members/export.csv');
    assert.deepEqual(members.header, ['id', 'email', 'role', 'lastSignInAt', 'createdAt']);
    assert.deepEqual(members.rows.map((row) => [row.email, row.role]), [[merchant.dashboardUser.email, 'owner']], "the merchant's team only");
    assert.ok(members.rows[0]?.lastSignInAt !== '', 'the owner signed in');
    const invites = await readCsv(owner, '/dashboard/sandbox/team/invites/export.csv');
    assert.deepEqual(invites.header, ['id', 'email', 'role', 'status', 'expiresAt', 'createdAt']);
    assert.deepEqual(invites.rows.map((row) => [row.email, row.role, row.status]), [
      [invitedOnDay[1], 'developer', 'pending'],
      [invitedOnDay[0], 'support', 'pending'],
    ]);
    const token = (await latestInvitePath(context, merchant.id, String(invitedOnDay[1]))).split('/').at(-1) ?? '';
    assert.ok(token.length === 43 && !invites.body.includes(token), 'never the link');
    assert.deepEqual((await readCsv(owner, `/dashboard/sandbox/team/invites/export.csv?from=${day(3)}`)).rows.map((row) => row.email), [invitedOnDay[1]]);
    assert.deepEqual((await readCsv(owner, `/dashboard/sandbox/team/members/export.csv?from=${day(3)}`)).rows, []);
  });

  test("detailExports.scoping: another merchant's customer, subscription or event is 404, on the screen with a period and on every CSV", async () => {
    const urls = [
      ...['payout-pages', 'payment-pages', 'subscriptions', 'refunds', 'verifications'].map((list) => `/dashboard/sandbox/customers/${otherCustomerId}/${list}/export.csv`),
      `/dashboard/sandbox/customers/${otherCustomerId}?from=${day(0)}`,
      `/dashboard/sandbox/subscriptions/${otherSubscriptionId}/invoices/export.csv`,
      `/dashboard/sandbox/subscriptions/${otherSubscriptionId}/entitlements/export.csv`,
      `/dashboard/sandbox/subscriptions/${otherSubscriptionId}?from=${day(0)}`,
      `/dashboard/sandbox/developers/events/${otherTestEventId}/export.csv`,
      // The same merchant's ids in the other mode.
      `/dashboard/live/customers/${customerId}/payout-pages/export.csv`,
      `/dashboard/live/subscriptions/${subscriptionId}/invoices/export.csv`,
    ];
    for (const url of urls) {
      const response = await owner.get(url);
      assert.equal(response.statusCode, 404, url);
      assert.ok(!response.body.includes('other.story@example.com') && !response.body.includes('other-plan'), url);
    }
    // The other merchant's owner does not see this merchant's team in the file.
    const foreign = await signedInClient(context, other);
    const theirs = await readCsv(foreign, '/dashboard/sandbox/team/invites/export.csv');
    assert.deepEqual(theirs.rows, []);
  });

  test('detailExports.access: a viewer gets the lists without personal data but neither the identity checks nor the Team files; a developer no Team file; an admin both', async () => {
    const viewer = await addMember(context, owner, merchant.id, 'viewer');
    const developer = await addMember(context, owner, merchant.id, 'developer');
    const admin = await addMember(context, owner, merchant.id, 'admin');
    const customerScreen = await viewer.client.get(`/dashboard/sandbox/customers/${customerId}`);
    assert.equal(customerScreen.statusCode, 200);
    assert.ok(!customerScreen.body.includes(`/customers/${customerId}/verifications/export.csv`), 'no link to a file the viewer may not download');
    assert.ok(customerScreen.body.includes(`/customers/${customerId}/payout-pages/export.csv`));
    assert.equal((await viewer.client.get(`/dashboard/sandbox/customers/${customerId}/verifications/export.csv`)).statusCode, 403);
    for (const url of [
      `/dashboard/sandbox/customers/${customerId}/payout-pages/export.csv`,
      `/dashboard/sandbox/subscriptions/${subscriptionId}/invoices/export.csv`,
      `/dashboard/sandbox/subscriptions/${subscriptionId}/entitlements/export.csv`,
      `/dashboard/sandbox/developers/events/${testEventId}/export.csv`,
    ]) {
      assert.equal((await viewer.client.get(url)).statusCode, 200, url);
    }
    for (const client of [viewer.client, developer.client]) {
      for (const url of ['/dashboard/sandbox/team/members/export.csv', '/dashboard/sandbox/team/invites/export.csv']) {
        const refused = await client.get(url);
        assert.equal(refused.statusCode, 403, url);
        assert.ok(!refused.body.includes(merchant.dashboardUser.email), url);
      }
    }
    const team = await admin.client.get('/dashboard/sandbox/team');
    assert.ok(team.body.includes('/dashboard/sandbox/team/members/export.csv') && team.body.includes('/dashboard/sandbox/team/invites/export.csv'));
    const members = await readCsv(admin.client, '/dashboard/sandbox/team/members/export.csv');
    assert.deepEqual(new Set(members.rows.map((row) => row.email)), new Set([merchant.dashboardUser.email, viewer.email, developer.email, admin.email]));
    assert.equal((await readCsv(admin.client, `/dashboard/sandbox/customers/${customerId}/verifications/export.csv`)).rows.length > 0, true);
  });

  test('detailExports.errors: a bad day or a period that ends before it starts is 400 naming the field, on each screen and CSV', async () => {
    const paths = [
      `customers/${customerId}`,
      `customers/${customerId}/refunds/export.csv`,
      `customers/${customerId}/verifications/export.csv`,
      `subscriptions/${subscriptionId}`,
      `subscriptions/${subscriptionId}/invoices/export.csv`,
      `subscriptions/${subscriptionId}/entitlements/export.csv`,
      'team',
      'team/members/export.csv',
      'team/invites/export.csv',
    ];
    for (const path of paths) {
      for (const [query, message] of [
        ['from=2026-02-30', /from must be a day written YYYY-MM-DD/],
        ['to=soon', /to must be a day written YYYY-MM-DD/],
        [`from=${day(3)}&to=${day(1)}`, /to must not be before from/],
      ] as const) {
        const url = `/dashboard/sandbox/${path}?${query}`;
        const response = await owner.get(url);
        assert.equal(response.statusCode, 400, url);
        assert.match(textOf(response.body), message, url);
      }
    }
  });
});
