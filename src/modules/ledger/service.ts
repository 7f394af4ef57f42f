import { and, asc, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { ledgerAccountKinds, ledgerAccounts, ledgerEntries, ledgerTransactions, type LedgerAccountKind } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../jobs/worker.ts';
import { entriesOf, fundingCurrencies, ledgerCurrencies, negativeAllowed, type Entry, type LedgerCurrency, type Posting } from './postings.ts';

/** The largest balance an account may hold either way: beyond it a JSON number is no longer exact (2^53 − 1). */
export const largestBalance = Number.MAX_SAFE_INTEGER;

/**
 * Thrown when a posting would take an account past ±(2^53 − 1) minor units, which answers could no
 * longer state exactly. An AppError: the movement is refused as bad input, naming `amount`.
 */
export class BalanceLimitError extends AppError {
  constructor(currency: LedgerCurrency, account: LedgerAccountKind) {
    super('WRONG_PARAMETER', `amount would take the ${account} ${currency} balance beyond ${largestBalance} minor units, the most Paysail holds exactly`, { field: 'amount' });
    this.name = 'BalanceLimitError';
  }
}

/** Every sandbox balance opens with 1,000,000.00 in each funding currency (minor units). */
export const sandboxOpeningBalance = 100_000_000;

/** Thrown when a posting would take a non-negative account below zero. */
export class InsufficientFundsError extends Error {
  constructor(
    readonly currency: LedgerCurrency,
    readonly account: LedgerAccountKind,
  ) {
    super(`the ${account} ${currency} balance cannot cover this movement`);
    this.name = 'InsufficientFundsError';
  }
}

export interface LedgerOwner {
  merchantId: string;
  livemode: boolean;
}

export interface PostInput extends LedgerOwner {
  currency: LedgerCurrency;
  /** opening, fund, credit, reserve, release, submit, settle, return, payment, refund, refund_failed */
  kind: string;
  reference?: string;
  /** At most one ledger transaction per key, ever. */
  idempotencyKey: string;
  postings: readonly Posting[];
}

export interface Balance {
  livemode: boolean;
  currency: LedgerCurrency;
  available: number;
  reserved: number;
  inFlight: number;
}

/**
 * The double-entry ledger: accounts per merchant, mode, currency and kind; immutable, balanced
 * transactions; balances cached on the account and changed only together with the entries that
 * justify them, by a conditional UPDATE that refuses an overdraft. Depends on no other module.
 */
export function createLedgerService(deps: { database: Database; clock: Clock }) {
  const { database, clock } = deps;

  /** Adds `entry` to its account's balance; undefined when the account is missing or would overdraw. */
  async function applyEntry(tx: Executor, owner: LedgerOwner, currency: LedgerCurrency, entry: Entry, now: Date): Promise<string | undefined> {
    const conditions = [
      eq(ledgerAccounts.merchantId, owner.merchantId),
      eq(ledgerAccounts.livemode, owner.livemode),
      eq(ledgerAccounts.currency, currency),
      eq(ledgerAccounts.kind, entry.account),
    ];
    if (!negativeAllowed.has(entry.account)) {
      conditions.push(sql`${ledgerAccounts.balance} + ${entry.amount}::bigint >= 0`);
    }
    conditions.push(sql`abs(${ledgerAccounts.balance} + ${entry.amount}::bigint) <= ${largestBalance}::bigint`);
    const [updated] = await tx
      .update(ledgerAccounts)
      .set({ balance: sql`${ledgerAccounts.balance} + ${entry.amount}::bigint`, updatedAt: now })
      .where(and(...conditions))
      .returning({ id: ledgerAccounts.id });
    return updated?.id;
  }

  async function accountExists(tx: Executor, owner: LedgerOwner, currency: LedgerCurrency, kind: LedgerAccountKind): Promise<boolean> {
    const rows = await tx
      .select({ id: ledgerAccounts.id })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.merchantId, owner.merchantId), eq(ledgerAccounts.livemode, owner.livemode), eq(ledgerAccounts.currency, currency), eq(ledgerAccounts.kind, kind)));
    return rows.length > 0;
  }

  /**
   * Records one balanced transaction in the caller's transaction. Returns null when a transaction
   * with the same idempotency key exists (the movement already happened). Throws
   * InsufficientFundsError when a non-negative account would go below zero; the caller's
   * transaction must then roll back (it always does: the error propagates).
   */
  /**
   * Transactions that already hold their merchant+mode's account locks (see lockAccounts). Keyed by
   * the transaction handle, so the lock is taken once per database transaction.
   */
  const lockedTransactions = new WeakMap<Executor, Set<string>>();

  /**
   * Locks every account of the merchant in that mode, in one order (currency, kind), before the
   * first balance update of a transaction. Postings update accounts in whatever order their entries
   * and pages come (a reserve takes `available` then `reserved`, a release the reverse; a KYC decision
   * releases several pages in id order, across currencies), so two transactions of one merchant
   * could take the same rows in opposite orders and deadlock (PostgreSQL then aborts one of them).
   * Taking them all in one order first makes every posting transaction of a merchant queue behind
   * the other instead. It serialises a merchant's postings per mode, which already contended on
   * these few rows.
   */
  async function lockAccounts(tx: Executor, owner: LedgerOwner): Promise<void> {
    const scope = `${owner.merchantId}|${owner.livemode}`;
    const held = lockedTransactions.get(tx) ?? new Set<string>();
    if (held.has(scope)) {
      return;
    }
    await tx
      .select({ id: ledgerAccounts.id })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.merchantId, owner.merchantId), eq(ledgerAccounts.livemode, owner.livemode)))
      .orderBy(asc(ledgerAccounts.currency), asc(ledgerAccounts.kind))
      .for('update');
    held.add(scope);
    lockedTransactions.set(tx, held);
  }

  async function post(tx: Executor, input: PostInput, now: Date): Promise<{ transactionId: string } | null> {
    const entries = entriesOf(input.postings);
    await lockAccounts(tx, input);
    const transactionId = newId('ledgerTransaction', now.getTime());
    const inserted = await tx
      .insert(ledgerTransactions)
      .values({
        id: transactionId,
        merchantId: input.merchantId,
        livemode: input.livemode,
        currency: input.currency,
        kind: input.kind,
        reference: input.reference ?? null,
        idempotencyKey: input.idempotencyKey,
        createdAt: now,
      })
      .onConflictDoNothing({ target: ledgerTransactions.idempotencyKey })
      .returning({ id: ledgerTransactions.id });
    if (inserted.length === 0) {
      return null;
    }
    const rows: Array<typeof ledgerEntries.$inferInsert> = [];
    for (const entry of entries) {
      let accountId = await applyEntry(tx, input, input.currency, entry, now);
      if (accountId === undefined && !(await accountExists(tx, input, input.currency, entry.account))) {
        // Merchants created before the ledger existed, live balances and card-payment currencies are opened on first use.
        await openAccounts(tx, input, now, [...new Set<LedgerCurrency>([...fundingCurrencies, input.currency])]);
        accountId = await applyEntry(tx, input, input.currency, entry, now);
      }
      if (accountId === undefined) {
        // A non-negative account refuses only an overdraft (a negative entry); anything else it
        // refuses, and anything the outside world refuses, is the exactness limit.
        throw entry.amount > 0 || negativeAllowed.has(entry.account) ? new BalanceLimitError(input.currency, entry.account) : new InsufficientFundsError(input.currency, entry.account);
      }
      rows.push({ id: newId('ledgerEntry', now.getTime()), transactionId, accountId, currency: input.currency, amount: entry.amount, createdAt: now });
    }
    await tx.insert(ledgerEntries).values(rows);
    return { transactionId };
  }

  /**
   * Opens the merchant's accounts in one mode (`currencies`, by default the funding currencies; every
   * kind); idempotent. A
   * sandbox balance in a funding currency that is opened here for the first time is funded with the
   * opening balance (card-payment currencies open at zero).
   * Two concurrent openings serialize on the unique index: only the one that inserted funds.
   */
  async function openAccounts(tx: Executor, owner: LedgerOwner, now: Date, currencies: readonly LedgerCurrency[] = fundingCurrencies): Promise<void> {
    for (const currency of currencies) {
      const inserted = await tx
        .insert(ledgerAccounts)
        .values(
          ledgerAccountKinds.map((kind) => ({
            id: newId('ledgerAccount', now.getTime()),
            merchantId: owner.merchantId,
            livemode: owner.livemode,
            currency,
            kind,
            balance: 0,
            createdAt: now,
            updatedAt: now,
          })),
        )
        .onConflictDoNothing()
        .returning({ kind: ledgerAccounts.kind });
      if (!owner.livemode && (fundingCurrencies as readonly string[]).includes(currency) && inserted.some((row) => row.kind === 'available')) {
        await post(
          tx,
          {
            ...owner,
            currency,
            kind: 'opening',
            idempotencyKey: `opening:${owner.merchantId}:sandbox:${currency}`,
            postings: [{ source: 'external', destination: 'available', amount: sandboxOpeningBalance }],
          },
          now,
        );
      }
    }
  }

  async function readBalances(executor: Executor, owner: LedgerOwner): Promise<Balance[] | null> {
    const rows = await executor
      .select({ currency: ledgerAccounts.currency, kind: ledgerAccounts.kind, balance: ledgerAccounts.balance })
      .from(ledgerAccounts)
      .where(and(eq(ledgerAccounts.merchantId, owner.merchantId), eq(ledgerAccounts.livemode, owner.livemode)));
    const opened = (currency: LedgerCurrency) => rows.filter((row) => row.currency === currency).length === ledgerAccountKinds.length;
    if (!fundingCurrencies.every(opened)) {
      return null;
    }
    // The funding currencies always; a card-payment currency once a payment in it opened its accounts.
    return ledgerCurrencies.filter(opened).map((currency) => {
      const of = (kind: LedgerAccountKind) => rows.find((row) => row.currency === currency && row.kind === kind)?.balance ?? 0;
      return { livemode: owner.livemode, currency, available: of('available'), reserved: of('reserved'), inFlight: of('in_flight') };
    });
  }

  return {
    post,
    openAccounts,

    /** merchants.onMerchantCreated: a new merchant's sandbox balance opens funded. */
    async openSandboxBalances(tx: Executor, merchantId: string, now: Date): Promise<void> {
      await openAccounts(tx, { merchantId, livemode: false }, now);
    },

    /** Balances in one mode: each funding currency, then each card-payment currency the merchant has been paid in; opens the funding accounts on first read. */
    async getBalances(owner: LedgerOwner): Promise<Balance[]> {
      const existing = await readBalances(database.db, owner);
      if (existing) {
        return existing;
      }
      return database.transaction(async (tx) => {
        await openAccounts(tx, owner, clock.now());
        const opened = await readBalances(tx, owner);
        if (!opened) {
          throw new Error('ledger accounts missing after opening');
        }
        return opened;
      });
    },

    /** Adds funds from the outside world: sandbox `fund` (test helper) and live `credit` (operator). */
    async addFunds(owner: LedgerOwner, currency: LedgerCurrency, amount: number, kind: 'fund' | 'credit'): Promise<Balance> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        await post(
          tx,
          { ...owner, currency, kind, idempotencyKey: `${kind}:${newId('ledgerTransaction', now.getTime())}`, postings: [{ source: 'external', destination: 'available', amount }] },
          now,
        );
        const balances = await readBalances(tx, owner);
        const balance = balances?.find((candidate) => candidate.currency === currency);
        if (!balance) {
          throw new Error('ledger accounts missing after funding');
        }
        return balance;
      });
    },
  };
}

export type LedgerService = ReturnType<typeof createLedgerService>;
