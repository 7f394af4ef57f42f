import { and, type Column, eq, gte, inArray, isNotNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { cardTokens, payments } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealFields, type PiiLocation } from '../../crypto/pii.ts';
import { resealTable, type ReencryptOptions } from '../../crypto/rotation.ts';

export type PaymentRow = typeof payments.$inferSelect;
export type NewPaymentRow = typeof payments.$inferInsert;
export type CardTokenRow = typeof cardTokens.$inferSelect;

/** A successful (or named) card payment as the fraud reports module needs it. */
export interface FraudCandidate {
  paymentId: string;
  merchantId: string;
  livemode: boolean;
  status: PaymentRow['status'];
  pageId: string | null;
  clientReferenceId: string | null;
  amount: number;
  currency: string;
  bin: string;
  last4: string;
  scheme: string | null;
  cardType: string | null;
  issuer: string | null;
  decidedAt: Date | null;
}

export type FraudCriteria =
  | { paymentId: string }
  | { networkTransactionId: string; scheme: string; livemode: boolean }
  | { bin: string; last4: string; amount: number; currency: string; day: Date; scheme: string; livemode: boolean };

export function paymentLocation(payment: { merchantId: string; id: string }): PiiLocation {
  return { merchantId: payment.merchantId, table: 'payments', rowId: payment.id };
}

export async function findPayment(executor: Executor, paymentId: string): Promise<PaymentRow | null> {
  const [row] = await executor.select().from(payments).where(eq(payments.id, paymentId));
  return row ?? null;
}

/**
 * `findPayment` outside a transaction as one prepared statement (PostgreSQL parses and plans it once
 * per connection; the query is built once): a paid page's every read asks for its payment.
 */
export function preparedPaymentFinder(database: Database): (paymentId: string) => Promise<PaymentRow | null> {
  const statement = database.db.select().from(payments).where(eq(payments.id, sql.placeholder('paymentId'))).prepare('payments_find_by_id');
  return async (paymentId) => (await statement.execute({ paymentId }))[0] ?? null;
}

/** The payments of these ids (any order; unknown ids are left out). */
export async function findPayments(executor: Executor, paymentIds: readonly string[]): Promise<PaymentRow[]> {
  return paymentIds.length === 0 ? [] : executor.select().from(payments).where(inArray(payments.id, [...paymentIds]));
}

/** The payment row locked for this transaction (settlements are serialized on it). */
export async function lockPayment(tx: Executor, paymentId: string): Promise<PaymentRow | null> {
  const [row] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for('update');
  return row ?? null;
}

/**
 * The paid page's payment, found and row-locked by its primary key. The status is checked outside
 * this subquery, and its `limit 1` (there is one row at most) keeps PostgreSQL from pushing that check
 * down into the scan: with
 * `status = 'SUCCEEDED'` in the scan itself, PostgreSQL could read the payment through the partial
 * index `payments_card_amount_date` (whose predicate that condition matches) with a filter on `id`,
 * every successful payment read for one. It did on the refunds bench's 100 payments (the two paths
 * cost the same on a small table): about a tenth of the refund statement's execution.
 */
const lockedPagePayment = sql`select * from payments where id = (select payment_id from page where status = 'PAID') limit 1 for update`;

/**
 * The gate of an atomic refund (`ledger.postAtomically`, decision 0039), as CTEs: `page` (`target.page`:
 * the page of this merchant, in `livemode` when given, `refundPageSelect` of payment pages), `payment` (its successful payment, row locked: concurrent
 * refunds of it queue here, and read its latest `refunded_amount`), and `gate`: one row when `amount`
 * (null: all that is left) is at least 1, fits in what is left and the payment's mode is available.
 * `payment.take` is that amount; the answer's columns tell which check failed.
 */
export function refundGateCtes(target: { page: SQL; amount: number | undefined; liveAvailable: boolean; sandboxAvailable: boolean }): SQL {
  return sql`page as materialized (
      ${target.page}
    ),
    payment as materialized (
      select id, merchant_id, livemode, currency, amount, refunded_amount, coalesce(${target.amount ?? null}::bigint, amount - refunded_amount) as take
      from (${lockedPagePayment}) p
      where status = 'SUCCEEDED'
    ),
    gate as materialized (
      select id as payment_id, livemode, currency, take as amount from payment
      where take >= 1 and refunded_amount + take <= amount
        and (case when livemode then ${target.liveAvailable}::boolean else ${target.sandboxAvailable}::boolean end)
    )`;
}

/**
 * The gate of a batch of refunds (`ledger.postAtomicallyInOrder`, decisions 0055 and 0069), pages of
 * different merchants in groups: `page` (`target.pages`, `refundPagesSelect` of payment pages: `grp,
 * id, status, payment_id`) and `payment` (each group's successful payment, row locked in the order of
 * their ids, so that batches of several processes lock them in one order), and `gate`: one row per
 * group whose payment is there and whose mode is available, with `capacity` = what is left to refund.
 * Each refund's amount is judged by the ledger's ordered fold against what the refunds before it left.
 */
export function refundBatchGateCtes(target: { pages: SQL; liveAvailable: boolean; sandboxAvailable: boolean }): SQL {
  return sql`page as materialized (
      ${target.pages}
    ),
    payment as materialized (
      select pg.grp, p.id, p.merchant_id, p.livemode, p.currency, p.amount, p.refunded_amount
      from (select * from payments where id in (select payment_id from page where status = 'PAID') order by id for update) p
      join page pg on pg.payment_id = p.id
      where p.status = 'SUCCEEDED'
    ),
    gate as materialized (
      select grp, id as payment_id, livemode, currency, amount - refunded_amount as capacity from payment
      where (case when livemode then ${target.liveAvailable}::boolean else ${target.sandboxAvailable}::boolean end)
    )`;
}

