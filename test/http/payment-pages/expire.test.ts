import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { eq } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createPage, eventsOf, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';
import { paymentPages, payments } from '../../../src/db/schema/index.ts';

type Failure = { status: string; errorCode: string; errorMessage: string };

describe('POST /v1/payment_pages/:pageId/expire and expiry at expiresAt', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;
  let live: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
    live = await context.createMerchant({ live: true });
  });
  after(async () => context.close());

  function expire(pageId: string, options: { apiKey?: string; query?: string; body?: unknown; headers?: Record<string, string> } = {}) {
    return context.request({ method: 'POST', url: `/v1/payment_pages/${pageId}/expire${options.query ?? ''}`, apiKey: options.apiKey ?? merchant.apiKey, body: options.body, headers: options.headers });
  }

  async function read(pageId: string): Promise<PageBody> {
    return json<{ data: PageBody }>(await context.request({ method: 'GET', url: `/v1/payment_pages/${pageId}`, apiKey: merchant.apiKey })).data;
  }

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

  test('PAID → 400 WRONG_PARAMETER; nothing changes and no event is recorded', async () => {
    const page = await createPage(context, merchant);
    const paid = json<{ data: PageBody }>(await payPage(context, merchant, page.id, testCards.visaCredit)).data;
    const response = await expire(page.id);
    assert.equal(response.statusCode, 400);
    const failure = json<Failure>(response);
    assert.equal(failure.errorCode, 'WRONG_PARAMETER');
    assert.match(failure.errorMessage, /already PAID/);
    assert.deepEqual(await read(page.id), paid);
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 0);
  });

  test('an EXPIRED page cannot be paid: 409 INVALID_STATE, nothing charged', async () => {
    const page = await createPage(context, merchant);
    await expire(page.id);
    const response = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(response.statusCode, 409);
    assert.equal(json<Failure>(response).errorCode, 'INVALID_STATE');
    assert.equal((await context.database.db.select().from(payments).where(eq(payments.pageId, page.id))).length, 0);
  });

  test('scoping: another merchant → 404; livemode mismatch → 404; livemode=true without live access → 403', async () => {
    const page = await createPage(context, merchant);
    assert.equal((await expire(page.id, { apiKey: other.apiKey })).statusCode, 404);
    const noLive = await expire(page.id, { query: '?livemode=true' });
    assert.equal(noLive.statusCode, 403);
    assert.equal(json<Failure>(noLive).errorCode, 'LIVE_MODE_NOT_ENABLED');
    const sandboxPage = await createPage(context, live);
    assert.equal((await expire(sandboxPage.id, { apiKey: live.apiKey, query: '?livemode=true' })).statusCode, 404);
    assert.equal((await read(page.id)).status, 'CREATED');
    assert.equal((await expire(sandboxPage.id, { apiKey: live.apiKey, query: '?livemode=false' })).statusCode, 200);
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

  test('paying after expiresAt, before the job ran: refused, and the page expires then (one event)', async () => {
    const page = await createPage(context, merchant, { expiresAt: context.clock.now().getTime() + 1_000 });
    context.clock.advance(1_000);
    const response = await payPage(context, merchant, page.id, testCards.visaCredit);
    assert.equal(response.statusCode, 409);
    assert.match(json<Failure>(response).errorMessage, /EXPIRED/);
    assert.equal((await read(page.id)).status, 'EXPIRED');
    await context.drainJobs();
    assert.equal((await eventsOf(context, 'PAYMENT_EXPIRED', page.id)).length, 1);
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

  // At least 20 rounds, and on until both outcomes happened (like the ledger model's coverage
  // check), at most 200: a race that one side always wins proves nothing about the other.
  test('payments racing expires (20+ rounds): exactly one winner each, both outcomes happen, and a consistent final state', async (t) => {
    const outcomes = { paid: 0, expired: 0 };
    const minimumRounds = 20;
    const maximumRounds = 200;
    let rounds = 0;
    for (let round = 0; round < minimumRounds || ((outcomes.paid === 0 || outcomes.expired === 0) && round < maximumRounds); round += 1) {
      rounds += 1;
      const page = await createPage(context, merchant);
      const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
      const payFirst = round % 2 === 0;
      const [payResponse, expireResponse] = await Promise.all([
        (async () => {
          if (!payFirst) {
            await delay(round % 4);
          }
          return payPage(context, merchant, page.id, testCards.visaCredit);
        })(),
        (async () => {
          if (payFirst) {
            // Spread the expire over the payment's claim → charge → settle steps.
            await delay((round % 5) * 3);
          }
          return expire(page.id);
        })(),
      ]);
      const paidWon = payResponse.statusCode === 200;
      const expiredWon = expireResponse.statusCode === 200;
      assert.ok(paidWon !== expiredWon, `round ${round}: exactly one winner (pay ${payResponse.statusCode} ${payResponse.body} / expire ${expireResponse.statusCode} ${expireResponse.body})`);
      const final = await read(page.id);
      const succeededEvents = await eventsOf(context, 'PAYMENT_SUCCEEDED', page.id);
      const expiredEvents = await eventsOf(context, 'PAYMENT_EXPIRED', page.id);
      const attempts = await context.database.db.select().from(payments).where(eq(payments.pageId, page.id));
      const [row] = await context.database.db.select().from(paymentPages).where(eq(paymentPages.id, page.id));
      assert.equal(row?.attemptPaymentId, null, 'no claim is left behind');
      assert.equal(attempts.filter((attempt) => attempt.status === 'PROCESSING').length, 0);
      if (paidWon) {
        outcomes.paid += 1;
        assert.equal(expireResponse.statusCode, 400);
        assert.equal(json<Failure>(expireResponse).errorCode, 'WRONG_PARAMETER');
        assert.equal(final.status, 'PAID');
        assert.equal(succeededEvents.length, 1);
        assert.equal(expiredEvents.length, 0);
        assert.deepEqual(
          attempts.map((attempt) => attempt.status),
          ['SUCCEEDED'],
        );
        assert.equal(final.paymentId, attempts[0]?.id);
      } else {
        outcomes.expired += 1;
        assert.equal(payResponse.statusCode, 409);
        assert.equal(json<Failure>(payResponse).errorCode, 'INVALID_STATE');
        assert.equal(final.status, 'EXPIRED');
        assert.equal(succeededEvents.length, 0);
        assert.equal(expiredEvents.length, 1);
        assert.equal(attempts.length, 0, 'nothing was charged on a page the expire won');
      }
    }
    t.diagnostic(`${rounds} rounds: payment won ${outcomes.paid}, expire won ${outcomes.expired}`);
    assert.equal(outcomes.paid + outcomes.expired, rounds);
    assert.ok(outcomes.paid > 0, `the payment won at least one of ${rounds} rounds`);
    assert.ok(outcomes.expired > 0, `the expire won at least one of ${rounds} rounds`);
  });
});
