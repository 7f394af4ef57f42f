import { sql, type SQL } from 'drizzle-orm';

/**
 * True when a ledger transaction was posted under `idempotencyKey`: a condition another module's
 * query embeds (the payment credit backfill finds uncredited payments in one statement).
 */
export function postedUnder(idempotencyKey: SQL): SQL<boolean> {
  return sql<boolean>`exists (select 1 from ledger_transactions where idempotency_key = ${idempotencyKey})`;
}
