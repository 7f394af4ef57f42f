import { sql, type SQL } from 'drizzle-orm';
import { queryNamedRows, type Executor } from '../../db/client.ts';
import { newId } from '../../crypto/ids.ts';
import type { LedgerAccountKind } from '../../db/schema/index.ts';
import { negativeAllowed } from './postings.ts';

/**
 * Several postings of one kind (`source` → `destination`, one merchant, mode and currency) decided
 * and written by one statement, in the order given (decision 0055, the batched form of 0039's atomic
 * posting). The caller supplies:
 * - `before`: CTEs ending with one named `gate`, which locks what the change depends on and returns
 *   at most one row `(livemode boolean, currency text, capacity bigint)`: the mode and currency of
 *   the postings and how much may be moved in all (what is left to refund, say). No row: nothing is
 *   written, every member answers `verdict` null.
 * - `after`: the caller's writes (CTEs) over `accepted (ord int, take bigint)`, the members written.
 * - `report`: extra columns of every answer row (scalar subqueries over the caller's CTEs).
 * Each member in turn asks for `amount` (null: all the capacity left) and is accepted when it is at
 * least 1, fits in the capacity left after the members accepted before it, and the accounts' balances
 * after those members can take it (an overdraft of a non-negative account, ±largestBalance); a
 * refused member moves nothing and the next one is judged as if it had not asked.
 */
export interface AtomicBatchInput {
  /** Names the prepared statement: one name, one statement text (the members are one JSON parameter). */
  name: string;
  before: SQL;
  after: SQL;
  report: SQL;
  merchantId: string;
  kind: string;
  source: LedgerAccountKind;
  destination: LedgerAccountKind;
  members: ReadonlyArray<{ amount: number | null; reference: string; idempotencyKey: string; at: Date }>;
  largestBalance: number;
}

/** One answer row per member, in order. */
export interface AtomicBatchRow {
  ord: number;
  /** The gate returned a row. */
  condition_met: boolean;
  /** Both accounts exist (else nothing was written and every `verdict` is null). */
  accounts_ready: boolean;
  currency: string | null;
  /** `ok` (written), `amount` (below 1 or more than is left), `overdrawn`, `beyond_limit`; null without a gate row or accounts. */
  verdict: 'ok' | 'amount' | 'overdrawn' | 'beyond_limit' | null;
  /** What the member asked for (its amount, or all that was left). */
  take: number | null;
  /** The capacity left when its turn came. */
  left_before: number | null;
  /** Which account refused it (`overdrawn`, `beyond_limit`). */
  refused_account: LedgerAccountKind | null;
  /** Entry rows the whole statement wrote: two per accepted member. */
  written: number;
}

