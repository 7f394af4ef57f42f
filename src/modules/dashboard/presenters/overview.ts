import { and, count, eq, gte, sql } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { payments, payoutPages, payoutPageStatusHistory } from '../../../db/schema/index.ts';
import type { Balance, LedgerService } from '../../ledger/index.ts';

export const chartDays = 30;
const dayMs = 24 * 60 * 60 * 1000;

export interface DailySeries {
  currency: string;
  /** One value per day of `days`, in minor units. */
  payments: number[];
  payouts: number[];
  paymentCount: number;
  payoutCount: number;
}

export interface VolumeView {
  /** `YYYY-MM-DD` (UTC days), oldest first, today last. */
  days: string[];
  /** One series per currency that moved in the period. */
  series: DailySeries[];
}

export interface OverviewView {
  balances: Array<{ mode: 'sandbox' | 'live'; balances: Balance[] }>;
  volume: VolumeView;
  awaitingRelease: number;
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

/**
 * Read model of the overview: balances per currency and mode (from the ledger service) and the
 * daily payment and payout volume of the last 30 UTC days (successful card payments by the time
 * they succeeded; payouts by the time they were PROCESSED).
 */
export function createOverviewPresenter(deps: { database: Database; ledger: LedgerService }) {
  const { database } = deps;

  async function volume(merchantId: string, livemode: boolean, now: Date): Promise<VolumeView> {
    const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
    const start = new Date(today - (chartDays - 1) * dayMs);
    const days = Array.from({ length: chartDays }, (_, index) => utcDay(new Date(start.getTime() + index * dayMs)));
    const paymentDay = sql<string>`to_char(${payments.decidedAt} at time zone 'UTC', 'YYYY-MM-DD')`;
    const paymentRows = await database.db
      .select({ day: paymentDay, currency: payments.currency, total: sql<number>`cast(sum(${payments.amount}) as double precision)`, count: count() })
      .from(payments)
      .where(and(eq(payments.merchantId, merchantId), eq(payments.livemode, livemode), eq(payments.status, 'SUCCEEDED'), gte(payments.decidedAt, start)))
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
      const index = days.indexOf(row.day);
      if (index >= 0) {
        const series = seriesOf(row.currency);
        series.payments[index] = Number(row.total);
        series.paymentCount += Number(row.count);
      }
    }
    for (const row of payoutRows) {
      const index = days.indexOf(row.day);
      if (index >= 0) {
        const series = seriesOf(row.currency);
        series.payouts[index] = Number(row.total);
        series.payoutCount += Number(row.count);
      }
    }
    return { days, series: [...byCurrency.values()].sort((left, right) => left.currency.localeCompare(right.currency)) };
  }

  return {
    async overview(merchant: { id: string; liveEnabled: boolean }, livemode: boolean, now: Date): Promise<OverviewView> {
      const modes = merchant.liveEnabled ? (['live', 'sandbox'] as const) : (['sandbox'] as const);
      const balances = await Promise.all(modes.map(async (mode) => ({ mode, balances: await deps.ledger.getBalances({ merchantId: merchant.id, livemode: mode === 'live' }) })));
      const [awaiting] = await database.db
        .select({ count: count() })
        .from(payoutPages)
        .where(and(eq(payoutPages.merchantId, merchant.id), eq(payoutPages.livemode, livemode), eq(payoutPages.subStatus, 'AWAITING_RELEASE')));
      return { balances, volume: await volume(merchant.id, livemode, now), awaitingRelease: Number(awaiting?.count ?? 0) };
    },
  };
}

export type OverviewPresenter = ReturnType<typeof createOverviewPresenter>;
