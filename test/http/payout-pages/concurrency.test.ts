import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { createTestContext, json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testDatabaseKind } from '../../helpers/database.ts';
import { assertLedgerInvariants, balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, bankMethod, confirmPage, createPage, errorCodeOf, fullKyc, getPage, pageAction, payoutEvents, uniqueReference, assertOneEventPerChange } from '../../helpers/payout-pages.ts';
import { queryRows } from '../../../src/db/client.ts';

// PGlite runs one query at a time, so the races there are interleavings rather than parallel
// transactions; PostgreSQL runs them truly in parallel (12 pooled connections).
const rounds = testDatabaseKind === 'postgres' ? 20 : 10;
const racers = 50;

describe('payout pages under concurrency', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let verifiedCustomer: string;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
    verifiedCustomer = uniqueReference('verified');
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: verifiedCustomer, signupAt: 1_700_000_000_000, ...fullKyc } });
    await advanceAndDrain(context);
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await assertOneEventPerChange(context);
    await context.close();
  });

  async function awaitingRelease(amount: number): Promise<string> {
    const page = await createPage(context, merchant, { releaseMethod: 'MANUAL', amount, customer: { referenceId: verifiedCustomer, email: 'ada@example.com' } });
    const confirmed = await confirmPage(context, merchant, page.id, { payoutMethod: bankMethod });
    assert.equal(json<{ data: { 'sub-status': string } }>(confirmed).data['sub-status'], 'AWAITING_RELEASE');
    return page.id;
  }

  test(`${racers} concurrent releases × ${rounds} rounds: exactly one moves each page to PROCESSING, one settlement each`, async () => {
    const before = await balanceOf(context.database, merchant.id, false, 'USDC');
    const ids: string[] = [];
    for (let round = 0; round < rounds; round += 1) {
      const id = await awaitingRelease(1_000 + round);
      ids.push(id);
      const responses = await Promise.all(Array.from({ length: racers }, () => pageAction(context, merchant, id, 'release')));
      const outcomes = responses.map((response) => (response.statusCode === 200 ? 'OK' : errorCodeOf(response)));
      assert.equal(outcomes.filter((outcome) => outcome === 'OK').length, 1, `round ${round}: ${outcomes.join(',')}`);
      assert.equal(outcomes.filter((outcome) => outcome === 'INVALID_STATE').length, racers - 1, `round ${round}`);
    }
    const total = ids.reduce((sum, _id, round) => sum + 1_000 + round, 0);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USDC')).reserved, before.reserved);
    assert.equal((await balanceOf(context.database, merchant.id, false, 'USDC')).inFlight, before.inFlight + total);

    await advanceAndDrain(context);
    await advanceAndDrain(context);
    for (const id of ids) {
      assert.equal((await getPage(context, merchant, id)).status, 'PROCESSED');
      const movements = await queryRows<{ kind: string; count: number }>(context.database.db, sql`select kind, count(*)::int as count from ledger_transactions where reference = ${id} group by kind order by kind`);
      assert.deepEqual(movements, [
        { kind: 'reserve', count: 1 },
        { kind: 'settle', count: 1 },
        { kind: 'submit', count: 1 },
      ]);
      const toProcessing = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from payout_page_status_history where payout_page_id = ${id} and to_status = 'PROCESSING'`);
      assert.equal(toProcessing[0]?.count, 1);
      const railRecords = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from sandbox_provider_records r join payout_attempts a on a.id = r.reference where r.provider = 'sandbox-rail' and a.payout_page_id = ${id}`);
      assert.equal(railRecords[0]?.count, 1);
      const changes = (await payoutEvents(context, id)).map((event) => `${event.data.previousStatus}→${event.data.status}`);
      assert.deepEqual(changes, ['CREATED→PENDING', 'PENDING→PROCESSING', 'PROCESSING→PROCESSED']);
    }
    const after = await balanceOf(context.database, merchant.id, false, 'USDC');
    assert.deepEqual(after, { available: before.available - total, reserved: before.reserved, inFlight: before.inFlight, external: before.external + total });
  });

  test('release racing cancel and decline: exactly one wins, the money moves once', async () => {
    for (let round = 0; round < rounds; round += 1) {
      const before = await balanceOf(context.database, merchant.id, false, 'USDC');
      const id = await awaitingRelease(500);
      const actions = Array.from({ length: 30 }, (_, index) =>
        index % 3 === 0
          ? pageAction(context, merchant, id, 'release')
          : index % 3 === 1
            ? pageAction(context, merchant, id, 'cancel')
            : context.request({ method: 'POST', url: `/v1/test_helpers/payout_pages/${id}/decline?livemode=false`, apiKey: merchant.apiKey }),
      );
      const responses = await Promise.all(actions);
      assert.equal(responses.filter((response) => response.statusCode === 200).length, 1, `round ${round}`);
      const page = await getPage(context, merchant, id);
      const balance = await balanceOf(context.database, merchant.id, false, 'USDC');
      if (page.status === 'PROCESSING') {
        assert.equal(balance.inFlight, before.inFlight + 500);
        assert.equal(balance.available, before.available - 500);
      } else {
        assert.equal(page.status, 'CANCELED');
        assert.deepEqual(balance, before);
      }
      assert.equal((await payoutEvents(context, id)).length, 2);
    }
    await advanceAndDrain(context);
    await advanceAndDrain(context);
  });

  test('concurrent creates never overdraw: exactly as many pages as the balance covers', async () => {
    const fresh = await context.createMerchant();
    const amount = 5_000_000; // 100,000,000 / 5,000,000 = 20 pages fit
    const responses = await Promise.all(
      Array.from({ length: 45 }, () =>
        context.request({
          method: 'POST',
          url: '/v1/payout_pages?livemode=false',
          apiKey: fresh.apiKey,
          body: { amount, fundingCurrency: 'USD', clientReferenceId: uniqueReference('burst'), releaseMethod: 'AUTOMATIC', customer: { referenceId: uniqueReference('c'), email: 'burst@example.com' } },
        }),
      ),
    );
    const outcomes = responses.map((response) => (response.statusCode === 200 ? 'OK' : errorCodeOf(response)));
    assert.equal(outcomes.filter((outcome) => outcome === 'OK').length, 20, outcomes.join(','));
    assert.equal(outcomes.filter((outcome) => outcome === 'INSUFFICIENT_FUNDS').length, 25);
    assert.deepEqual(await balanceOf(context.database, fresh.id, false, 'USD'), { available: 0, reserved: 100_000_000, inFlight: 0, external: -100_000_000 });
    const [pages] = await queryRows<{ count: number }>(context.database.db, sql`select count(*)::int as count from payout_pages where merchant_id = ${fresh.id}`);
    assert.equal(pages?.count, 20);
    // Cancels racing new creates: freed funds are reused, never double counted.
    const ids = responses.filter((response) => response.statusCode === 200).map((response) => json<{ data: { id: string } }>(response).data.id);
    const mixed = await Promise.all([
      ...ids.slice(0, 10).map((id) => pageAction(context, fresh, id, 'cancel')),
      ...Array.from({ length: 20 }, () =>
        context.request({
          method: 'POST',
          url: '/v1/payout_pages?livemode=false',
          apiKey: fresh.apiKey,
          body: { amount, fundingCurrency: 'USD', clientReferenceId: uniqueReference('burst2'), releaseMethod: 'MANUAL', customer: { referenceId: uniqueReference('c'), email: 'burst@example.com' } },
        }),
      ),
    ]);
    const created = mixed.slice(10).filter((response) => response.statusCode === 200).length;
    assert.ok(mixed.slice(0, 10).every((response) => response.statusCode === 200));
    assert.ok(created <= 10, `${created} created with 10 pages' worth of funds freed`);
    const balance = await balanceOf(context.database, fresh.id, false, 'USD');
    assert.equal(balance.available, (10 - created) * amount);
    assert.equal(balance.reserved, (10 + created) * amount);
  });
});
