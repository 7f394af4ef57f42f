import { sql, type SQL } from 'drizzle-orm';
import { negativeAllowed, type Entry } from './postings.ts';

/**
 * A caller's business change and a ledger posting as one statement that decides first and then
 * writes everything or nothing (decision 0039), so it may run on its own, outside a transaction: one
 * round trip and its commit. The caller supplies:
 * - `before`: CTEs ending with one named `gate`, which locks what the change depends on (a
 *   `select … for update`) and returns at most one row `(livemode boolean, currency text, amount
 *   bigint)`: the mode and currency of the posting and the amount its entries are scaled by. No row:
 *   nothing is posted or written.
 * - `after`: the caller's writes (CTEs), each conditioned on `exists (select 1 from ok)`: they run
 *   only when the posting is written, and `ok` holds only when every check passed.
 * - `report`: extra columns of the answer row (scalar subqueries over the caller's CTEs).
 */
export interface AtomicPostInput {
  /** Names the prepared statement: one name, one statement text (its parameters may change). */
  name: string;
  before: SQL;
  after: SQL;
  report: SQL;
  transactionId: string;
  merchantId: string;
  kind: string;
  reference: string | null;
  idempotencyKey: string;
  /** Netted entries of a posting of 1 minor unit (each scaled by the gate's `amount`), with the id its entry row gets. */
  unitEntries: ReadonlyArray<{ entry: Entry; entryId: string }>;
  now: Date;
  largestBalance: number;
}

/** The ledger's part of the answer row (the caller's `report` columns come with it). */
export interface AtomicPostResult {
  /** The gate returned a row. */
  condition_met: boolean;
  /** Every account the entries touch exists (else nothing was written). */
  accounts_ready: boolean;
  /** Non-negative accounts that would go below zero, comma-separated; null when none would. */
  overdrawn: string | null;
  /** Accounts that would go beyond ±largestBalance, comma-separated; null when none would. */
  beyond_limit: string | null;
  /** The gate's currency (null without a gate row). */
  currency: string | null;
  /** Entry rows written: all of them, or none. */
  written: number;
}

/**
 * The statement, in order:
 * 1. the caller's `before` CTEs and `gate` (its row locks come first, as in every other path);
 * 2. `locked`: every account of the merchant in the gate's mode, locked in one order (currency,
 *    kind) with their balances, reached only when the gate returned a row (an uncorrelated EXISTS:
 *    a one-time filter evaluated before the scan reads a row);
 * 3. `wanted` and `decision`: each entry against its account's locked balance: a missing account,
 *    an overdraft of a non-negative account, a balance beyond the limit;
 * 4. `ok` (one row only when the gate held and every check passed) and, only then, the ledger
 *    transaction, the balances, the entries and the caller's `after` writes.
 * A duplicate idempotency key or any constraint fails the whole statement (nothing written); the
 * immutability triggers, the commit-time zero-sum trigger and the CHECKs still stand behind it.
 */
export function atomicPostStatement(input: AtomicPostInput): SQL {
  const at = input.now.toISOString();
  const wanted = JSON.stringify(
    input.unitEntries.map(({ entry, entryId }) => ({ kind: entry.account, unit: entry.amount, entry_id: entryId, negative_allowed: negativeAllowed.has(entry.account) })),
  );
  return sql`with ${input.before},
    locked as materialized (
      select id, currency, kind, balance from ledger_accounts
      where merchant_id = ${input.merchantId}::text and livemode = (select livemode from gate) and exists (select 1 from gate)
      order by currency, kind for update
    ),
    wanted as materialized (
      select w.kind, w.unit * g.amount as amount, w.entry_id, w.negative_allowed, a.id as account_id, a.balance
      from gate g
      cross join json_to_recordset(${wanted}::json) as w(kind text, unit bigint, entry_id text, negative_allowed boolean)
      left join locked a on a.currency = g.currency and a.kind = w.kind
    ),
    decision as materialized (
      select exists (select 1 from gate) as condition_met,
             coalesce(bool_and(account_id is not null), false) as accounts_ready,
             string_agg(kind, ',') filter (where account_id is not null and not negative_allowed and balance + amount < 0) as overdrawn,
             string_agg(kind, ',') filter (where account_id is not null and abs(balance + amount) > ${input.largestBalance}::bigint) as beyond_limit
      from wanted
    ),
    ok as materialized (
      select 1 from decision where condition_met and accounts_ready and overdrawn is null and beyond_limit is null
    ),
    inserted as (
      insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
      select ${input.transactionId}::text, ${input.merchantId}::text, g.livemode, g.currency, ${input.kind}::text,
             ${input.reference}::text, ${input.idempotencyKey}::text, ${at}::timestamptz
      from gate g where exists (select 1 from ok)
      returning id
    ),
    applied as (
      update ledger_accounts a set balance = a.balance + w.amount, updated_at = ${at}::timestamptz
      from wanted w
      where a.id = w.account_id and exists (select 1 from ok)
      returning a.id
    ),
    written as (
      insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at)
      select w.entry_id, ${input.transactionId}::text, w.account_id, g.currency, w.amount, ${at}::timestamptz
      from wanted w cross join gate g where exists (select 1 from ok)
      returning id
    ),
    ${input.after}
    select d.condition_met, d.accounts_ready, d.overdrawn, d.beyond_limit,
           (select currency from gate) as currency, (select count(*)::int from written) as written,
           ${input.report}
    from decision d`;
}