/** A batch's write to the payments (a CTE `taken`): the sum of each group's accepted refunds added to its payment's `refunded_amount`, once. */
export function takeRefundBatchCte(): SQL {
  return sql`taken as (
      update payments p set refunded_amount = p.refunded_amount + t.total
      from (select a.grp, sum(a.take) as total from accepted a group by a.grp) t join gate g on g.grp = t.grp
      where p.id = g.payment_id
      returning p.refunded_amount
    )`;
}

/** The atomic refund's write to the payment (a CTE `taken`): the gate's amount added to `refunded_amount`, only when the posting is written (`ok`). */
export function takeRefundAmountCte(): SQL {
  return sql`taken as (
      update payments set refunded_amount = refunded_amount + (select amount from gate)
      where id = (select payment_id from gate) and exists (select 1 from ok)
      returning refunded_amount
    )`;
}

/** Gives back what a failed refund had taken (it may be refunded again). */
export async function returnRefundAmount(tx: Executor, paymentId: string, amount: number): Promise<void> {
  const [row] = await tx
    .update(payments)
    .set({ refundedAmount: sql`${payments.refundedAmount} - ${amount}::int` })
    .where(and(eq(payments.id, paymentId), sql`${payments.refundedAmount} >= ${amount}::int`))
    .returning({ id: payments.id });
  if (!row) {
    throw new Error(`payment ${paymentId} has less than ${amount} refunded to give back`);
  }
}

/** A saved card (ctok_…) with the processor token renewals charge. */
export async function findCardToken(executor: Executor, cardTokenId: string): Promise<CardTokenRow | null> {
  const [row] = await executor.select().from(cardTokens).where(eq(cardTokens.id, cardTokenId));
  return row ?? null;
}

/**
 * The `clientReferenceId` of the page a payment's `page_id` names, as a column of payments' query
 * (null without a page): payment pages' `clientReferenceIdOfPage`, connected by platform.ts (payment
 * pages use payments, so payments cannot import them).
 */
export type PageReference = (pageId: Column) => SQL<string | null>;

/** Payments a fraud report may attach to (read-only; the page's clientReferenceId rides along). */
export async function findPaymentsForFraud(executor: Executor, criteria: FraudCriteria, clientReferenceIdOfPage: PageReference): Promise<FraudCandidate[]> {
  const conditions: SQL[] = [];
  if ('paymentId' in criteria) {
    conditions.push(eq(payments.id, criteria.paymentId));
  } else if ('networkTransactionId' in criteria) {
    conditions.push(
      eq(payments.networkTransactionId, criteria.networkTransactionId),
      eq(payments.scheme, criteria.scheme),
      eq(payments.livemode, criteria.livemode),
      eq(payments.status, 'SUCCEEDED'),
    );
  } else {
    const dayEnd = new Date(criteria.day.getTime() + 24 * 60 * 60 * 1000);
    conditions.push(
      eq(payments.bin, criteria.bin),
      eq(payments.last4, criteria.last4),
      eq(payments.amount, criteria.amount),
      eq(payments.currency, criteria.currency),
      gte(payments.decidedAt, criteria.day),
      lt(payments.decidedAt, dayEnd),
      eq(payments.scheme, criteria.scheme),
      eq(payments.livemode, criteria.livemode),
      eq(payments.status, 'SUCCEEDED'),
    );
  }
  const rows = await executor
    .select({ payment: payments, clientReferenceId: clientReferenceIdOfPage(payments.pageId) })
    .from(payments)
    .where(and(...conditions))
    .limit(10);
  return rows.map(({ payment, clientReferenceId }) => ({
    paymentId: payment.id,
    merchantId: payment.merchantId,
    livemode: payment.livemode,
    status: payment.status,
    pageId: payment.pageId,
    clientReferenceId,
    amount: payment.amount,
    currency: payment.currency,
    bin: payment.bin,
    last4: payment.last4,
    scheme: payment.scheme,
    cardType: payment.cardType,
    issuer: payment.issuer,
    decidedAt: payment.decidedAt,
  }));
}

/** Key-ring rotation: re-seals each payment's cardholder name under the active key (UPDATE conditional on the ciphertext read). */
export async function reencryptPayments(database: Database, keyRing: KeyRing, options: ReencryptOptions = {}): Promise<number> {
  return resealTable(database, {
    ...options,
    table: payments,
    columns: { id: payments.id, merchantId: payments.merchantId, cardholderNameCiphertext: payments.cardholderNameCiphertext },
    key: 'id',
    where: isNotNull(payments.cardholderNameCiphertext),
    reseal: async (row) => {
      if (row.cardholderNameCiphertext === null) {
        return false;
      }
      const resealed = resealFields(keyRing, paymentLocation(row), { cardholderName: row.cardholderNameCiphertext })?.cardholderName;
      if (resealed === undefined) {
        return false;
      }
      const updated = await database.db
        .update(payments)
        .set({ cardholderNameCiphertext: resealed })
        .where(and(eq(payments.id, row.id), eq(payments.cardholderNameCiphertext, row.cardholderNameCiphertext)))
        .returning({ id: payments.id });
      return updated.length > 0;
    },
  });
}