function batchStatement(input: AtomicBatchInput): SQL {
  const members = JSON.stringify(
    input.members.map((member, index) => ({
      ord: index + 1,
      amount: member.amount,
      transaction_id: newId('ledgerTransaction', member.at.getTime()),
      source_entry_id: newId('ledgerEntry', member.at.getTime()),
      destination_entry_id: newId('ledgerEntry', member.at.getTime()),
      reference: member.reference,
      idempotency_key: member.idempotencyKey,
      at: member.at.toISOString(),
    })),
  );
  const updatedAt = new Date(Math.max(...input.members.map((member) => member.at.getTime()))).toISOString();
  const limit = sql`${input.largestBalance}::bigint`;
  return sql`with recursive ${input.before},
    members as materialized (
      select * from json_to_recordset(${members}::json)
        as m(ord int, amount bigint, transaction_id text, source_entry_id text, destination_entry_id text, reference text, idempotency_key text, at timestamptz)
    ),
    locked as materialized (
      select id, currency, kind, balance from ledger_accounts
      where merchant_id = ${input.merchantId}::text and livemode = (select livemode from gate) and exists (select 1 from gate)
      order by currency, kind for update
    ),
    pair as materialized (
      select s.id as source_id, s.balance as source_balance, d.id as destination_id, d.balance as destination_balance
      from gate g
      join locked s on s.currency = g.currency and s.kind = ${input.source}::text
      join locked d on d.currency = g.currency and d.kind = ${input.destination}::text
    ),
    fold as (
      select 0 as ord, g.capacity::bigint as left_after, p.source_balance::bigint as source_after, p.destination_balance::bigint as destination_after,
             null::bigint as take, null::bigint as left_before, null::text as verdict
      from gate g cross join pair p
      union all
      select m.ord, f.left_after - v.moved, f.source_after - v.moved, f.destination_after + v.moved, v.take, f.left_after, v.verdict
      from fold f
      join members m on m.ord = f.ord + 1
      cross join lateral (select coalesce(m.amount, f.left_after) as take) t
      cross join lateral (
        select t.take,
               case when t.take < 1 or t.take > f.left_after then 'amount'
                    when ${!negativeAllowed.has(input.source)}::boolean and f.source_after - t.take < 0 then 'overdrawn'
                    when abs(f.source_after - t.take) > ${limit} then 'beyond_limit:source'
                    when abs(f.destination_after + t.take) > ${limit} then 'beyond_limit:destination'
                    else 'ok' end as verdict,
               case when t.take >= 1 and t.take <= f.left_after
                         and (not ${!negativeAllowed.has(input.source)}::boolean or f.source_after - t.take >= 0)
                         and abs(f.source_after - t.take) <= ${limit} and abs(f.destination_after + t.take) <= ${limit}
                    then t.take else 0 end as moved
      ) v
    ),
    accepted as materialized (
      select f.ord, f.take, m.transaction_id, m.source_entry_id, m.destination_entry_id, m.reference, m.idempotency_key, m.at
      from fold f join members m on m.ord = f.ord where f.verdict = 'ok'
    ),
    moved as materialized (select coalesce(sum(take), 0)::bigint as total from accepted),
    inserted as (
      insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
      select a.transaction_id, ${input.merchantId}::text, g.livemode, g.currency, ${input.kind}::text, a.reference, a.idempotency_key, a.at
      from accepted a cross join gate g
      returning id
    ),
    applied as (
      update ledger_accounts l
      set balance = l.balance + case when l.id = p.source_id then -(select total from moved) else (select total from moved) end,
          updated_at = ${updatedAt}::timestamptz
      from pair p
      where l.id in (p.source_id, p.destination_id) and exists (select 1 from accepted)
      returning l.id
    ),
    written as (
      insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at)
      select e.id, a.transaction_id, e.account_id, g.currency, e.amount, a.at
      from accepted a cross join gate g cross join pair p
      cross join lateral (values (a.source_entry_id, p.source_id, -a.take), (a.destination_entry_id, p.destination_id, a.take)) as e(id, account_id, amount)
      returning id
    ),
    ${input.after}
    select m.ord, exists (select 1 from gate) as condition_met, exists (select 1 from pair) as accounts_ready,
           (select currency from gate) as currency,
           split_part(f.verdict, ':', 1) as verdict, f.take::bigint as take, f.left_before::bigint as left_before,
           case f.verdict when 'overdrawn' then ${input.source}::text when 'beyond_limit:source' then ${input.source}::text
                          when 'beyond_limit:destination' then ${input.destination}::text end as refused_account,
           (select count(*)::int from written) as written,
           ${input.report}
    from members m left join fold f on f.ord = m.ord
    order by m.ord`;
}

/** Runs the batched posting statement; the rows come back one per member, in the members' order. */
export async function postAtomicallyInOrder<R extends object>(executor: Executor, input: AtomicBatchInput): Promise<Array<AtomicBatchRow & R>> {
  if (input.source === input.destination) {
    throw new Error('a posting moves between two accounts');
  }
  if (input.members.length === 0) {
    return [];
  }
  // bigint columns arrive as text from node-postgres' prepared statements, as numbers from PGlite.
  const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));
  const rows = (await queryNamedRows<AtomicBatchRow & R>(executor, `ledger_batch_${input.name}`, batchStatement(input))).map((row) => ({
    ...row,
    take: numberOrNull(row.take),
    left_before: numberOrNull(row.left_before),
  }));
  if (rows.length !== input.members.length) {
    throw new Error(`batched posting ${input.name}: ${rows.length} answer rows for ${input.members.length} members`);
  }
  const accepted = rows.filter((row) => row.verdict === 'ok').length;
  if (rows[0]?.condition_met && rows[0].accounts_ready && rows[0].written !== accepted * 2) {
    throw new Error(`batched posting ${input.name}: ${rows[0].written} entries written for ${accepted} postings`);
  }
  return rows;
}
