import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Executor } from '../../db/client.ts';

export interface LedgerCheck {
  transactions: number;
  entries: number;
  /** One line per broken rule and row (at most `perRule` each); empty when the ledger balances. */
  problems: string[];
}

/**
 * The ledger's invariants, checked straight in SQL over the whole database (read-only): what a
 * restored or copied database must satisfy before it is trusted (`paysail backup verify`), and what
 * the tests assert after every file that moves money.
 * - every merchant, mode and currency sums to zero over its accounts (the outside world included);
 * - every transaction's entries sum to zero per currency, and it has at least two entries;
 * - every cached account balance equals the sum of its entries;
 * - no account other than `external` is below zero;
 * - each entry's currency and owner are its account's and its transaction's.
 */
export async function checkLedger(executor: Executor, perRule = 10): Promise<LedgerCheck> {
  const problems: string[] = [];
  const rule = async <Row>(query: SQL, describe: (row: Row) => string) => {
    const rows = await queryRows<Row>(executor, sql`${query} limit ${perRule}`);
    problems.push(...rows.map(describe));
  };
  await rule<{ merchant_id: string; livemode: boolean; currency: string; total: number }>(
    sql`select merchant_id, livemode, currency, sum(balance)::bigint as total from ledger_accounts
        group by merchant_id, livemode, currency having sum(balance) <> 0 order by merchant_id, livemode, currency`,
    (row) => `the ${row.livemode ? 'live' : 'sandbox'} ${row.currency} ledger of ${row.merchant_id} sums to ${row.total}, not zero`,
  );
  await rule<{ transaction_id: string; currency: string; total: number }>(
    sql`select transaction_id, currency, sum(amount)::bigint as total from ledger_entries
        group by transaction_id, currency having sum(amount) <> 0 order by transaction_id`,
    (row) => `ledger transaction ${row.transaction_id}: its ${row.currency} entries sum to ${row.total}, not zero`,
  );
  await rule<{ id: string; entries: number }>(
    sql`select t.id, count(e.id)::int as entries from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
        group by t.id having count(e.id) < 2 order by t.id`,
    (row) => `ledger transaction ${row.id} has ${row.entries} entries, fewer than two`,
  );
  await rule<{ id: string; balance: number; total: number }>(
    sql`select a.id, a.balance, coalesce(sum(e.amount), 0)::bigint as total from ledger_accounts a left join ledger_entries e on e.account_id = a.id
        group by a.id, a.balance having a.balance <> coalesce(sum(e.amount), 0) order by a.id`,
    (row) => `ledger account ${row.id} holds ${row.balance}, but its entries sum to ${row.total}`,
  );
  await rule<{ id: string; kind: string; balance: number }>(
    sql`select id, kind, balance from ledger_accounts where kind <> 'external' and balance < 0 order by id`,
    (row) => `ledger account ${row.id} (${row.kind}) is below zero: ${row.balance}`,
  );
  await rule<{ id: string }>(
    sql`select e.id from ledger_entries e join ledger_accounts a on a.id = e.account_id join ledger_transactions t on t.id = e.transaction_id
        where e.currency <> a.currency or e.currency <> t.currency or a.merchant_id <> t.merchant_id or a.livemode <> t.livemode order by e.id`,
    (row) => `ledger entry ${row.id} leaves its transaction's owner or currency`,
  );
  const [counts] = await queryRows<{ transactions: number; entries: number }>(
    executor,
    sql`select (select count(*) from ledger_transactions)::int as transactions, (select count(*) from ledger_entries)::int as entries`,
  );
  return { transactions: counts?.transactions ?? 0, entries: counts?.entries ?? 0, problems };
}
