import { and, count, eq, sum } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { payoutPages } from '../../db/schema/index.ts';
import { payoutPagesRepository as repository } from './repository.ts';
import { awaitingFundingReason } from './rails/types.ts';

export interface AwaitingFundingPayout {
  id: string;
  merchantId: string;
  livemode: boolean;
  amount: number;
  currency: 'USD' | 'USDC';
  rail: string | null;
  /** When the payout started waiting (its last change), epoch ms. */
  waitingSince: number;
}

/**
 * Operator funding, seen by the operator: the payouts the submit job holds back because the rail
 * account cannot cover them (admin API, dashboard), and their totals (Prometheus gauges).
 */
export function createPayoutFunding(deps: { database: Database }) {
  const { database } = deps;
  return {
    async awaitingFunding(limit = 100): Promise<AwaitingFundingPayout[]> {
      const pages = await repository.awaitingFunding(database.db, awaitingFundingReason, limit);
      return pages.map((page) => ({
        id: page.id,
        merchantId: page.merchantId,
        livemode: page.livemode,
        amount: page.amount,
        currency: page.fundingCurrency,
        rail: page.payoutMethod?.type === 'CRYPTO_WALLET' ? 'circle' : page.payoutMethod?.type === 'BANK_TRANSFER' ? 'increase' : null,
        waitingSince: page.updatedAt.getTime(),
      }));
    },

    async awaitingFundingTotals(): Promise<Array<{ currency: string; livemode: boolean; count: number; amount: number }>> {
      const rows = await database.db
        .select({ currency: payoutPages.fundingCurrency, livemode: payoutPages.livemode, count: count(), amount: sum(payoutPages.amount) })
        .from(payoutPages)
        .where(and(eq(payoutPages.status, 'PROCESSING'), eq(payoutPages.statusReason, awaitingFundingReason)))
        .groupBy(payoutPages.fundingCurrency, payoutPages.livemode);
      return rows.map((row) => ({ currency: row.currency, livemode: row.livemode, count: Number(row.count), amount: Number(row.amount ?? 0) }));
    },
  };
}
