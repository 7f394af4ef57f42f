import assert from 'node:assert/strict';
import { sql } from 'drizzle-orm';
import { queryRows } from '../../src/db/client.ts';
import { json } from '../helpers/context.ts';
import { type Currency, currencies, type ModelBalance, type LedgerModel, type Real } from './ledger-model-rules.ts';

// Comparing the ledger model (ledger-model-rules.ts) with the real service: its ledger accounts,
// its payout pages' states and its `GET /v1/balance` answer.


export interface LedgerModelStats {
  steps: number;
  runs: number;
  commands: Record<string, number>;
  /** Outcomes seen: HTTP status (or error code) per command, and final page states. */
  outcomes: Record<string, number>;
  invariantChecks: number;
  /**
   * Comparisons of the real service with the model that were made (and agreed: a disagreement
   * throws): `state` counts the ledger_accounts + page-state comparisons (after every step and at
   * the end of every run), `api` the `GET /v1/balance` ones.
   */
  comparisons: { state: number; api: number };
  /** CPU time of this process (PGlite included) per command kind and for the checks, in ms. */
  cpuMs: Record<string, number>;
}

export function count(record: Record<string, number>, key: string): void {
  record[key] = (record[key] ?? 0) + 1;
}

/** The merchant's four sandbox accounts per currency, straight from `ledger_accounts`. */
export async function readAccounts(real: Real): Promise<Record<Currency, ModelBalance>> {
  const accounts = await queryRows<{ currency: Currency; kind: string; balance: number | string }>(
    real.context.database.db,
    sql`select currency, kind, balance from ledger_accounts where merchant_id = ${real.merchant.id} and livemode = false`,
  );
  const of = (currency: Currency, kind: string) => {
    const row = accounts.find((candidate) => candidate.currency === currency && candidate.kind === kind);
    assert.ok(row, `the ${currency} ${kind} account exists`);
    return Number(row.balance);
  };
  const balances = {} as Record<Currency, ModelBalance>;
  for (const currency of currencies) {
    balances[currency] = { available: of(currency, 'available'), reserved: of(currency, 'reserved'), inFlight: of(currency, 'in_flight'), external: of(currency, 'external') };
  }
  return balances;
}

/** The service's answer: `GET /v1/balance?livemode=false`. */
export async function readApiBalances(real: Real): Promise<Record<Currency, Omit<ModelBalance, 'external'>>> {
  const response = await real.context.request({ method: 'GET', url: '/v1/balance?livemode=false', apiKey: real.merchant.apiKey });
  assert.equal(response.statusCode, 200, response.body);
  const answered = json<{ data: Array<{ currency: Currency; livemode: boolean; available: number; reserved: number; inFlight: number }> }>(response).data;
  assert.equal(answered.length, currencies.length, 'one balance per funding currency');
  const balances = {} as Record<Currency, Omit<ModelBalance, 'external'>>;
  for (const entry of answered) {
    assert.equal(entry.livemode, false);
    balances[entry.currency] = { available: entry.available, reserved: entry.reserved, inFlight: entry.inFlight };
  }
  return balances;
}

export async function verify(model: LedgerModel, real: Real, stats: LedgerModelStats, checks: { api: boolean; invariants: boolean }): Promise<void> {
  const { context, merchant } = real;
  // One round trip: the merchant's sandbox accounts and every page of this run (found by its
  // clientReferenceId prefix, so a page the model does not know about would show up too).
  const rows = await queryRows<{ kind: 'account' | 'page'; key: string; value: string }>(
    context.database.db,
    sql`select 'account' as kind, currency || '/' || kind as key, balance::text as value from ledger_accounts where merchant_id = ${merchant.id} and livemode = false
        union all
        select 'page' as kind, id as key, status || '/' || sub_status as value from payout_pages
        where merchant_id = ${merchant.id} and livemode = false and client_reference_id like ${`${real.prefix}%`}`,
  );
  const accounts = Object.fromEntries(rows.filter((row) => row.kind === 'account').map((row) => [row.key, Number(row.value)]));
  const expectedAccounts: Record<string, number> = {};
  for (const currency of currencies) {
    const balance = model.balances[currency];
    Object.assign(expectedAccounts, {
      [`${currency}/available`]: balance.available,
      [`${currency}/reserved`]: balance.reserved,
      [`${currency}/in_flight`]: balance.inFlight,
      [`${currency}/external`]: balance.external,
    });
  }
  assert.deepEqual(accounts, expectedAccounts, 'ledger_accounts equal the model');
  for (const [key, balance] of Object.entries(accounts)) {
    assert.ok(key.endsWith('/external') || balance >= 0, `${key} is not negative`);
  }
  const pages = Object.fromEntries(rows.filter((row) => row.kind === 'page').map((row) => [row.key, row.value]));
  assert.deepEqual(pages, Object.fromEntries(model.pages.map((page) => [page.id, page.state])), 'payout page states equal the model');
  stats.comparisons.state += 1;
  if (checks.api) {
    const api = await readApiBalances(real);
    const expected = Object.fromEntries(currencies.map((currency) => [currency, { available: model.balances[currency].available, reserved: model.balances[currency].reserved, inFlight: model.balances[currency].inFlight }]));
    assert.deepEqual(api, expected, 'GET /v1/balance equals the model');
    stats.comparisons.api += 1;
  }
  if (checks.invariants) {
    await real.checkLedger();
    stats.invariantChecks += 1;
  }
}

