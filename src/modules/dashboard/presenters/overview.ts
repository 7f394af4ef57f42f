import { and, count, eq, gte, lt, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { payments, payoutPages, payoutPageStatusHistory } from '../../../db/schema/index.ts';
import type { Balance, LedgerService } from '../../ledger/index.ts';
import { dayMs, utcDay, type DayRange } from '../date-range.ts';
import { createOverviewSummary, type OverviewSummary } from './overview-summary.ts';

/** Periods up to this many days are charted per day; longer ones per week (7-day buckets from the first day). */
export const maximumDailyBuckets = 93;

export interface DailySeries {
  currency: string;
  /** One value per bucket of `days`, in minor units. */
  payments: number[];
  payouts: number[];
  paymentCount: number;
  payoutCount: number;
}

export interface VolumeView {
  /** The first UTC day (`YYYY-MM-DD`) of each bucket, oldest first. */
  days: string[];
  /** Days per bucket: 1 (per day) or 7 (per week). */
  bucketDays: number;
  /** One series per currency that moved in the period. */
  series: DailySeries[];
}

export interface OverviewView {
  balances: Array<{ mode: 'sandbox' | 'live'; balances: Balance[] }>;
  range: DayRange;
  volume: VolumeView;
  summary: OverviewSummary;
  awaitingRelease: number;
}

/**
 * Read model of the overview: balances per currency and mode (from the ledger service), the
 * figures of a period beside the period before it (`overview-summary.ts`), and the payment and
 * payout volume of the period per day or week (successful card payments by the time they
 * succeeded; payouts by the time they were PROCESSED).
 */
export function createOverviewPresenter(deps: { database: Database; ledger: LedgerService }) {
  const { database } = deps;

  const summary = createOverviewSummary(database);

  async function volume(merchantId: string, livemode: boolean, range: DayRange): Promise<VolumeView> {
    const bucketDays = range.days <= maximumDailyBuckets ? 1 : 7;
    const start = new Date(range.from);
    const end = new Date(range.to + dayMs);
    const days = Array.from({ length: Math.ceil(range.days / bucketDays) }, (_, index) => utcDay(range.from + index * bucketDays * dayMs));
    const bucketOf = (day: string) => Math.floor((Date.parse(`${day}T00:00:00.000Z`) - range.from) / dayMs / bucketDays);
    const paymentDay = sql<string>`to_char(${payments.decidedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
    const paymentRows = await database.db
      .select({ day: paymentDay, currency: payments.currency, total: sql<number>`cast(sum(${payments.amount}) as double precision)`, count: count() })
      .from(payments)
      .where(and(eq(payments.merchantId, merchantId), eq(payments.livemode, livemode), eq(payments.status, 'SUCCEEDED'), gte(payments.decidedAt, start), lt(payments.decidedAt, end)))
      .groupBy(paymentDay, payments.currency);
    const payoutDay = sql<string>`to_char(${payoutPageStatusHistory.createdAt} at time zone 'UTC', 'YYYY-MM-DD')`;
    const payoutRows = await database.db
      .select({ day: payoutDay, currency: payoutPages.fundingCurrency, total: sql<number>`cast(sum(${payoutPages.amount}) as double precision)`, count: count() })
      .from(payoutPageStatusHistory)
      .innerJoin(payoutPages, eq(payoutPages.id, payoutPageStatusHistory.payoutPageId))
      .where(
        and(
          eq(payoutPageStatusHistory.merchantId, merchantId),
          eq(payoutPageStatusHistory.livemode, livemode),
          eq(payoutPageStatusHistory.toStatus, 'PROCESSED'),
          gte(payoutPageStatusHistory.createdAt, start),
          lt(payoutPageStatusHistory.createdAt, end),
        ),
      )
      .groupBy(payoutDay, payoutPages.fundingCurrency);

    const byCurrency = new Map<string, DailySeries>();
    const seriesOf = (currency: string): DailySeries => {
      let series = byCurrency.get(currency);
      if (!series) {
        series = { currency, payments: days.map(() => 0), payouts: days.map(() => 0), paymentCount: 0, payoutCount: 0 };
        byCurrency.set(currency, series);
      }
      return series;
    };
    for (const row of paymentRows) {
      const index = bucketOf(row.day);
      if (index >= 0 && index < days.length) {
        const series = seriesOf(row.currency);
        series.payments[index] = (series.payments[index] ?? 0) + Number(row.total);
        series.paymentCount += Number(row.count);
      }
    }
    for (const row of payoutRows) {
      const index = bucketOf(row.day);
      if (index >= 0 && index < days.length) {
        const series = seriesOf(row.currency);
        series.payouts[index] = (series.payouts[index] ?? 0) + Number(row.total);
        series.payoutCount += Number(row.count);
      }
    }
    return { days, bucketDays, series: [...byCurrency.values()].sort((left, right) => left.currency.localeCompare(right.currency)) };
  }

  return {
    async overview(merchant: { id: string; liveEnabled: boolean }, livemode: boolean, range: DayRange): Promise<OverviewView> {
      const modes = merchant.liveEnabled ? (['live', 'sandbox'] as const) : (['sandbox'] as const);
      const balances = await Promise.all(modes.map(async (mode) => ({ mode, balances: await deps.ledger.getBalances({ merchantId: merchant.id, livemode: mode === 'live' }) })));
      const [awaiting] = await database.db
        .select({ count: count() })
        .from(payoutPages)
        .where(and(eq(payoutPages.merchantId, merchant.id), eq(payoutPages.livemode, livemode), eq(payoutPages.subStatus, 'AWAITING_RELEASE')));
      const [chart, figures] = await Promise.all([volume(merchant.id, livemode, range), summary(merchant.id, livemode, range)]);
      return { balances, range, volume: chart, summary: figures, awaitingRelease: Number(awaiting?.count ?? 0) };
    },
  };
}

export type OverviewPresenter = ReturnType<typeof createOverviewPresenter>;
