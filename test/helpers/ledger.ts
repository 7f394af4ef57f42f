import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';

/**
 * The ledger's invariants, checked straight in SQL (call it after every test file that moves money):
 * - every transaction's entries sum to zero per currency, and it has at least two entries;
 * - every cached account balance equals the sum of its entries;
 * - no account other than `external` is below zero;
 * - each entry's currency is its account's and its transaction's.
 */
export async function assertLedgerInvariants(database: Database): Promise<{ transactions: number; entries: number }> {
  const unbalanced = await queryRows<{ transaction_id: string; currency: string; total: number }>(
    database.db,
    sql`select transaction_id, currency, sum(amount)::bigint as total from ledger_entries group by transaction_id, currency having sum(amount) <> 0`,
  );
  assert.deepEqual(unbalanced, [], 'every ledger transaction sums to zero per currency');

  const thin = await queryRows<{ id: string }>(
    database.db,
    sql`select t.id from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id group by t.id having count(e.id) < 2`,
  );
  assert.deepEqual(thin, [], 'every ledger transaction has at least two entries');

  const drifted = await queryRows<{ id: string; balance: number; total: number }>(
    database.db,
    sql`select a.id, a.balance, coalesce(sum(e.amount), 0)::bigint as total
        from ledger_accounts a left join ledger_entries e on e.account_id = a.id
        group by a.id, a.balance having a.balance <> coalesce(sum(e.amount), 0)`,
  );
  assert.deepEqual(drifted, [], 'every cached balance equals the sum of its entries');

  const negative = await queryRows<{ id: string; kind: string; balance: number }>(database.db, sql`select id, kind, balance from ledger_accounts where kind <> 'external' and balance < 0`);
  assert.deepEqual(negative, [], 'no balance other than the outside world is negative');

  const mismatched = await queryRows<{ id: string }>(
    database.db,
    sql`select e.id from ledger_entries e join ledger_accounts a on a.id = e.account_id join ledger_transactions t on t.id = e.transaction_id
        where e.currency <> a.currency or e.currency <> t.currency or a.merchant_id <> t.merchant_id or a.livemode <> t.livemode`,
  );
  assert.deepEqual(mismatched, [], 'entries stay within their transaction’s owner and currency');

  const [counts] = await queryRows<{ transactions: number; entries: number }>(
    database.db,
    sql`select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from ledger_entries)::int as entries`,
  );
  return counts ?? { transactions: 0, entries: 0 };
}

export interface BalanceRow {
  available: number;
  reserved: number;
  inFlight: number;
  external: number;
}

/** The four account balances of one merchant, mode and currency, straight from the table. */
export async function balanceOf(database: Database, merchantId: string, livemode: boolean, currency: string): Promise<BalanceRow> {
  const rows = await queryRows<{ kind: string; balance: number }>(
    database.db,
    sql`select kind, balance from ledger_accounts where merchant_id = ${merchantId} and livemode = ${livemode} and currency = ${currency}`,
  );
  const of = (kind: string) => Number(rows.find((row) => row.kind === kind)?.balance ?? 0);
  return { available: of('available'), reserved: of('reserved'), inFlight: of('in_flight'), external: of('external') };
}
