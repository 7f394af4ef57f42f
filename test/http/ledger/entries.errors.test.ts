import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sql } from 'drizzle-orm';
import { type TestContext, type TestMerchant } from '../../helpers/context.ts';
import { queryRows } from '../../../src/db/client.ts';
import { balanceReader, closeBalanceSuite, openBalanceSuite } from '../../helpers/ledger.ts';

/** drizzle wraps driver errors ("Failed query: …"); the database's own message is the cause. */
function causedBy(pattern: RegExp) {
  return (error: unknown): boolean => {
    let current: unknown = error;
    while (current instanceof Error) {
      if (pattern.test(current.message)) {
        return true;
      }
      current = current.cause;
    }
    return false;
  };
}

describe('ledger rows: what the database refuses', () => {
  let context: TestContext;
  let merchant: TestMerchant;

  before(async () => ({ context, merchant } = await openBalanceSuite()));
  after(async () => closeBalanceSuite(context));

  const balances = balanceReader(() => context);

  test('the database refuses to change or delete ledger rows, to commit an unbalanced transaction, or to overdraw', async () => {
    const [entry] = await queryRows<{ id: string; transaction_id: string }>(context.database.db, sql`select id, transaction_id from ledger_entries limit 1`);
    assert.ok(entry);
    await assert.rejects(context.database.db.execute(sql`update ledger_entries set amount = amount + 1 where id = ${entry.id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`delete from ledger_entries where id = ${entry.id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`delete from ledger_transactions where id = ${entry.transaction_id}`), causedBy(/immutable/));
    await assert.rejects(context.database.db.execute(sql`truncate ledger_entries`), causedBy(/immutable/));

    const [account] = await queryRows<{ id: string; merchant_id: string }>(
      context.database.db,
      sql`select id, merchant_id from ledger_accounts where merchant_id = ${merchant.id} and livemode = false and currency = 'USDC' and kind = 'available'`,
    );
    assert.ok(account);
    await assert.rejects(
      context.database.transaction(async (tx) => {
        const now = context.clock.now();
        await tx.execute(sql`insert into ledger_transactions (id, merchant_id, livemode, currency, kind, idempotency_key, created_at)
          values ('ltx_unbalanced', ${account.merchant_id}, false, 'USDC', 'fund', 'unbalanced-test', ${now})`);
        await tx.execute(sql`insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at) values ('len_unbalanced', 'ltx_unbalanced', ${account.id}, 'USDC', 5, ${now})`);
      }),
      causedBy(/does not balance/),
    );
    await assert.rejects(context.database.db.execute(sql`update ledger_accounts set balance = -1 where id = ${account.id}`), causedBy(/ledger_accounts_no_overdraft/));
    assert.equal((await balances(merchant.apiKey))[0]?.available, 100_000_000);
  });
});
