import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, openPaymentPageSuite, pageCalls, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { paymentPages } from '../../../src/db/schema/index.ts';

describe('POST /v1/payment_pages/:pageId/expire and expiry at expiresAt: pages that expire', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openPaymentPageSuite()));
  after(async () => context.close());

  const { expire, read } = pageCalls(() => ({ context, merchant }));

  test('CREATED → EXPIRED with exactly one PAYMENT_EXPIRED {pageId, clientReferenceId}; expiring again answers the same body, no new event', async () => {
    const page = await createPage(context, merchant);
    const first = await expire(page.id);
    assert.equal(first.statusCode, 200, first.body);
    const expired = json<{ status: string; data: PageBody }>(first);
    assert.equal(expired.status, 'SUCCEEDED');
    assert.equal(expired.data.status, 'EXPIRED');
    assert.equal(expired.data.expiredAt, context.clock.now().getTime());
    assert.equal(expired.data.id, page.id);
    const events = await eventsOf(context, 'PAYMENT_EXPIRED', page.id);
    assert.equal(events.length, 1);
    assert.deepEqual(events[0]?.data, { pageId: page.id, clientReferenceId: page.clientReferenceId });
    context.clock.advance(5_000);
    const second = await expire(page.id);
    assert.equal(second.statusCode, 200);
    assert.equal(second.body, first.body);
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
    assert.deepEqual(await read(page.id), expired.data);
  });

  test('the body may be empty, empty JSON, {} or null', async () => {
    for (const body of [undefined, '', '{}', 'null']) {
      const page = await createPage(context, merchant);
      const response = await expire(page.id, { body, headers: body === undefined ? {} : { 'content-type': 'application/json' } });
      assert.equal(response.statusCode, 200, `${JSON.stringify(body)}: ${response.body}`);
      assert.equal(json<{ data: PageBody }>(response).data.status, 'EXPIRED');
    }
    const page = await createPage(context, merchant);
    const withField = await expire(page.id, { body: { reason: 'x' } });
    assert.equal(withField.statusCode, 400);
  });

  test('unpaid pages expire by themselves at expiresAt, with one event; a later expire call changes nothing', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 60_000 });
    context.clock.advance(59_999);
    await context.drainJobs();
    assert.equal((await read(page.id)).status, 'CREATED');
    context.clock.advance(1);
    await context.drainJobs();
    const expired = await read(page.id);
    assert.equal(expired.status, 'EXPIRED');
    assert.equal(expired.expiredAt, context.clock.now().getTime());
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
    const again = await expire(page.id);
    assert.equal(again.statusCode, 200);
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
  });

  test('a paid page is left alone by its expiry job', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    await payPage(context, merchant, page.id, testCards.visaCredit);
    context.clock.advance(2_000);
    await context.drainJobs();
    assert.equal((await read(page.id)).status, 'PAID');
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 0);
  });

  test('the expiry job waits out an in-flight payment attempt instead of racing it', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    await context.database.db.update(paymentPages).set({ attemptPaymentId: 'pay_inflight' }).where(eq(paymentPages.id, page.id));
    context.clock.advance(1_000);
    await context.drainJobs();
    assert.equal((await read(page.id)).status, 'CREATED', 'held by the attempt');
    // The attempt is declined (claim released); the rescheduled job expires the page.
    await context.database.db.update(paymentPages).set({ attemptPaymentId: null }).where(eq(paymentPages.id, page.id));
    context.clock.advance(5_000);
    await context.drainJobs();
    assert.equal((await read(page.id)).status, 'EXPIRED');
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
  });

  test('an expire call waits for an in-flight attempt and then applies: declined attempt → EXPIRED', async () => {
    const page = await createPage(context, merchant);
    await context.database.db.update(paymentPages).set({ attemptPaymentId: 'pay_inflight2' }).where(eq(paymentPages.id, page.id));
    const pending = expire(page.id);
    await new Promise((resolve) => setTimeout(resolve, 150));
    await context.database.db.update(paymentPages).set({ attemptPaymentId: null }).where(eq(paymentPages.id, page.id));
    const response = await pending;
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(json<{ data: PageBody }>(response).data.status, 'EXPIRED');
  });
});
