import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { createPage, payPage, testCards, type PageBody } from '../../helpers/payment-pages.ts';

const disputeCard = '4000000000000259';

interface Dispute {
  id: string;
  paymentPageId: string | null;
  paymentId: string;
  amount: number;
  currency: string;
  reason: string;
  status: string;
  evidenceDueBy: number | null;
  createdAt: number;
  livemode: boolean;
}

interface Failure {
  errorCode: string;
  errorMessage: string;
}

/** Sandbox disputes: the dispute test card, the close helper, the ledger movements and the API's edges. */
describe('disputes in sandbox: card 4000000000000259, won and lost, with their postings', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let other: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    other = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  async function availableUsd(owner: TestMerchant = merchant): Promise<number> {
    const response = await context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: owner.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    const usd = json<{ data: Array<{ currency: string; available: number }> }>(response).data.find((balance) => balance.currency === 'USD');
    assert.ok(usd);
    return usd.available;
  }

  async function paid(card: string, amount: number, owner: TestMerchant = merchant): Promise<PageBody> {
    const page = await createPage(context, owner, { amount });
    const response = await payPage(context, owner, page.id, card);
    assert.equal(response.statusCode, 200, response.body);
    const body = json<{ data: PageBody }>(response).data;
    assert.equal(body.status, 'PAID');
    return body;
  }

  /** The dispute test card's dispute arrives SANDBOX_PAYOUT_DELAY_MS (2 s in tests) after the payment. */
  async function disputed(page: PageBody, owner: TestMerchant = merchant): Promise<Dispute> {
    context.clock.advance(2_000);
    await context.drainJobs();
    const response = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}&livemode=false`, apiKey: owner.apiKey });
    assert.equal(response.statusCode, 200, response.body);
    const [dispute, ...more] = json<{ data: { disputes: Dispute[] } }>(response).data.disputes;
    assert.ok(dispute, 'the dispute arrived');
    assert.equal(more.length, 0);
    return dispute;
  }

  function close(disputeId: string, outcome: unknown, owner: TestMerchant = merchant, query = '?livemode=false') {
    return context.request({ method: 'POST', url: `/v1/test_helpers/disputes/${disputeId}/close${query}`, apiKey: owner.apiKey, body: { outcome } });
  }

  async function disputeEvents(disputeId: string): Promise<Array<{ type: string; data: Record<string, unknown> }>> {
    return queryRows(context.database.db, sql`select type, data from events where data->>'id' = ${disputeId} and type like 'DISPUTE_%' order by created_at, id`);
  }

  async function ledgerMovements(disputeId: string): Promise<Array<{ kind: string }>> {
    return queryRows(context.database.db, sql`select kind from ledger_transactions where reference = ${disputeId} order by created_at, kind`);
  }

  test('a payment with 4000000000000259 succeeds, is disputed a moment later (DISPUTE_CREATED, amount debited), and a WON close returns the amount exactly once', async () => {
    const page = await paid(disputeCard, 4_200);
    const before = await availableUsd();
    context.clock.advance(1_000);
    await context.drainJobs();
    const early = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}`, apiKey: merchant.apiKey });
    assert.deepEqual(json<{ data: { disputes: Dispute[] } }>(early).data.disputes, [], 'not disputed before the delay');

    const dispute = await disputed(page);
    assert.match(dispute.id, /^dp_[0-9a-z]{36}$/);
    assert.deepEqual(
      { ...dispute, id: 'x', createdAt: 0, evidenceDueBy: 0 },
      { id: 'x', paymentPageId: page.id, paymentId: page.paymentId, amount: 4_200, currency: 'USD', reason: 'FRAUDULENT', status: 'NEEDS_RESPONSE', evidenceDueBy: 0, createdAt: 0, livemode: false },
    );
    assert.ok(dispute.evidenceDueBy !== null && dispute.evidenceDueBy > dispute.createdAt, 'evidence is due after the dispute opened');
    assert.equal(await availableUsd(), before - 4_200, 'the disputed amount left the available balance');

    const read = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}`, apiKey: merchant.apiKey });
    assert.equal(read.statusCode, 200, read.body);
    assert.deepEqual(json<{ data: Dispute }>(read).data, dispute);

    const created = await disputeEvents(dispute.id);
    assert.deepEqual(created.map((event) => event.type), ['DISPUTE_CREATED']);
    assert.deepEqual(created[0]?.data, { ...dispute, clientReferenceId: page.clientReferenceId });

    context.clock.advance(60_000);
    const won = await close(dispute.id, 'WON');
    assert.equal(won.statusCode, 200, won.body);
    assert.equal(json<{ data: Dispute }>(won).data.status, 'WON');
    assert.equal(await availableUsd(), before, 'a won dispute returns the amount');
    const again = await close(dispute.id, 'WON');
    assert.equal(again.statusCode, 200, again.body);
    assert.equal(json<{ data: Dispute }>(again).data.status, 'WON');
    const flip = await close(dispute.id, 'LOST');
    assert.equal(flip.statusCode, 409, flip.body);
    assert.equal(json<Failure>(flip).errorCode, 'INVALID_STATE');
    await context.drainJobs();
    assert.equal(await availableUsd(), before, 'closing again moves nothing');
    assert.deepEqual((await ledgerMovements(dispute.id)).map((row) => row.kind).sort(), ['dispute', 'dispute_won']);
    const events = await disputeEvents(dispute.id);
    assert.deepEqual(events.map((event) => event.type), ['DISPUTE_CREATED', 'DISPUTE_CLOSED']);
    assert.equal(events[1]?.data['status'], 'WON');
  });

  test('a LOST dispute keeps the amount taken: one debit, no return', async () => {
    const page = await paid(disputeCard, 1_500);
    const before = await availableUsd();
    const dispute = await disputed(page);
    assert.equal(await availableUsd(), before - 1_500);
    context.clock.advance(60_000);
    const lost = await close(dispute.id, 'LOST');
    assert.equal(lost.statusCode, 200, lost.body);
    assert.equal(json<{ data: Dispute }>(lost).data.status, 'LOST');
    assert.equal(await availableUsd(), before - 1_500, 'a lost dispute returns nothing');
    assert.deepEqual((await ledgerMovements(dispute.id)).map((row) => row.kind), ['dispute']);
    assert.deepEqual((await disputeEvents(dispute.id)).map((event) => event.type), ['DISPUTE_CREATED', 'DISPUTE_CLOSED']);
    // The processor reporting the dispute again as open (a late or replayed report) reopens nothing.
    const [row] = await queryRows<{ reference: string }>(context.database.db, sql`select processor_reference as reference from disputes where id = ${dispute.id}`);
    assert.ok(row);
    const replayed = await context.database.transaction((tx) =>
      context.platform.services.disputes.applyProcessorDispute(
        tx,
        { processor: 'sandbox-card', processorReference: row.reference, paymentId: dispute.paymentId, livemode: false, amount: 1_500, currency: 'USD', reason: 'FRAUDULENT', status: 'NEEDS_RESPONSE', evidenceDueBy: null },
        context.clock.now(),
      ),
    );
    assert.equal(replayed.status, 'LOST');
    assert.equal(replayed.id, dispute.id);
    assert.deepEqual((await ledgerMovements(dispute.id)).map((row) => row.kind), ['dispute']);
    assert.equal((await disputeEvents(dispute.id)).length, 2);
  });

  test('other test cards are never disputed', async () => {
    const page = await paid(testCards.visaCredit, 900);
    context.clock.advance(10_000);
    await context.drainJobs();
    const response = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}`, apiKey: merchant.apiKey });
    assert.deepEqual(json<{ data: { disputes: Dispute[] } }>(response).data.disputes, []);
  });

  test('lists page newest first with a cursor like GET /v1/events; a foreign or forged cursor is 400', async () => {
    const all = await context.request({ method: 'GET', url: '/v1/disputes?livemode=false', apiKey: merchant.apiKey });
    const everything = json<{ data: { disputes: Dispute[] } }>(all).data.disputes;
    assert.ok(everything.length >= 2);
    const first = await context.request({ method: 'GET', url: '/v1/disputes?limit=1', apiKey: merchant.apiKey });
    const firstPage = json<{ data: { disputes: Dispute[]; hasMore: boolean; nextCursor?: string } }>(first).data;
    assert.equal(firstPage.disputes.length, 1);
    assert.equal(firstPage.hasMore, true);
    assert.ok(firstPage.nextCursor);
    assert.equal(firstPage.disputes[0]?.id, everything[0]?.id, 'newest first');
    const second = await context.request({ method: 'GET', url: `/v1/disputes?limit=1&startingAfter=${encodeURIComponent(firstPage.nextCursor)}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { disputes: Dispute[] } }>(second).data.disputes[0]?.id, everything[1]?.id);
    const byId = await context.request({ method: 'GET', url: `/v1/disputes?limit=1&startingAfter=${everything[0]?.id}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: { disputes: Dispute[] } }>(byId).data.disputes[0]?.id, everything[1]?.id, 'a dispute id works as the cursor');

    const events = await context.request({ method: 'GET', url: '/v1/events?limit=1', apiKey: merchant.apiKey });
    const eventCursor = json<{ data: { nextCursor?: string } }>(events).data.nextCursor;
    assert.ok(eventCursor);
    for (const cursor of [eventCursor, `${firstPage.nextCursor}x`, everything[0]?.id.replace(/.$/, (last) => (last === '0' ? '1' : '0')) ?? '']) {
      const response = await context.request({ method: 'GET', url: `/v1/disputes?startingAfter=${encodeURIComponent(cursor)}`, apiKey: merchant.apiKey });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<Failure>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<Failure>(response).errorMessage, /startingAfter/);
    }
    // Another merchant's dispute id is not a cursor for this merchant.
    const foreign = await context.request({ method: 'GET', url: `/v1/disputes?startingAfter=${everything[0]?.id}`, apiKey: other.apiKey });
    assert.equal(foreign.statusCode, 400, foreign.body);
  });

  test("another merchant's dispute, page or close is 404; live test helper 403; bad input 400 naming the field, nothing written", async () => {
    const page = await paid(disputeCard, 700);
    const dispute = await disputed(page);
    const foreignRead = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}`, apiKey: other.apiKey });
    assert.equal(foreignRead.statusCode, 404, foreignRead.body);
    assert.equal(json<Failure>(foreignRead).errorCode, 'NOT_FOUND');
    const foreignPage = await context.request({ method: 'GET', url: `/v1/disputes?paymentPageId=${page.id}`, apiKey: other.apiKey });
    assert.equal(foreignPage.statusCode, 404, foreignPage.body);
    const foreignClose = await close(dispute.id, 'WON', other);
    assert.equal(foreignClose.statusCode, 404, foreignClose.body);
    const wrongMode = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}?livemode=true`, apiKey: merchant.apiKey });
    assert.equal(wrongMode.statusCode, 403, 'live is not enabled for this merchant');
    const unknown = await context.request({ method: 'GET', url: '/v1/disputes/dp_00000000000000000000000000000000000', apiKey: merchant.apiKey });
    assert.equal(unknown.statusCode, 404);

    const live = await close(dispute.id, 'WON', merchant, '?livemode=true');
    assert.equal(live.statusCode, 403, live.body);
    for (const [body, field] of [
      [{ outcome: 'MAYBE' }, 'outcome'],
      [{}, 'outcome'],
      [{ outcome: 'WON', extra: 1 }, 'extra'],
    ] as const) {
      const response = await context.request({ method: 'POST', url: `/v1/test_helpers/disputes/${dispute.id}/close?livemode=false`, apiKey: merchant.apiKey, body });
      assert.equal(response.statusCode, 400, response.body);
      assert.equal(json<Failure>(response).errorCode, 'WRONG_PARAMETER');
      assert.match(json<Failure>(response).errorMessage, new RegExp(field));
    }
    for (const [query, field] of [
      ['limit=0', 'limit'],
      ['limit=101', 'limit'],
      ['paymentPageId=', 'paymentPageId'],
      ['status=WON', 'status'],
    ] as const) {
      const response = await context.request({ method: 'GET', url: `/v1/disputes?${query}`, apiKey: merchant.apiKey });
      assert.equal(response.statusCode, 400, `${query}: ${response.body}`);
      assert.match(json<Failure>(response).errorMessage, new RegExp(field));
    }
    const still = await context.request({ method: 'GET', url: `/v1/disputes/${dispute.id}`, apiKey: merchant.apiKey });
    assert.equal(json<{ data: Dispute }>(still).data.status, 'NEEDS_RESPONSE', 'nothing was written');
    assert.deepEqual((await ledgerMovements(dispute.id)).map((row) => row.kind), ['dispute']);
  });
});
