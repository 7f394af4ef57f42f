import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../../src/db/client.ts';
import { checkLedger } from '../../../src/modules/ledger/invariants.ts';
import { createTestContext, type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { createLedgerWatch } from '../../helpers/ledger.ts';

/**
 * The ledger model checks the ledger's invariants hundreds of times through `createLedgerWatch`,
 * which reads only what changed since its previous check. It must find what the full check
 * (`checkLedger`) finds: here every rule is broken at once, behind the triggers' back, after two
 * clean checks, and the two lists of problems must be the same.
 */
describe('the incremental ledger check finds what the full check finds', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => {
    context = await createTestContext();
    merchant = await context.createMerchant();
  });
  after(async () => context.close());

  const fund = async (currency: 'USD' | 'USDC', amount: number) => {
    const response = await context.request({ method: 'POST', url: '/v1/test_helpers/balance/fund?livemode=false', apiKey: merchant.apiKey, body: { currency, amount } });
    assert.equal(response.statusCode, 200, response.body);
  };

  test('clean checks pass; then a changed balance, a one-sided and an empty transaction, an entry in the wrong currency and an account moved to another currency are all reported', async () => {
    const watch = createLedgerWatch(context.database);
    await fund('USDC', 1_000);
    await watch.check();
    await fund('USD', 2_000);
    await fund('USDC', 3_000);
    await watch.check();
    assert.deepEqual(await watch.problems(), [], 'nothing changed since the last check');

    const accounts = await queryRows<{ id: string; currency: string; kind: string }>(
      context.database.db,
      sql`select id, currency, kind from ledger_accounts where merchant_id = ${merchant.id} and livemode = false order by currency, kind`,
    );
    const account = (currency: string, kind: string) => {
      const found = accounts.find((row) => row.currency === currency && row.kind === kind);
      assert.ok(found, `${currency} ${kind}`);
      return found.id;
    };
    // Triggers off for this transaction only (the zero-sum trigger would refuse the one-sided transaction).
    await context.database.transaction(async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`update ledger_accounts set balance = balance + 5 where id = ${account('USDC', 'available')}`);
      await tx.execute(sql`insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
                           values ('ltx_watch_one_sided', ${merchant.id}, false, 'USD', 'fund', null, 'watch-one-sided', now())`);
      await tx.execute(sql`insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at)
                           values ('len_watch_one_sided', 'ltx_watch_one_sided', ${account('USDC', 'reserved')}, 'USD', 7, now())`);
      await tx.execute(sql`insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
                           values ('ltx_watch_empty', ${merchant.id}, false, 'USD', 'fund', null, 'watch-empty', now())`);
      // An account whose entries were written in USD now says EUR: its old entries leave their account's currency.
      await tx.execute(sql`update ledger_accounts set currency = 'EUR' where id = ${account('USD', 'external')}`);
    });

    const full = (await checkLedger(context.database.db)).problems;
    for (const broken of [/sums to -?\d+, not zero/, /its USD entries sum to 7, not zero/, /ltx_watch_one_sided has 1 entries, fewer than two/, /ltx_watch_empty has 0 entries, fewer than two/, /holds \d+, but its entries sum to \d+/, /leaves its transaction's owner or currency/]) {
      assert.ok(
        full.some((problem) => broken.test(problem)),
        `the full check reports ${broken}: ${JSON.stringify(full)}`,
      );
    }
    assert.deepEqual([...(await watch.problems())].sort(), [...full].sort());
    await assert.rejects(watch.check(), /the ledger balances/);
  });
});
