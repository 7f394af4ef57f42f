import { sql, type SQL } from 'drizzle-orm';
import { negativeAllowed, type Entry, type LedgerCurrency } from './postings.ts';

/** A data-modifying statement ending in `returning …` that a posting waits for: it happens only when that statement returns a row. */
export interface PostCondition {
  /** Names the prepared statement: one name, one condition text (its parameters may change). */
  name: string;
  statement: SQL;
}

export interface PostStatementInput {
  transactionId: string;
  merchantId: string;
  livemode: boolean;
  currency: LedgerCurrency;
  kind: string;
  reference: string | null;
  idempotencyKey: string;
  /** Netted entries in account-kind order, each with the id its entry row gets. */
  entries: ReadonlyArray<{ entry: Entry; entryId: string }>;
  now: Date;
  /** Lock every account of the merchant in this mode first (the transaction's first posting for them). */
  lockAccounts: boolean;
  condition?: PostCondition | undefined;
  largestBalance: number;
}

/** What one posting statement did. */
export interface PostStatementResult {
  /** The condition returned a row (always true without one). */
  condition_met: boolean;
  /** Every account the entries touch exists (else nothing was written but the condition's effect). */
  accounts_ready: boolean;
  /** The ledger transaction was inserted (false: its idempotency key exists, or nothing was ready). */
  inserted: boolean;
  /** The account kinds whose balance took its entry, comma-separated; null when none did. */
  applied: string | null;
  /** Entry rows written: all of them, or none when an account refused its entry. */
  written: number;
}

export function postStatementName(input: Pick<PostStatementInput, 'lockAccounts' | 'condition'>): string {
  return `ledger_post_${input.lockAccounts ? 'lock' : 'held'}${input.condition ? `_${input.condition.name}` : ''}`;
}

/**
 * One posting as one statement (one round trip while the merchant's accounts are locked), doing in
 * order what `post` used to do in five:
 * 1. `gate`: the caller's condition (e.g. a payment's conditional `refunded_amount` UPDATE), so its
 *    row lock is taken before the account locks, as in every other path;
 * 2. `locked`: every account of the merchant in this mode, locked in one order (currency, kind), all
 *    of them before any balance changes (`ready` counts them, which reads them all, and every later
 *    step waits on `ready` through an uncorrelated EXISTS: a one-time filter evaluated before its
 *    step reads a row);
 * 3. `inserted`: the ledger transaction, only when the condition held and every account exists,
 *    idempotent on its key;
 * 4. `applied`: each balance by a conditional UPDATE that refuses an overdraft of a non-negative
 *    account and a balance beyond `largestBalance`;
 * 5. `written`: the entries, only when every balance took its entry (the commit-time zero-sum trigger
 *    and the CHECKs still stand behind this).
 * A refused entry leaves the ledger transaction and the other balances changed: the caller throws and
 * the transaction rolls back, as before.
 */
export function postStatement(input: PostStatementInput): SQL {
  const at = input.now.toISOString();
  const wanted = JSON.stringify(
    input.entries.map(({ entry, entryId }) => ({ kind: entry.account, amount: entry.amount, entry_id: entryId, negative_allowed: negativeAllowed.has(entry.account) })),
  );
  const gate = input.condition ? sql`gate as (${input.condition.statement}),` : sql``;
  const conditionMet = input.condition ? sql`exists (select 1 from gate)` : sql`true`;
  const lock = input.lockAccounts ? sql`for update` : sql``;
  return sql`with ${gate}
    locked as materialized (
      select id, currency, kind from ledger_accounts
      where merchant_id = ${input.merchantId}::text and livemode = ${input.livemode}::boolean and ${conditionMet}
      order by currency, kind ${lock}
    ),
    wanted as materialized (
      select w.kind, w.amount, w.entry_id, w.negative_allowed, a.id as account_id
      from json_to_recordset(${wanted}::json) as w(kind text, amount bigint, entry_id text, negative_allowed boolean)
      left join locked a on a.currency = ${input.currency}::text and a.kind = w.kind
    ),
    ready as materialized (
      select ${conditionMet} as condition_met, coalesce(bool_and(account_id is not null), false) as accounts_ready,
             count(*)::int as wanted, (select count(*)::int from locked) as locked
      from wanted
    ),
    inserted as (
      insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
      select ${input.transactionId}::text, ${input.merchantId}::text, ${input.livemode}::boolean, ${input.currency}::text, ${input.kind}::text,
             ${input.reference}::text, ${input.idempotencyKey}::text, ${at}::timestamptz
      from ready where ready.condition_met and ready.accounts_ready and ready.locked > 0
      on conflict (idempotency_key) do nothing
      returning id
    ),
    applied as (
      update ledger_accounts a set balance = a.balance + w.amount, updated_at = ${at}::timestamptz
      from wanted w
      where a.id = w.account_id and exists (select 1 from inserted)
        and (w.negative_allowed or a.balance + w.amount >= 0)
        and abs(a.balance + w.amount) <= ${input.largestBalance}::bigint
      returning a.id, w.kind, w.amount, w.entry_id
    ),
    written as (
      insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at)
      select entry_id, ${input.transactionId}::text, id, ${input.currency}::text, amount, ${at}::timestamptz from applied
      where (select count(*) from applied) = (select wanted from ready)
      returning id
    )
    select ready.condition_met, ready.accounts_ready, exists (select 1 from inserted) as inserted,
           (select string_agg(kind, ',') from applied) as applied, (select count(*)::int from written) as written
    from ready`;
}
