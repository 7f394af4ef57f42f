import { sql, type SQL } from 'drizzle-orm';
import { queryNamedRows, type Executor } from '../../db/client.ts';
import { numberedGroupRows } from '../../db/recordset.ts';
import { newId } from '../../crypto/ids.ts';
import type { LedgerAccountKind } from '../../db/schema/index.ts';
import { negativeAllowed } from './postings.ts';

/**
 * Postings of one kind (`source` → `destination`) in groups, each group one merchant (no two groups
 * of one merchant), mode and currency, decided and written by one statement, each group's members in
 * the order given (decisions 0055 and 0069, the batched form of 0039's atomic posting). The caller
 * supplies:
 * - `before`: CTEs ending with one named `gate`, which locks what each group's change depends on and
 *   returns at most one row per group `(grp int, livemode boolean, currency text, capacity bigint)`:
 *   the group's number (1, 2, … in the order of `groups`), the mode and currency of its postings and
 *   how much may be moved in all (what is left to refund, say). No row: nothing of that group is
 *   written, its members answer `verdict` null.
 * - `after`: the caller's writes (CTEs) over `accepted (grp int, ord int, take bigint)`, the members
 *   written.
 * - `report`: extra columns of every answer row (scalar subqueries over the caller's CTEs; `m.grp` is
 *   the member's group).
 * Each member of a group in turn asks for `amount` (null: all the capacity left) and is accepted when
 * it is at least 1, fits in the capacity left after the members accepted before it, and the accounts'
 * balances after those members can take it (an overdraft of a non-negative account, ±largestBalance);
 * a refused member moves nothing and the next one is judged as if it had not asked. Groups are
 * independent: their merchants' accounts are disjoint.
 */
export interface AtomicBatchInput {
  /** Names the prepared statement: one name, one statement text (the groups and members are JSON parameters). */
  name: string;
  before: SQL;
  after: SQL;
  report: SQL;
  kind: string;
  source: LedgerAccountKind;
  destination: LedgerAccountKind;
  groups: ReadonlyArray<{ merchantId: string; members: ReadonlyArray<{ amount: number | null; reference: string; idempotencyKey: string; at: Date }> }>;
  largestBalance: number;
}

