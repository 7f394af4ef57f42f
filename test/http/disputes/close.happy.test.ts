import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testCards } from '../../helpers/payment-pages.ts';
import type { ErrorBody } from '../../helpers/assertions.ts';
import { closeDisputeSuite, disputeCalls, disputeCard, openDisputeSuite, type Dispute } from '../../helpers/disputes.ts';

describe('disputes in sandbox: card 4000000000000259, won and lost, with their postings', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openDisputeSuite()));
  after(async () => closeDisputeSuite(context));

  const { availableUsd, paid, disputed, close, disputeEvents, ledgerMovements } = disputeCalls(() => ({ context, merchant }));

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
    assert.equal(json<ErrorBody>(flip).errorCode, 'INVALID_STATE');
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
});
