import { and, eq, type SQL } from 'drizzle-orm';
import { queryNamedRows, type Database, type Executor } from '../../db/client.ts';
import { ledgerAccountKinds, ledgerAccounts, type LedgerAccountKind } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { AppError } from '../../http/errors.ts';
import type { Clock } from '../../clock.ts';
import { postStatement, postStatementName, type PostCondition, type PostStatementInput, type PostStatementResult } from './post-statement.ts';
import { atomicPostStatement, type AtomicPostResult } from './atomic-post.ts';
import { postAtomicallyInOrder, type AtomicBatchInput, type AtomicBatchRow } from './atomic-batch.ts';
import { entriesOf, fundingCurrencies, isLedgerCurrency, ledgerCurrencies, negativeAllowed, type LedgerCurrency, type Posting } from './postings.ts';

export type { PostCondition } from './post-statement.ts';

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

/** A posting scaled by an amount decided in SQL, with the caller's change around it (atomic-post.ts). */
export interface AtomicPostInput {
  /** Names the prepared statement: one name, one statement text. */
  name: string;
  /** CTEs ending with `gate`: at most one row `(livemode boolean, currency text, amount bigint)`, its locks taken. */
  before: SQL;
  /** The caller's writes, each conditioned on `exists (select 1 from ok)`. */
  after: SQL;
  /** Extra answer columns. */
  report: SQL;
  merchantId: string;
  kind: string;
  reference?: string;
  /** At most one ledger transaction per key, ever: a used key fails the statement. */
  idempotencyKey: string;
  /** The posting for 1 minor unit: every amount is 1, scaled by the gate's amount. */
  unitPostings: readonly Posting[];
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

  /**
   * Transactions that already hold their merchant+mode's account locks. Keyed by the transaction
   * handle, so the lock is taken once per database transaction.
   *
   * Why every account of the merchant in that mode, in one order (currency, kind), before the first
   * balance update of a transaction: postings update accounts in whatever order their entries and
   * pages come (a reserve takes `available` then `reserved`, a release the reverse; a KYC decision
   * releases several pages in id order, across currencies), so two transactions of one merchant
   * could take the same rows in opposite orders and deadlock (PostgreSQL then aborts one of them).
   * Taking them all in one order first makes every posting transaction of a merchant queue behind
   * the other instead. It serialises a merchant's postings per mode, which already contended on
   * these few rows. The lock is the first step of the posting statement (post-statement.ts).
   */
  const lockedTransactions = new WeakMap<Executor, Set<string>>();

  async function runPostStatement(tx: Executor, input: PostStatementInput): Promise<PostStatementResult> {
    const [row] = await queryNamedRows<PostStatementResult>(tx, postStatementName(input), postStatement(input));
    if (!row) {
      throw new Error(`ledger transaction ${input.transactionId}: the posting statement answered no row`);
    }
    return row;
  }

  /**
   * Records one balanced transaction in the caller's transaction, in one statement (see
   * post-statement.ts), after `condition` when one is given. Returns `conditionMet: false` when the
   * condition returned no row (nothing else happened), a null `posted` when a transaction with the
   * same idempotency key exists (the movement already happened; the condition's effect stays).
   * Throws InsufficientFundsError when a non-negative account would go below zero, BalanceLimitError
   * beyond ±(2^53 − 1); the caller's transaction must then roll back (it always does: the error
   * propagates).
   */
  async function postWhen(tx: Executor, condition: PostCondition | undefined, input: PostInput, now: Date): Promise<{ conditionMet: false } | { conditionMet: true; posted: { transactionId: string } | null }> {
    const entries = entriesOf(input.postings);
    const scope = `${input.merchantId}|${input.livemode}`;
    const held = lockedTransactions.get(tx) ?? new Set<string>();
    const statement: PostStatementInput = {
      transactionId: newId('ledgerTransaction', now.getTime()),
      merchantId: input.merchantId,
      livemode: input.livemode,
      currency: input.currency,
      kind: input.kind,
      reference: input.reference ?? null,
      idempotencyKey: input.idempotencyKey,
      entries: entries.map((entry) => ({ entry, entryId: newId('ledgerEntry', now.getTime()) })),
      now,
      lockAccounts: !held.has(scope),
      condition,
      largestBalance,
    };
    let result = await runPostStatement(tx, statement);
    if (!result.condition_met) {
      return { conditionMet: false };
    }
    held.add(scope);
    lockedTransactions.set(tx, held);
    if (!result.accounts_ready) {
      // Merchants created before the ledger existed, live balances and card-payment currencies are
      // opened on first use. The condition already took effect: the retry runs without it.
      await openAccounts(tx, input, now, [...new Set<LedgerCurrency>([...fundingCurrencies, input.currency])]);
      result = await runPostStatement(tx, { ...statement, condition: undefined, lockAccounts: false });
      if (!result.accounts_ready) {
        throw new Error(`ledger accounts of ${input.merchantId} missing after opening them`);
      }
    }
    if (!result.inserted) {
      return { conditionMet: true, posted: null };
    }
    const applied = new Set((result.applied ?? '').split(','));
    for (const entry of entries) {
      if (!applied.has(entry.account)) {
        // A non-negative account refuses only an overdraft (a negative entry); anything else it
        // refuses, and anything the outside world refuses, is the exactness limit.
        throw entry.amount > 0 || negativeAllowed.has(entry.account) ? new BalanceLimitError(input.currency, entry.account) : new InsufficientFundsError(input.currency, entry.account);
      }
    }
    if (result.written !== entries.length) {
      throw new Error(`ledger transaction ${statement.transactionId}: ${result.written} of ${entries.length} entries written`);
    }
    return { conditionMet: true, posted: { transactionId: statement.transactionId } };
  }