/** One answer row per member, by group and then in the members' order. */
export interface AtomicBatchRow {
  grp: number;
  ord: number;
  /** The gate returned a row for the member's group. */
  condition_met: boolean;
  /** Both accounts of the group exist (else nothing of the group was written and its `verdict`s are null). */
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
  const members = numberedGroupRows(
    input.groups,
    (group) => group.members,
    (member) => ({
      amount: member.amount,
      transaction_id: newId('ledgerTransaction', member.at.getTime()),
      source_entry_id: newId('ledgerEntry', member.at.getTime()),
      destination_entry_id: newId('ledgerEntry', member.at.getTime()),
      reference: member.reference,
      idempotency_key: member.idempotencyKey,
      at: member.at.toISOString(),
    }),
  );
  const owners = JSON.stringify(input.groups.map((group, groupIndex) => ({ grp: groupIndex + 1, merchant_id: group.merchantId })));
  const updatedAt = new Date(Math.max(...input.groups.flatMap((group) => group.members.map((member) => member.at.getTime())))).toISOString();
  const limit = sql`${input.largestBalance}::bigint`;
  return sql`with recursive ${input.before},
    members as materialized (
      select * from json_to_recordset(${members}::json)
        as m(grp int, ord int, amount bigint, transaction_id text, source_entry_id text, destination_entry_id text, reference text, idempotency_key text, at timestamptz)
    ),
    owners as materialized (
      select o.grp, o.merchant_id, g.livemode, g.currency, g.capacity
      from json_to_recordset(${owners}::json) as o(grp int, merchant_id text) join gate g on g.grp = o.grp
    ),
    locked as materialized (
      select id, merchant_id, livemode, currency, kind, balance from ledger_accounts
      where (merchant_id, livemode) in (select merchant_id, livemode from owners)
      order by merchant_id, currency, kind for update
    ),
    pair as materialized (
      select o.grp, s.id as source_id, s.balance as source_balance, d.id as destination_id, d.balance as destination_balance
      from owners o
      join locked s on s.merchant_id = o.merchant_id and s.livemode = o.livemode and s.currency = o.currency and s.kind = ${input.source}::text
      join locked d on d.merchant_id = o.merchant_id and d.livemode = o.livemode and d.currency = o.currency and d.kind = ${input.destination}::text
    ),
    fold as (
      select o.grp, 0 as ord, o.capacity::bigint as left_after, p.source_balance::bigint as source_after, p.destination_balance::bigint as destination_after,
             null::bigint as take, null::bigint as left_before, null::text as verdict
      from owners o join pair p on p.grp = o.grp
      union all
      select f.grp, m.ord, f.left_after - v.moved, f.source_after - v.moved, f.destination_after + v.moved, v.take, f.left_after, v.verdict
      from fold f
      join members m on m.grp = f.grp and m.ord = f.ord + 1
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
      select f.grp, f.ord, f.take, m.transaction_id, m.source_entry_id, m.destination_entry_id, m.reference, m.idempotency_key, m.at
      from fold f join members m on m.grp = f.grp and m.ord = f.ord where f.verdict = 'ok'
    ),
    moved as materialized (select grp, sum(take)::bigint as total from accepted group by grp),
    inserted as (
      insert into ledger_transactions (id, merchant_id, livemode, currency, kind, reference, idempotency_key, created_at)
      select a.transaction_id, o.merchant_id, o.livemode, o.currency, ${input.kind}::text, a.reference, a.idempotency_key, a.at
      from accepted a join owners o on o.grp = a.grp
      returning id
    ),
    applied as (
      update ledger_accounts l
      set balance = l.balance + case when l.id = p.source_id then -t.total else t.total end,
          updated_at = ${updatedAt}::timestamptz
      from pair p join moved t on t.grp = p.grp
      where l.id in (p.source_id, p.destination_id)
      returning l.id
    ),
    written as (
      insert into ledger_entries (id, transaction_id, account_id, currency, amount, created_at)
      select e.id, a.transaction_id, e.account_id, o.currency, e.amount, a.at
      from accepted a join owners o on o.grp = a.grp join pair p on p.grp = a.grp
      cross join lateral (values (a.source_entry_id, p.source_id, -a.take), (a.destination_entry_id, p.destination_id, a.take)) as e(id, account_id, amount)
      returning id
    ),
    ${input.after}
    select m.grp, m.ord, exists (select 1 from owners o where o.grp = m.grp) as condition_met, exists (select 1 from pair p where p.grp = m.grp) as accounts_ready,
           (select currency from owners o where o.grp = m.grp) as currency,
           split_part(f.verdict, ':', 1) as verdict, f.take::bigint as take, f.left_before::bigint as left_before,
           case f.verdict when 'overdrawn' then ${input.source}::text when 'beyond_limit:source' then ${input.source}::text
                          when 'beyond_limit:destination' then ${input.destination}::text end as refused_account,
           (select count(*)::int from written) as written,
           ${input.report}
    from members m left join fold f on f.grp = m.grp and f.ord = m.ord
    order by m.grp, m.ord`;
}

/** Runs the batched posting statement; the rows come back one per member, in the members' order. */
export async function postAtomicallyInOrder<R extends object>(executor: Executor, input: AtomicBatchInput): Promise<Array<AtomicBatchRow & R>> {
  if (input.source === input.destination) {
    throw new Error('a posting moves between two accounts');
  }
  const merchants = new Set(input.groups.map((group) => group.merchantId));
  if (merchants.size !== input.groups.length) {
    // Two groups would share the merchant's accounts, which each group's fold takes as its own.
    throw new Error(`batched posting ${input.name}: two groups of one merchant`);
  }
  const size = input.groups.reduce((sum, group) => sum + group.members.length, 0);
  if (size === 0) {
    return [];
  }
  // bigint columns arrive as text from node-postgres' prepared statements, as numbers from PGlite.
  const numberOrNull = (value: number | string | null) => (value === null ? null : Number(value));
  const rows = (await queryNamedRows<AtomicBatchRow & R>(executor, `ledger_batch_${input.name}`, batchStatement(input))).map((row) => ({
    ...row,
    take: numberOrNull(row.take),
    left_before: numberOrNull(row.left_before),
  }));
  if (rows.length !== size) {
    throw new Error(`batched posting ${input.name}: ${rows.length} answer rows for ${size} members`);
  }
  const accepted = rows.filter((row) => row.verdict === 'ok').length;
  const written = rows[0]?.written ?? 0;
  if (written !== accepted * 2) {
    throw new Error(`batched posting ${input.name}: ${written} entries written for ${accepted} postings`);
  }
  return rows;
}
