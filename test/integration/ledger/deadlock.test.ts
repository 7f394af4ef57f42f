import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { assertLedgerInvariants } from '../../helpers/ledger.ts';
import { testDatabaseKind } from '../../helpers/database.ts';

/**
 * Two posting transactions of one merchant that touch the same accounts in opposite orders: A posts
 * USD and waits, B posts USDC and then USD (so it waits for A), then A posts USDC. Without the
 * account lock that opens every posting statement of a transaction (ledger/post-statement.ts) that is a deadlock, and PostgreSQL aborts
 * one of them ("deadlock detected"). Found by the ledger model: two KYC decisions releasing several
 * pages each, in id order across currencies, ran in one drain. PostgreSQL only: PGlite is one
 * session, where two transactions never interleave.
 */
describe('ledger postings of one merchant never deadlock', { skip: testDatabaseKind !== 'postgres' ? 'PostgreSQL only (PGlite runs one transaction at a time)' : false }, () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => {
    await assertLedgerInvariants(context.database);
    await context.close();
  });

  test('opposite orders across currencies: both commit, one after the other', async () => {
    const { ledger } = context.platform.services;
    const now = context.clock.now();
    const owner = { merchantId: merchant.id, livemode: false };
    const reserve = (currency: 'USD' | 'USDC', key: string, amount: number) => ({
      ...owner,
      currency,
      kind: 'reserve',
      idempotencyKey: `deadlock-${merchant.id}-${key}`,
      postings: [{ source: 'available' as const, destination: 'reserved' as const, amount }],
    });
    let resumeA: () => void = () => undefined;
    const paused = new Promise<void>((resolve) => (resumeA = resolve));
    let signalA: () => void = () => undefined;
    const aHoldsUsd = new Promise<void>((resolve) => (signalA = resolve));
    const order: string[] = [];

    const first = context.database.transaction(async (tx) => {
      await ledger.post(tx, reserve('USD', 'a-usd', 100), now);
      signalA();
      await paused;
      await ledger.post(tx, reserve('USDC', 'a-usdc', 100), now);
      order.push('A');
    });
    await aHoldsUsd;
    const second = context.database.transaction(async (tx) => {
      await ledger.post(tx, reserve('USDC', 'b-usdc', 50), now);
      await ledger.post(tx, reserve('USD', 'b-usd', 50), now);
      order.push('B');
    });
    // Let B reach its first lock (it waits there behind A), then let A go on.
    await new Promise((resolve) => setTimeout(resolve, 300));
    resumeA();
    const results = await Promise.allSettled([first, second]);
    assert.deepEqual(
      results.map((result) => (result.status === 'rejected' ? String((result.reason as Error).cause ?? result.reason) : 'committed')),
      ['committed', 'committed'],
    );
    assert.deepEqual(order, ['A', 'B'], 'B waited for A instead of taking USDC first');
    const balances = await ledger.getBalances(owner);
    assert.equal(balances.find((balance) => balance.currency === 'USD')?.reserved, 150);
    assert.equal(balances.find((balance) => balance.currency === 'USDC')?.reserved, 150);
  });
});