  /**
   * The caller's gate, the posting and the caller's writes as one statement that writes everything or
   * nothing (decision 0039): safe outside a transaction. `accountsReady: false` when an account is
   * missing (nothing written: open them and run it again). Throws InsufficientFundsError or
   * BalanceLimitError, nothing written, when an account refuses its entry.
   */
  async function postAtomically<R extends object>(executor: Executor, input: AtomicPostInput, now: Date): Promise<AtomicPostResult & R> {
    const unitEntries = entriesOf(input.unitPostings);
    if (input.unitPostings.some((posting) => posting.amount !== 1)) {
      throw new Error('an atomic posting is given for 1 minor unit and scaled in SQL');
    }
    const [row] = await queryNamedRows<AtomicPostResult & R>(
      executor,
      `ledger_atomic_${input.name}`,
      atomicPostStatement({
        name: input.name,
        before: input.before,
        after: input.after,
        report: input.report,
        transactionId: newId('ledgerTransaction', now.getTime()),
        merchantId: input.merchantId,
        kind: input.kind,
        reference: input.reference ?? null,
        idempotencyKey: input.idempotencyKey,
        unitEntries: unitEntries.map((entry) => ({ entry, entryId: newId('ledgerEntry', now.getTime()) })),
        now,
        largestBalance,
      }),
    );
    if (!row) {
      throw new Error(`atomic posting ${input.name}: the statement answered no row`);
    }
    const currency = row.currency;
    if (row.condition_met && row.accounts_ready && currency !== null && isLedgerCurrency(currency)) {
      const refused = (list: string | null) => (list === null ? undefined : (list.split(',')[0] as LedgerAccountKind));
      const beyond = refused(row.beyond_limit);
      const overdrawn = refused(row.overdrawn);
      if (overdrawn !== undefined) {
        throw new InsufficientFundsError(currency, overdrawn);
      }
      if (beyond !== undefined) {
        throw new BalanceLimitError(currency, beyond);
      }
      if (row.written !== unitEntries.length) {
        throw new Error(`atomic posting ${input.name}: ${row.written} of ${unitEntries.length} entries written`);
      }
    }
    return row;
  }

  /** `postWhen` without a condition: the transaction id, or null when its idempotency key was used already. */
  async function post(tx: Executor, input: PostInput, now: Date): Promise<{ transactionId: string } | null> {
    const outcome = await postWhen(tx, undefined, input, now);
    return outcome.conditionMet ? outcome.posted : null;
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
    postWhen,
    postAtomically,
    /** Postings in groups (one merchant each), each group's decided in order, written by one statement (atomic-batch.ts, decisions 0055 and 0069). */
    postAtomicallyInOrder<R extends object>(executor: Executor, input: Omit<AtomicBatchInput, 'largestBalance'>): Promise<Array<AtomicBatchRow & R>> {
      return postAtomicallyInOrder<R>(executor, { ...input, largestBalance });
    },
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
