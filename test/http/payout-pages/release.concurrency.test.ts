import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { json, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { testDatabaseKind } from '../../helpers/database.ts';
import { balanceOf } from '../../helpers/ledger.ts';
import { advanceAndDrain, attemptsOfPage, bankMethod, closePayoutPageSuite, confirmPage, createPage, errorCodeOf, fullKyc, getPage, openPayoutPageSuite, otherBankMethod, pageAction, payoutEvents, rejectedBankMethod, retryPayout, uniqueReference } from '../../helpers/payout-pages.ts';
import { queryRows } from '../../../src/db/client.ts';

// PGlite runs one query at a time, so the races there are interleavings rather than parallel
// transactions; PostgreSQL runs them truly in parallel (12 pooled connections).
const rounds = testDatabaseKind === 'postgres' ? 20 : 10;
const racers = 50;

describe('POST /v1/payout_pages/:id/release under concurrency, and retries racing', () => {
  let context: TestContext;
  let merchant: TestMerchant;
  let verifiedCustomer: string;

  before(async () => {
    ({ context, merchant } = await openPayoutPageSuite());
    verifiedCustomer = uniqueReference('verified');
    await context.request({ method: 'POST', url: '/v1/customers?livemode=false', apiKey: merchant.apiKey, body: { referenceId: verifiedCustomer, signupAt: 1_700_000_000_000, ...fullKyc } });
    await advanceAndDrain(context);
  });
  after(async () => closePayoutPageSuite(context));

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

  test('concurrent retries of one page: exactly one is taken, never two attempts in flight', async () => {
    const page = await createPage(context, merchant, { amount: 1_500 });
    await confirmPage(context, merchant, page.id, { payoutMethod: rejectedBankMethod, kyc: fullKyc });
    await advanceAndDrain(context);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id))['sub-status'], 'PAYOUT_REJECTED');
    const responses = await Promise.all(Array.from({ length: 10 }, () => retryPayout(context, merchant, page.id, otherBankMethod)));
    const outcomes = responses.map((response) => (response.ok ? 'OK' : response.code));
    assert.equal(outcomes.filter((outcome) => outcome === 'OK').length, 1, outcomes.join(','));
    assert.equal(outcomes.filter((outcome) => outcome === 'INVALID_STATE').length, 9, outcomes.join(','));
    const live = (await attemptsOfPage(context, page.id)).filter((attempt) => attempt.status === 'SUBMITTING' || attempt.status === 'SUBMITTED');
    assert.equal(live.length, 1);
    await advanceAndDrain(context);
    assert.equal((await getPage(context, merchant, page.id)).status, 'PROCESSED');
  });
});
