import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { and, count, eq, sql } from 'drizzle-orm';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createEndpoint } from '../../helpers/webhooks.ts';
import { events } from '../../../src/db/schema/index.ts';
import { testEventIdPrefix } from '../../../src/modules/webhooks/test-events.ts';
import { pageSize } from '../../../src/modules/dashboard/presenters/pagination.ts';
import { signedInClient, type DashboardClient } from './client.ts';
import { createPaymentPage, createPayoutPage, payPaymentPage, reportFraud } from './fixtures.ts';

/** More than a page of rows: the second page must exist and hold the rest. */
const rows = pageSize + 1;

function unescapeHtml(text: string): string {
  return text.replace(/&amp;/g, '&');
}

/** The `rel="next"` link of the pagination named `label` on a page, or undefined. */
function nextLink(html: string, label: string): string | undefined {
  const nav = new RegExp(`<nav class="pagination" aria-label="${label}">([\\s\\S]*?)</nav>`).exec(html)?.[1];
  const href = nav ? /<a href="([^"]+)" rel="next">/.exec(nav)?.[1] : undefined;
  return href ? unescapeHtml(href) : undefined;
}

describe('dashboard pagination: every list pages at 25 rows with a working next link', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let client: DashboardClient;
  let subscriptionId = '';
  let endpointId = '';
  let fannedEventId = '';

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant({ name: 'Many Rows' });
    const services = context.platform.services;
    const merchantRow = await services.merchants.getMerchant(merchant.id);

    // Every delivery of the rows below goes to this endpoint (nothing listens there: each attempt fails fast).
    endpointId = (await createEndpoint(context, merchant, { url: 'http://127.0.0.1:9/hooks' })).id;

    for (let index = 0; index < rows; index += 1) {
      await createPayoutPage(context, merchant);
      await services.merchants.createApiKey(merchant.id, `key ${index}`);
      await services.merchants.rotatePiiKey(merchant.id);
      const page = await createPaymentPage(context, merchant, { subscription: { productId: `plan-${index}`, interval: 'MONTH', intervalCount: 1 } });
      const paid = await payPaymentPage(context, merchant, page.id);
      assert.ok(paid.paymentId && paid.subscriptionId);
      subscriptionId = paid.subscriptionId;
      await reportFraud(context, merchant, paid.paymentId);
    }
    // One subscription with more than a page of invoices and entitlements.
    for (let index = 0; index < rows; index += 1) {
      await services.subscriptions.renewNow(merchantRow, false, subscriptionId);
    }
    await context.drainJobs();

    // One event with more than a page of deliveries: at most 16 endpoints a mode exist at a time,
    // so fan it out to 16, delete them, add more and fan it out again (deliveries outlive endpoints).
    // FRAUD_REPORTED is not delivered unless the operator enabled it: pick an event every endpoint receives.
    const event = (await services.events.listEvents(merchantRow, false, {})).events.find((candidate) => candidate.type !== 'FRAUD_REPORTED');
    assert.ok(event);
    fannedEventId = event.id;
    const extra: string[] = [];
    for (let index = 0; index < 15; index += 1) {
      extra.push((await createEndpoint(context, merchant, { url: `http://127.0.0.1:9/hooks-${index}` })).id);
    }
    await services.webhooks.redeliver(merchantRow, false, fannedEventId, undefined);
    for (const id of extra) {
      await services.webhooks.deleteEndpoint(merchantRow, false, id);
    }
    for (let index = 0; index < 11; index += 1) {
      await createEndpoint(context, merchant, { url: `http://127.0.0.1:9/more-${index}` });
    }
    await services.webhooks.redeliver(merchantRow, false, fannedEventId, undefined);

    client = await signedInClient(context, merchant);
  });
  after(async () => context.close());

  test('each list: 25 rows on page 1, a next link to page 2, and page 2 holds the rest', async () => {
    const [eventCount] = await context.platform.database.db
      .select({ total: count() })
      .from(events)
      .where(and(eq(events.merchantId, merchant.id), eq(events.livemode, false), sql`not starts_with(${events.id}, ${testEventIdPrefix})`));
    assert.ok(eventCount && eventCount.total > rows, 'more than a page of events');

    const cases: Array<{ name: string; url: string; item: RegExp; total: number; label?: string; parameter?: string }> = [
      { name: 'payout pages', url: '/dashboard/sandbox/payout-pages', item: /href="\/dashboard\/sandbox\/payout-pages\/(payout_page_[0-9a-z]+)"/g, total: rows },
      { name: 'payment pages', url: '/dashboard/sandbox/payment-pages', item: /href="\/dashboard\/sandbox\/payment-pages\/(page_[0-9a-z]+)"/g, total: rows },
      { name: 'fraud reports', url: '/dashboard/sandbox/fraud-reports', item: /href="\/dashboard\/sandbox\/fraud-reports\/(pay_[0-9a-z]+)"/g, total: rows },
      { name: 'events', url: '/dashboard/sandbox/developers/events', item: /href="\/dashboard\/sandbox\/developers\/events\/(evt_[0-9a-z]+)"/g, total: eventCount.total },
      // Each row above sends two e-mails: the payout page's link and the paid page's receipt.
      { name: 'inbox', url: '/dashboard/sandbox/inbox', item: /href="\/dashboard\/sandbox\/inbox\/(eml_[0-9a-z]+)"/g, total: rows + rows },
      { name: 'subscriptions', url: '/dashboard/sandbox/subscriptions', item: /href="\/dashboard\/sandbox\/subscriptions\/(sub_[0-9a-z]+)"/g, total: rows },
      // One entitlement per paid period: the first period of each subscription plus the renewals.
      { name: 'entitlements', url: '/dashboard/sandbox/entitlements', item: /<code>(ent_[0-9a-z]+)<\/code>/g, total: rows + rows },
      { name: 'API keys', url: '/dashboard/sandbox/developers/api-keys', item: /id="key-(key_[0-9a-z]+)"/g, total: rows + 1 },
      { name: 'PII keys', url: '/dashboard/sandbox/developers/pii-key', item: /<td><code>(pii_[0-9a-z]+)<\/code><\/td>/g, total: rows + 1 },
      { name: "an endpoint's deliveries", url: `/dashboard/sandbox/developers/webhooks/${endpointId}`, item: /<div class="card" id="(whd_[0-9a-z]+)">/g, total: -1, label: 'Deliveries pages' },
      { name: "an event's deliveries", url: `/dashboard/sandbox/developers/events/${fannedEventId}`, item: /<div class="card" id="(whd_[0-9a-z]+)">/g, total: rows + 1, label: 'Deliveries pages' },
      { name: "a subscription's invoices", url: `/dashboard/sandbox/subscriptions/${subscriptionId}`, item: /<td>#(\d+)<\/td>/g, total: rows + 1, label: 'Invoice pages', parameter: 'invoicesPage' },
      {
        name: "a subscription's entitlements",
        url: `/dashboard/sandbox/subscriptions/${subscriptionId}`,
        item: /<td><code>(ent_[0-9a-z]+)<\/code><\/td>/g,
        total: rows + 1,
        label: 'Entitlement pages',
        parameter: 'entitlementsPage',
      },
    ];
    // The endpoint received every delivery of this mode's events but the fanned-out event's extra ones.
    const merchantRow = await context.platform.services.merchants.getMerchant(merchant.id);
    let endpointDeliveries = 0;
    for (let cursor: string | undefined, more = true; more; ) {
      const listed = await context.platform.services.webhooks.listDeliveries(merchantRow, false, { endpointId, limit: 100, ...(cursor ? { startingAfter: cursor } : {}) });
      endpointDeliveries += listed.deliveries.length;
      more = listed.hasMore;
      cursor = listed.nextCursor;
    }
    assert.ok(endpointDeliveries > rows, `more than a page of deliveries to the endpoint (${endpointDeliveries})`);
    const endpointCase = cases.find((entry) => entry.name === "an endpoint's deliveries");
    assert.ok(endpointCase);
    endpointCase.total = endpointDeliveries;

    for (const entry of cases) {
      const label = entry.label ?? 'Pagination';
      const seen = new Set<string>();
      let url: string | undefined = entry.url;
      let pageNumber = 0;
      while (url) {
        pageNumber += 1;
        const response = await client.get(url);
        assert.equal(response.statusCode, 200, `${entry.name}: ${url}`);
        const items = [...response.body.matchAll(entry.item)].map((match) => String(match[1]));
        const next = nextLink(response.body, label);
        if (next) {
          assert.equal(items.length, pageSize, `${entry.name}: page ${pageNumber} is full`);
          assert.match(next, new RegExp(`[?&]${entry.parameter ?? 'page'}=${pageNumber + 1}(&|#|$)`), `${entry.name}: the next link goes to page ${pageNumber + 1}`);
        }
        if (pageNumber > 1) {
          assert.match(response.body, new RegExp(`<nav class="pagination" aria-label="${label}">[\\s\\S]*?rel="prev"`), `${entry.name}: page ${pageNumber} links back`);
        }
        for (const item of items) {
          assert.equal(seen.has(item), false, `${entry.name}: ${item} appears on one page only`);
          seen.add(item);
        }
        assert.ok(items.length > 0, `${entry.name}: page ${pageNumber} is not empty`);
        url = next;
      }
      assert.ok(pageNumber >= 2, `${entry.name}: more than one page`);
      assert.equal(seen.size, entry.total, `${entry.name}: the pages together show every row`);
    }
  });
});
