import assert from 'node:assert/strict';
import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type Database } from '../../src/db/client.ts';
import { checkLedger } from '../../src/modules/ledger/invariants.ts';
import { createTestContext, json, type TestContext, type TestMerchant } from './context.ts';

/**
 * The ledger's invariants (call it after every test file that moves money): the ledger module's own
 * check (`checkLedger`, which `paysail backup verify` runs too) finds no broken rule —
 * - every merchant, mode and currency sums to zero over its accounts;
 * - every transaction's entries sum to zero per currency, and it has at least two entries;
 * - every cached account balance equals the sum of its entries;
 * - no account other than `external` is below zero;
 * - each entry's currency is its account's and its transaction's.
 */
export async function assertLedgerInvariants(database: Database): Promise<{ transactions: number; entries: number }> {
  const { transactions, entries, problems } = await checkLedger(database.db);
  assert.deepEqual(problems, [], 'the ledger balances');
  return { transactions, entries };
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

/**
 * The same invariants as `assertLedgerInvariants`, for a test that checks them hundreds of times as
 * the ledger grows (the ledger model): each check reads only what changed since the previous one,
 * so a long run costs linear, not quadratic, time. What makes that exact is the ledger's own rule:
 * entries and transactions are insert-only (the `ledger_*_immutable` and `*_no_truncate` triggers,
 * which every check asserts are in place). So an entry or a transaction checked once stays right;
 * what can change is only (a) the set of rows, found by their `xmin` against the PostgreSQL
 * snapshot of the previous check, and (b) accounts, which are all read every time (a few per
 * merchant). Per rule:
 * - every merchant, mode and currency sums to zero, no non-external account below zero: all accounts;
 * - every cached balance equals the sum of its entries: all accounts, against the running sum of
 *   each account's entries (the previous sum plus the new entries, read in the same statement);
 * - every transaction's entries sum to zero per currency and it has at least two: the transactions
 *   that are new or gained an entry (an old one's entries cannot change);
 * - each entry's currency and owner are its account's and its transaction's: the new entries, and
 *   every entry of an account whose currency, merchant or mode changed since the last check.
 * The first check is the full `checkLedger` (and so is every check once transaction ids passed 2^32,
 * where `xmin` alone no longer orders them). The messages are checkLedger's.
 */
export function createLedgerWatch(database: Database): { check(): Promise<void>; problems(): Promise<string[]> } {
  let previous: string | undefined;
  const sums = new Map<string, number>();
  const owners = new Map<string, string>();
  const perRule = 10;
  const newer = (alias: string) => sql.raw(`not pg_visible_in_snapshot(${alias}.xmin::text::xid8, `);
  async function findProblems(): Promise<string[]> {
    const triggers = await queryRows<{ tgname: string }>(
      database.db,
      sql`select tgname from pg_trigger where tgname in ('ledger_entries_immutable', 'ledger_entries_no_truncate', 'ledger_transactions_immutable', 'ledger_transactions_no_truncate') and tgenabled <> 'D'`,
    );
    assert.equal(triggers.length, 4, 'ledger entries and transactions are insert-only (the incremental check relies on it)');
    // One statement: the accounts, each one's entries added since the previous snapshot, and this
    // statement's snapshot (what the next check counts from).
    const accounts = await queryRows<{ snapshot: string; id: string; merchant_id: string; livemode: boolean; currency: string; kind: string; balance: number | string; added: number | string }>(
      database.db,
      previous === undefined
        ? sql`select pg_current_snapshot()::text as snapshot, a.id, a.merchant_id, a.livemode, a.currency, a.kind, a.balance, coalesce(d.added, 0)::bigint as added
              from ledger_accounts a left join (select account_id, sum(amount) as added from ledger_entries group by account_id) d on d.account_id = a.id`
        : sql`select pg_current_snapshot()::text as snapshot, a.id, a.merchant_id, a.livemode, a.currency, a.kind, a.balance, coalesce(d.added, 0)::bigint as added
              from ledger_accounts a left join (select account_id, sum(amount) as added from ledger_entries e where ${newer('e')}${previous}::pg_snapshot) group by account_id) d on d.account_id = a.id`,
    );
    const snapshot = accounts[0]?.snapshot ?? (await queryRows<{ snapshot: string }>(database.db, sql`select pg_current_snapshot()::text as snapshot`))[0]?.snapshot;
    assert.ok(snapshot);
    const problems: string[] = [];
    if (previous === undefined || BigInt(snapshot.split(':')[1] ?? '0') >= 2n ** 32n) {
      // The first check, or transaction ids past 2^32 (xmin alone no longer orders them): the full check.
      problems.push(...(await checkLedger(database.db, perRule)).problems);
      if (previous !== undefined) {
        return problems;
      }
    }
    const totals = new Map<string, number>();
    const moved: string[] = [];
    for (const account of accounts) {
      const sum = (sums.get(account.id) ?? 0) + Number(account.added);
      sums.set(account.id, sum);
      if (Number(account.balance) !== sum) {
        problems.push(`ledger account ${account.id} holds ${account.balance}, but its entries sum to ${sum}`);
      }
      if (account.kind !== 'external' && Number(account.balance) < 0) {
        problems.push(`ledger account ${account.id} (${account.kind}) is below zero: ${account.balance}`);
      }
      const ledger = `${account.merchant_id}/${account.livemode}/${account.currency}`;
      totals.set(ledger, (totals.get(ledger) ?? 0) + Number(account.balance));
      if (owners.has(account.id) && owners.get(account.id) !== ledger) {
        moved.push(account.id);
      }
      owners.set(account.id, ledger);
    }
    for (const [ledger, total] of totals) {
      if (total !== 0) {
        const [merchantId, livemode, currency] = ledger.split('/');
        problems.push(`the ${livemode === 'true' ? 'live' : 'sandbox'} ${currency} ledger of ${merchantId} sums to ${total}, not zero`);
      }
    }
    if (previous !== undefined) {
      // The rows added since the previous check (one scan of each table), then the rules on them by their ids.
      const added = await queryRows<{ kind: 'entry' | 'transaction'; id: string; transaction_id: string }>(
        database.db,
        sql`select 'entry' as kind, id, transaction_id from ledger_entries e where ${newer('e')}${previous}::pg_snapshot)
            union all select 'transaction' as kind, id, id as transaction_id from ledger_transactions t where ${newer('t')}${previous}::pg_snapshot)`,
      );
      const ids = (values: Iterable<string>) => sql`(select jsonb_array_elements_text(${JSON.stringify([...new Set(values)])}::jsonb))`;
      const touched = ids(added.map((row) => row.transaction_id));
      const entries = ids(added.filter((row) => row.kind === 'entry').map((row) => row.id));
      const rule = async <Row>(query: SQL, describe: (row: Row) => string) => {
        const rows = await queryRows<Row>(database.db, sql`${query} limit ${perRule}`);
        problems.push(...rows.map(describe));
      };
      if (added.length > 0) {
        await rule<{ transaction_id: string; currency: string; total: number }>(
          sql`select transaction_id, currency, sum(amount)::bigint as total from ledger_entries
              where transaction_id in ${touched} group by transaction_id, currency having sum(amount) <> 0 order by transaction_id`,
          (row) => `ledger transaction ${row.transaction_id}: its ${row.currency} entries sum to ${row.total}, not zero`,
        );
        await rule<{ id: string; entries: number }>(
          sql`select t.id, count(e.id)::int as entries from ledger_transactions t left join ledger_entries e on e.transaction_id = t.id
              where t.id in ${touched} group by t.id having count(e.id) < 2 order by t.id`,
          (row) => `ledger transaction ${row.id} has ${row.entries} entries, fewer than two`,
        );
      }
      if (added.length > 0 || moved.length > 0) {
        await rule<{ id: string }>(
          sql`select e.id from ledger_entries e join ledger_accounts a on a.id = e.account_id join ledger_transactions t on t.id = e.transaction_id
              where (e.id in ${entries} or e.account_id in ${ids(moved)})
                and (e.currency <> a.currency or e.currency <> t.currency or a.merchant_id <> t.merchant_id or a.livemode <> t.livemode) order by e.id`,
          (row) => `ledger entry ${row.id} leaves its transaction's owner or currency`,
        );
      }
    }
    previous = snapshot;
    return [...new Set(problems)];
  }
  return {
    problems: findProblems,
    async check() {
      assert.deepEqual(await findProblems(), [], 'the ledger balances');
    },
  };
}

export type BalanceBody = { currency: string; livemode: boolean; available: number; reserved: number; inFlight: number };

/** A balance suite's `before`: a test context with a sandbox-only merchant and a live-enabled one. */
export async function openBalanceSuite(): Promise<{ context: TestContext; merchant: TestMerchant; live: TestMerchant }> {
  const context = await createTestContext();
  return { context, merchant: await context.createMerchant(), live: await context.createMerchant({ live: true }) };
}

/** A balance suite's `after`: the ledger still balances, then the context closes. */
export async function closeBalanceSuite(context: TestContext): Promise<void> {
  await assertLedgerInvariants(context.database);
  await context.close();
}

/** GET /v1/balance with a key (200 asserted); `current` is read at each call. */
export function balanceReader(current: () => TestContext) {
  return async function balances(apiKey: string, query = '?livemode=false'): Promise<BalanceBody[]> {
    const response = await current().request({ method: 'GET', url: `/v1/balance${query}`, apiKey });
    assert.equal(response.statusCode, 200, response.body);
    return json<{ data: BalanceBody[] }>(response).data;
  };
}
