import { and, count, eq, gte, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import type { Database } from '../../../db/client.ts';
import { disputes, fraudReports, payments, payoutPages, payoutPageStatusHistory, refunds } from '../../../db/schema/index.ts';
import { dayMs, type DayRange } from '../date-range.ts';

/** An amount (minor units) and a count, in the chosen period and in the one before it. */
export interface Compared {
  current: { amount: number; count: number };
  previous: { amount: number; count: number };
}

export interface CurrencySummary {
  currency: string;
  payments: Compared;
  payouts: Compared;
  refunds: Compared;
  disputes: Compared;
}

export interface OverviewSummary {
  /** One entry per currency that moved in either period, by currency code. */
  currencies: CurrencySummary[];
  /** Card payments decided in each period: succeeded and declined (the success rate is their ratio). */
  paymentOutcomes: { current: { succeeded: number; declined: number }; previous: { succeeded: number; declined: number } };
  /** Fraud reports by the day the issuer reported the fraud. */
  fraudReports: { current: number; previous: number };
}

interface Row {
  current: boolean;
  currency: string;
  total: number;
  count: number;
}

/**
 * A timestamp bound as an SQL literal. The same expression appears in SELECT and GROUP BY, and
 * PostgreSQL matches the two only when they are textually equal, which two bind parameters are
 * not. The value is made here from a number, never from input.
 */
function at(time: number): SQL {
  return sql.raw(`'${new Date(time).toISOString()}'::timestamptz`);
}

/**
 * The overview's figures for a period beside the period of the same length just before it, per
 * currency, all scoped by merchant and mode. Each source is one grouped query over both periods.
 */
export function createOverviewSummary(database: Database) {
  async function grouped(input: { time: AnyPgColumn; currency: AnyPgColumn; amount: AnyPgColumn; where: SQL[]; range: DayRange; from: typeof payments | typeof refunds | typeof disputes }): Promise<Row[]> {
    const { range } = input;
    const current = sql<boolean>`${input.time} >= ${at(range.from)}`;
    const rows = await database.db
      .select({ current, currency: sql<string>`${input.currency}`, total: sql<number>`cast(coalesce(sum(${input.amount}), 0) as double precision)`, count: count() })
      .from(input.from)
      .where(and(...input.where, gte(input.time, new Date(range.previous.from)), lt(input.time, new Date(range.to + dayMs))))
      .groupBy(current, input.currency);
    return rows.map((row) => ({ current: Boolean(row.current), currency: row.currency, total: Number(row.total), count: Number(row.count) }));
  }

  return async function summary(merchantId: string, livemode: boolean, range: DayRange): Promise<OverviewSummary> {
    const window = (time: AnyPgColumn) => and(gte(time, new Date(range.previous.from)), lt(time, new Date(range.to + dayMs)));
    const payoutCurrent = sql<boolean>`${payoutPageStatusHistory.createdAt} >= ${at(range.from)}`;
    const outcomeCurrent = sql<boolean>`${payments.decidedAt} >= ${at(range.from)}`;
    const fraudCurrent = sql<boolean>`${fraudReports.fraudIssueDate} >= ${at(range.from)}`;
    const [paymentRows, outcomeRows, payoutRows, refundRows, disputeRows, fraudRows] = await Promise.all([
      grouped({ range, from: payments, time: payments.decidedAt, currency: payments.currency, amount: payments.amount, where: [eq(payments.merchantId, merchantId), eq(payments.livemode, livemode), eq(payments.status, 'SUCCEEDED')] }),
      database.db
        .select({ current: outcomeCurrent, status: payments.status, count: count() })
        .from(payments)
        .where(and(eq(payments.merchantId, merchantId), eq(payments.livemode, livemode), inArray(payments.status, ['SUCCEEDED', 'DECLINED']), window(payments.decidedAt)))
        .groupBy(outcomeCurrent, payments.status),
      database.db
        .select({ current: payoutCurrent, currency: payoutPages.fundingCurrency, total: sql<number>`cast(coalesce(sum(${payoutPages.amount}), 0) as double precision)`, count: count() })
        .from(payoutPageStatusHistory)
        .innerJoin(payoutPages, eq(payoutPages.id, payoutPageStatusHistory.payoutPageId))
        .where(and(eq(payoutPageStatusHistory.merchantId, merchantId), eq(payoutPageStatusHistory.livemode, livemode), eq(payoutPageStatusHistory.toStatus, 'PROCESSED'), window(payoutPageStatusHistory.createdAt)))
        .groupBy(payoutCurrent, payoutPages.fundingCurrency),
      grouped({ range, from: refunds, time: refunds.settledAt, currency: refunds.currency, amount: refunds.amount, where: [eq(refunds.merchantId, merchantId), eq(refunds.livemode, livemode), eq(refunds.status, 'SUCCEEDED')] }),
      grouped({ range, from: disputes, time: disputes.createdAt, currency: disputes.currency, amount: disputes.amount, where: [eq(disputes.merchantId, merchantId), eq(disputes.livemode, livemode)] }),
      database.db
        .select({ current: fraudCurrent, count: count() })
        .from(fraudReports)
        .where(and(eq(fraudReports.merchantId, merchantId), eq(fraudReports.livemode, livemode), window(fraudReports.fraudIssueDate)))
        .groupBy(fraudCurrent),
    ]);

    const byCurrency = new Map<string, CurrencySummary>();
    const zero = (): Compared => ({ current: { amount: 0, count: 0 }, previous: { amount: 0, count: 0 } });
    const add = (rows: Row[], pick: (summary: CurrencySummary) => Compared) => {
      for (const row of rows) {
        let entry = byCurrency.get(row.currency);
        if (!entry) {
          entry = { currency: row.currency, payments: zero(), payouts: zero(), refunds: zero(), disputes: zero() };
          byCurrency.set(row.currency, entry);
        }
        const figures = pick(entry)[row.current ? 'current' : 'previous'];
        figures.amount += row.total;
        figures.count += row.count;
      }
    };
    add(paymentRows, (entry) => entry.payments);
    add(
      payoutRows.map((row) => ({ current: Boolean(row.current), currency: row.currency, total: Number(row.total), count: Number(row.count) })),
      (entry) => entry.payouts,
    );
    add(refundRows, (entry) => entry.refunds);
    add(disputeRows, (entry) => entry.disputes);

    const paymentOutcomes = { current: { succeeded: 0, declined: 0 }, previous: { succeeded: 0, declined: 0 } };
    for (const row of outcomeRows) {
      const side = paymentOutcomes[row.current ? 'current' : 'previous'];
      if (row.status === 'SUCCEEDED') {
        side.succeeded += Number(row.count);
      } else {
        side.declined += Number(row.count);
      }
    }
    const fraud = { current: 0, previous: 0 };
    for (const row of fraudRows) {
      fraud[row.current ? 'current' : 'previous'] += Number(row.count);
    }
    return {
      currencies: [...byCurrency.values()].sort((left, right) => left.currency.localeCompare(right.currency)),
      paymentOutcomes,
      fraudReports: fraud,
    };
  };
}

export type OverviewSummaryReader = ReturnType<typeof createOverviewSummary>;
