import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
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
