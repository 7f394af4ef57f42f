import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { csvCell, dayAfter, dayMs, openExportSuite, readCsv } from '../../helpers/dashboard.ts';
import { signedInClient, textOf, type DashboardClient } from './client.ts';
import { createPaymentPage, createPayoutPage, payPaymentPage } from './fixtures.ts';
import { addMember } from './team-helpers.ts';
import { inviteEmailTemplate } from '../../../src/modules/dashboard/team.ts';

/**
 * The lists of the developer screens, entitlements and the inbox take the same creation period
 * (`from`, `to`) as the other lists and export what it selects as CSV (issue 16 item 10): the
 * period narrows the screen and the file alike, the file holds the list's columns and nothing the
 * screen hides (no API key, no signing secret, no e-mail body or code), another merchant's rows never
 * appear, and the inbox CSV (recipients' addresses) is refused to the roles that export no personal data.
 */
describe('dashboard lists: period and CSV on events, entitlements, API keys, webhook endpoints and the inbox', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let owner: DashboardClient;
  let firstDay = '';
  const secrets: string[] = [];
  const endpointIds: string[] = [];
  const entitlementCustomers: string[] = [];
  let otherPayoutPageId = '';
  let otherEndpointId = '';
  const deliveryIds: string[] = [];

  /** A test event to the endpoint: one delivery, queued (no job runs in these tests). */
  async function testDelivery(of: TestMerchant, endpointId: string): Promise<string> {
    const response = await context.request({ method: 'POST', url: `/v1/webhook_endpoints/${endpointId}/test?livemode=false`, apiKey: of.apiKey, body: { eventType: 'PAYMENT_SUCCEEDED' } });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: { delivery: { id: string } } }>(response).data.delivery.id;
  }

  const day = (offset: number) => dayAfter(firstDay, offset);

  async function addEndpoint(of: TestMerchant, description: string): Promise<string> {
    const response = await context.request({ method: 'POST', url: '/v1/webhook_endpoints?livemode=false', apiKey: of.apiKey, body: { url: `https://hooks.example.com/${description.length}`, description } });
    assert.equal(response.statusCode, 200, response.body);
    const created = json<{ data: { id: string; secret: string } }>(response).data;
    secrets.push(created.secret);
    return created.id;
  }

  async function paidSubscription(of: TestMerchant): Promise<string> {
    const page = await createPaymentPage(context, of, { amount: 1_500, subscription: { productId: 'lists-plan', interval: 'MONTH' } });
    const paid = await payPaymentPage(context, of, page.id);
    assert.equal(paid.status, 'PAID');
    const customers = await context.request({ method: 'GET', url: `/v1/subscriptions/${paid.subscriptionId}?livemode=false`, apiKey: of.apiKey });
    return json<{ data: { customerId: string } }>(customers).data.customerId;
  }


  before(async () => {
    ({ context, merchant, other, firstDay } = await openExportSuite({ merchant: 'Lists Sails', other: 'Other Lists Sails' }));
    secrets.push(merchant.apiKey, other.apiKey);
    // Day 0: an endpoint, a paid subscription (its payment and entitlement events), a payout page (its e-mail).
    endpointIds.push(await addEndpoint(merchant, '=HYPERLINK("http://evil.example")'));
    deliveryIds.push(await testDelivery(merchant, endpointIds[0] ?? ''));
    entitlementCustomers.push(await paidSubscription(merchant));
    await createPayoutPage(context, merchant, { customer: { referenceId: 'lists-day-0', email: 'day0.lists@example.com' } });
    // Day 3: the same again, and the other merchant's rows on the same day.
    context.clock.advance(3 * dayMs);
    endpointIds.push(await addEndpoint(merchant, 'day three'));
    entitlementCustomers.push(await paidSubscription(merchant));
    await createPayoutPage(context, merchant, { customer: { referenceId: 'lists-day-3', email: 'day3.lists@example.com' } });
    otherEndpointId = await addEndpoint(other, 'other merchant');
    await testDelivery(other, otherEndpointId);
    // 26 deliveries to the first endpoint on day 3: more than a page.
    for (let index = 0; index < 26; index += 1) {
      context.clock.advance(1);
      deliveryIds.push(await testDelivery(merchant, endpointIds[0] ?? ''));
    }
    await paidSubscription(other);
    otherPayoutPageId = (await createPayoutPage(context, other, { customer: { referenceId: 'lists-other', email: 'other.lists@example.com' } })).id;
    owner = await signedInClient(context, merchant);
    // A key created on day 3 from the dashboard (its secret is shown once, then only its last four characters).
    await owner.get('/dashboard/sandbox/developers/api-keys');
    assert.equal((await owner.post('/dashboard/sandbox/developers/api-keys', { name: '=1+1 day three' })).statusCode, 303);
    const shown = /<code class="secret" id="new-api-key">([^<]+)<\/code>/.exec((await owner.get('/dashboard/sandbox/developers/api-keys')).body);
    assert.ok(shown?.[1], 'the new key is shown once');
    secrets.push(shown[1]);
  });
  after(async () => context.close());

  test('listExports.happy: API keys — the period narrows the list and the CSV, which holds names and last four characters, never a key', async () => {
    const screen = await owner.get(`/dashboard/sandbox/developers/api-keys?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.match(screen.body, new RegExp(`<input type="date" id="from" name="from" value="${day(3)}"`));
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/developers/api-keys/export\\.csv\\?from=${day(3)}" download=""`));
    assert.equal((screen.body.match(/<code>sk_…/g) ?? []).length, 1, 'only the key of day 3 is listed');

    const all = await readCsv(owner, '/dashboard/sandbox/developers/api-keys/export.csv');
    assert.deepEqual(all.header, ['id', 'name', 'last4', 'createdAt', 'lastUsedAt', 'revokedAt']);
    assert.equal(all.rows.length, 2, 'the merchant\'s first key and the one of day 3; none of the other merchant');
    assert.equal(all.rows[0]?.name, "'=1+1 day three", 'a cell that starts like a formula is escaped');
    assert.equal(all.rows[0]?.last4, csvCell(secrets.at(-1)?.slice(-4) ?? ''));
    assert.equal(all.rows[1]?.last4, csvCell(merchant.apiKey.slice(-4)));
    for (const secret of secrets) {
      assert.ok(!all.body.includes(secret), 'no API key, no signing secret');
    }
    const early = await readCsv(owner, `/dashboard/sandbox/developers/api-keys/export.csv?to=${day(2)}`);
    assert.deepEqual(early.rows.map((row) => row.id), [all.rows[1]?.id]);
  });

  test('listExports.happy: PII keys — the period narrows the list, Reveal keeps it, and the CSV holds ids, status and dates, never key material', async () => {
    // Rotated on day 3: the new key is active, the first one retired.
    assert.equal((await owner.post('/dashboard/sandbox/developers/pii-key/rotate', { confirmed: '1' })).statusCode, 303);
    const screen = await owner.get(`/dashboard/sandbox/developers/pii-key?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/developers/pii-key/export\\.csv\\?from=${day(3)}" download=""`));
    const listed = (body: string) => [...body.matchAll(/<td><code>(pii_[^<]+)<\/code><\/td>/g)].map((match) => match[1]);
    assert.equal(listed(screen.body).length, 1, 'only the key made on day 3 is listed');

    const revealed = await owner.post('/dashboard/sandbox/developers/pii-key/reveal', { from: day(3) });
    assert.equal(revealed.statusCode, 200);
    assert.deepEqual(listed(revealed.body), listed(screen.body), 'Reveal shows the list that was on screen');
    const material = [...revealed.body.matchAll(/<code class="secret">([^<]+)<\/code>/g)].map((match) => match[1] ?? '');
    assert.equal(material.length, 1);

    const all = await readCsv(owner, '/dashboard/sandbox/developers/pii-key/export.csv');
    assert.deepEqual(all.header, ['id', 'active', 'createdAt']);
    assert.deepEqual(all.rows.map((row) => row.active), ['true', 'false'], 'the new key, then the retired one; none of the other merchant');
    assert.equal(all.rows[0]?.id, listed(screen.body)[0]);
    for (const secret of [...material, ...secrets]) {
      assert.ok(secret !== '' && !all.body.includes(secret), 'no key material');
    }
    const early = await readCsv(owner, `/dashboard/sandbox/developers/pii-key/export.csv?to=${day(2)}`);
    assert.deepEqual(early.rows.map((row) => row.active), ['false']);
  });

  test('listExports.happy: webhook endpoints — the period narrows the list and the CSV, which carries no signing secret', async () => {
    const screen = await owner.get(`/dashboard/sandbox/developers/webhooks?from=${day(3)}&to=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.ok(screen.body.includes(endpointIds[1] ?? '-') && !screen.body.includes(endpointIds[0] ?? '-'), 'only the endpoint of day 3');
    assert.match(screen.body, /href="\/dashboard\/sandbox\/developers\/webhooks\/export\.csv\?from=[-0-9]+&amp;to=[-0-9]+" download=""/);

    const all = await readCsv(owner, '/dashboard/sandbox/developers/webhooks/export.csv');
    assert.deepEqual(all.header, ['id', 'url', 'description', 'enabledEvents', 'status', 'failingSince', 'createdAt']);
    assert.deepEqual(all.rows.map((row) => row.id), [endpointIds[1], endpointIds[0]], 'newest first, none of the other merchant');
    assert.deepEqual(all.rows.map((row) => [row.description, row.enabledEvents, row.status]), [
      ['day three', '*', 'ENABLED'],
      [`'=HYPERLINK("http://evil.example")`, '*', 'ENABLED'],
    ]);
    for (const secret of secrets) {
      assert.ok(!all.body.includes(secret), 'no signing secret');
    }
    const early = await readCsv(owner, `/dashboard/sandbox/developers/webhooks/export.csv?to=${day(0)}`);
    assert.deepEqual(early.rows.map((row) => row.id), [endpointIds[0]]);
  });

  test('listExports.happy: an endpoint\'s deliveries — the period narrows its pages and its CSV; another merchant\'s endpoint is 404', async () => {
    const base = `/dashboard/sandbox/developers/webhooks/${endpointIds[0]}`;
    const listed = async (url: string) => [...(await owner.get(url)).body.matchAll(/<div class="card" id="(whd_[0-9a-z]+)"/g)].map((match) => match[1]);
    const newestFirst = [...deliveryIds].reverse();
    assert.deepEqual(await listed(`${base}?to=${day(2)}`), [deliveryIds[0]], 'only the delivery of day 0');
    assert.deepEqual(await listed(`${base}?from=${day(3)}`), newestFirst.slice(0, 25));
    assert.deepEqual(await listed(`${base}?from=${day(3)}&page=2`), [deliveryIds[1]], 'the second page stops at the period');
    assert.deepEqual(await listed(`${base}?page=2`), newestFirst.slice(25));
    const screen = await owner.get(`${base}?from=${day(3)}`);
    assert.match(screen.body, new RegExp(`href="${base}/export\\.csv\\?from=${day(3)}" download=""`));
    assert.match(screen.body, new RegExp(`href="${base}\\?from=${day(3)}&amp;page=2#deliveries" rel="next"`), 'the pages keep the period');

    const all = await readCsv(owner, `${base}/export.csv`);
    assert.deepEqual(all.header, ['id', 'eventId', 'eventType', 'status', 'attemptCount', 'lastAttemptAt', 'lastStatusCode', 'lastError', 'nextAttemptAt', 'completedAt', 'createdAt']);
    assert.deepEqual(all.rows.map((row) => row.id), newestFirst);
    assert.ok(all.rows.every((row) => row.eventType === 'PAYMENT_SUCCEEDED' && row.status === 'PENDING' && row.attemptCount === '0'));
    assert.deepEqual((await readCsv(owner, `${base}/export.csv?to=${day(0)}`)).rows.map((row) => row.id), [deliveryIds[0]]);
    assert.equal((await owner.get(`/dashboard/sandbox/developers/webhooks/${otherEndpointId}/export.csv`)).statusCode, 404);
    assert.equal((await owner.get(`/dashboard/sandbox/developers/webhooks/${otherEndpointId}?from=${day(3)}`)).statusCode, 404);
  });

  test('listExports.happy: events — the period and the type narrow the list and the CSV alike, the API\'s events of this merchant and mode only', async () => {
    const api = json<{ data: { events: Array<{ id: string; type: string; createdAt: number }> } }>(await context.request({ method: 'GET', url: '/v1/events?livemode=false&limit=100', apiKey: merchant.apiKey })).data.events;
    const dayThree = api.filter((event) => event.createdAt >= Date.parse(`${day(3)}T00:00:00.000Z`));
    assert.ok(dayThree.length > 0 && dayThree.length < api.length, 'events on both days');

    const all = await readCsv(owner, '/dashboard/sandbox/developers/events/export.csv');
    assert.deepEqual(all.header, ['id', 'type', 'createdAt', 'deliveriesSucceeded', 'deliveriesPending', 'deliveriesFailed']);
    assert.deepEqual(all.rows.map((row) => [row.id, row.type, Date.parse(String(row.createdAt))]), api.map((event) => [event.id, event.type, event.createdAt]));
    assert.ok(all.rows.every((row) => /^\d+$/.test(String(row.deliveriesSucceeded)) && /^\d+$/.test(String(row.deliveriesFailed))));

    const period = await readCsv(owner, `/dashboard/sandbox/developers/events/export.csv?from=${day(3)}`);
    assert.deepEqual(period.rows.map((row) => row.id), dayThree.map((event) => event.id));
    const entitlements = await readCsv(owner, `/dashboard/sandbox/developers/events/export.csv?type=ENTITLEMENT_CREATED&to=${day(2)}`);
    assert.deepEqual(entitlements.rows.map((row) => row.id), api.filter((event) => event.type === 'ENTITLEMENT_CREATED' && !dayThree.includes(event)).map((event) => event.id));
    assert.equal(entitlements.rows.length, 1);

    const screen = await owner.get(`/dashboard/sandbox/developers/events?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    for (const event of api) {
      assert.equal(screen.body.includes(`>${event.id}<`), dayThree.includes(event), event.id);
    }
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/developers/events/export\\.csv\\?from=${day(3)}" download=""`));
    assert.match(textOf((await owner.get(`/dashboard/sandbox/developers/events?to=${day(1)}&type=DISPUTE_CLOSED`)).body), /No event in this period/);
  });

  test('listExports.happy: entitlements — the period and the filters narrow the list and the CSV', async () => {
    const all = await readCsv(owner, '/dashboard/sandbox/entitlements/export.csv');
    assert.deepEqual(all.header, ['id', 'productId', 'subscriptionId', 'customerId', 'customerReferenceId', 'startPeriod', 'endPeriod', 'active', 'createdAt']);
    assert.deepEqual(all.rows.map((row) => row.customerId), [...entitlementCustomers].reverse(), 'newest first, none of the other merchant');
    assert.deepEqual(all.rows.map((row) => [row.productId, row.active]), [
      ['lists-plan', 'true'],
      ['lists-plan', 'true'],
    ]);
    const dayThree = await readCsv(owner, `/dashboard/sandbox/entitlements/export.csv?from=${day(3)}&to=${day(3)}`);
    assert.deepEqual(dayThree.rows.map((row) => row.customerId), [entitlementCustomers[1]]);
    const byCustomer = await readCsv(owner, `/dashboard/sandbox/entitlements/export.csv?customerId=${entitlementCustomers[0]}&from=${day(3)}`);
    assert.deepEqual(byCustomer.rows, [], 'the customer filter and the period together');

    const screen = await owner.get(`/dashboard/sandbox/entitlements?to=${day(2)}`);
    assert.equal(screen.statusCode, 200);
    assert.ok(screen.body.includes(all.rows[1]?.id ?? '-') && !screen.body.includes(all.rows[0]?.id ?? '-'), 'only the entitlement of day 0');
    assert.match(screen.body, new RegExp(`href="/dashboard/sandbox/entitlements/export\\.csv\\?to=${day(2)}" download=""`));
  });

  test('listExports.happy: inbox — the period narrows the list and the CSV, which holds the recipients the list shows and no body or code', async () => {
    const screen = await owner.get(`/dashboard/sandbox/inbox?from=${day(3)}`);
    assert.equal(screen.statusCode, 200);
    assert.ok(screen.body.includes('day3.lists@example.com') && !screen.body.includes('day0.lists@example.com'), 'only the e-mails of day 3');
    const listed = [...screen.body.matchAll(/href="\/dashboard\/sandbox\/inbox\/(eml_[^"]+)"/g)].map((match) => match[1]);

    const dayThree = await readCsv(owner, `/dashboard/sandbox/inbox/export.csv?from=${day(3)}`);
    assert.deepEqual(dayThree.header, ['id', 'createdAt', 'template', 'status', 'to', 'subject', 'relatedId']);
    assert.deepEqual(dayThree.rows.map((row) => row.id), listed, 'the CSV holds exactly what the screen lists');
    const all = await readCsv(owner, '/dashboard/sandbox/inbox/export.csv');
    const recipients = new Set(all.rows.map((row) => row.to));
    assert.ok(recipients.has('day0.lists@example.com') && recipients.has('day3.lists@example.com'));
    assert.ok(!recipients.has('other.lists@example.com') && !all.body.includes(otherPayoutPageId), 'none of the other merchant');
    assert.ok(!all.body.includes('http'), 'no body (the page links the e-mails carry)');
    const early = await readCsv(owner, `/dashboard/sandbox/inbox/export.csv?to=${day(2)}`);
    assert.ok(early.rows.length > 0 && early.rows.every((row) => Date.parse(String(row.createdAt)) < Date.parse(`${day(3)}T00:00:00.000Z`)));
  });

  test('listExports.access: the inbox CSV is for owners, admins and support; a viewer and a developer get 403, support does not get team invitations', async () => {
    const support = await addMember(context, owner, merchant.id, 'support');
    const viewer = await addMember(context, owner, merchant.id, 'viewer');
    const developer = await addMember(context, owner, merchant.id, 'developer');
    for (const refused of [viewer.client, developer.client]) {
      const response = await refused.get('/dashboard/sandbox/inbox/export.csv');
      assert.equal(response.statusCode, 403);
      assert.ok(!response.body.includes('lists@example.com'));
      assert.equal((await refused.get('/dashboard/sandbox/inbox')).statusCode, 200, 'the screen stays readable');
    }
    const ownRows = (await readCsv(owner, '/dashboard/sandbox/inbox/export.csv')).rows;
    const supportRows = (await readCsv(support.client, '/dashboard/sandbox/inbox/export.csv')).rows;
    assert.ok(ownRows.some((row) => row.to === viewer.email && row.template === inviteEmailTemplate), 'the owner sees the invitation e-mails');
    assert.ok(supportRows.length > 0 && supportRows.every((row) => row.template !== inviteEmailTemplate), 'support does not, as on its screen');
    assert.equal(supportRows.length, ownRows.filter((row) => row.template !== inviteEmailTemplate).length);
    for (const path of ['developers/events', 'developers/webhooks', `developers/webhooks/${endpointIds[0]}`, 'developers/api-keys', 'entitlements']) {
      assert.equal((await viewer.client.get(`/dashboard/sandbox/${path}/export.csv`)).statusCode, 200, `${path}: no personal data, every role that sees the list`);
    }
  });

  test('listExports.errors: a bad day or a period that ends before it starts is 400 naming the field, on each screen and CSV', async () => {
    for (const path of ['developers/events', 'developers/webhooks', `developers/webhooks/${endpointIds[0]}`, 'developers/api-keys', 'developers/pii-key', 'entitlements', 'inbox']) {
      for (const [query, message] of [
        ['from=2026-02-30', /from must be a day written YYYY-MM-DD/],
        ['to=soon', /to must be a day written YYYY-MM-DD/],
        [`from=${day(3)}&to=${day(1)}`, /to must not be before from/],
      ] as const) {
        for (const url of [`/dashboard/sandbox/${path}?${query}`, `/dashboard/sandbox/${path}/export.csv?${query}`]) {
          const response = await owner.get(url);
          assert.equal(response.statusCode, 400, url);
          assert.match(textOf(response.body), message, url);
        }
      }
    }
  });
});
