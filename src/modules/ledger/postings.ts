import type { LedgerAccountKind } from '../../db/schema/ledger.ts';

/**
 * Every currency a merchant's balance is kept in: the funding currencies of payout pages (USDC, USD;
 * sandbox balances open funded in them) and the currencies card payments are taken in (USD, EUR, GBP;
 * a payment credits its currency, a refund debits it).
 */
export const ledgerCurrencies = ['USDC', 'USD', 'EUR', 'GBP'] as const;
export type LedgerCurrency = (typeof ledgerCurrencies)[number];

/** The currencies payout pages are funded in, funds are added in and sandbox balances open funded in. */
export const fundingCurrencies = ['USDC', 'USD'] as const satisfies readonly LedgerCurrency[];
export type FundingCurrency = (typeof fundingCurrencies)[number];

/** Accounts that may go below zero: only the outside world. */
export const negativeAllowed: ReadonlySet<LedgerAccountKind> = new Set<LedgerAccountKind>(['external']);

/** One movement between two accounts of the same owner and currency (formance's posting). */
export interface Posting {
  readonly source: LedgerAccountKind;
  readonly destination: LedgerAccountKind;
  /** Integer minor units, > 0. */
  readonly amount: number;
}

/** The signed change a transaction makes to each account it touches. */
export interface Entry {
  readonly account: LedgerAccountKind;
  readonly amount: number;
}

export class InvalidPostingError extends Error {}

/** Largest amount one posting may move: sums of many stay exact in a JS number and in int8. */
export const maxPostingAmount = 1_000_000_000_000;

/**
 * Validates postings and turns them into entries, one per touched account (netted), ordered by
 * account kind — the order accounts are locked in, so concurrent transactions never deadlock.
 * The entries sum to zero by construction; the check is kept because the database checks it too.
 */
export function entriesOf(postings: readonly Posting[]): Entry[] {
  if (postings.length === 0) {
    throw new InvalidPostingError('a transaction needs at least one posting');
  }
  const net = new Map<LedgerAccountKind, number>();
  for (const posting of postings) {
    if (!Number.isSafeInteger(posting.amount) || posting.amount <= 0 || posting.amount > maxPostingAmount) {
      throw new InvalidPostingError(`posting amount must be an integer between 1 and ${maxPostingAmount}, got ${String(posting.amount)}`);
    }
    if (posting.source === posting.destination) {
      throw new InvalidPostingError(`posting source and destination are both ${posting.source}`);
    }
    net.set(posting.source, (net.get(posting.source) ?? 0) - posting.amount);
    net.set(posting.destination, (net.get(posting.destination) ?? 0) + posting.amount);
  }
  const entries = [...net.entries()]
    .filter(([, amount]) => amount !== 0)
    .map(([account, amount]) => ({ account, amount }))
    .sort((a, b) => (a.account < b.account ? -1 : a.account > b.account ? 1 : 0));
  const sum = entries.reduce((total, entry) => total + entry.amount, 0);
  if (sum !== 0) {
    throw new InvalidPostingError(`entries sum to ${sum}, not zero`);
  }
  if (entries.length === 0) {
    throw new InvalidPostingError('the postings cancel out: nothing moves');
  }
  return entries;
}

export function isLedgerCurrency(value: string): value is LedgerCurrency {
  return (ledgerCurrencies as readonly string[]).includes(value);
}
