import { and, eq, gte, inArray, lt } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { payoutAttempts, payoutPages } from '../../db/schema/index.ts';
import type { PayoutAttemptStatus } from '../../db/schema/index.ts';
import { railsOfMode, type PayoutRail, type PayoutRailListing, type PayoutRails } from './rails/types.ts';

export type ReconciliationDifferenceKind = 'MISSING_AT_PROVIDER' | 'UNKNOWN_AT_PROVIDER' | 'AMOUNT_MISMATCH' | 'STATUS_MISMATCH';

export interface ReconciliationDifference {
  kind: ReconciliationDifferenceKind;
  /** Our payout attempt id (null for a provider record we know nothing of). */
  payoutId: string | null;
  payoutPageId: string | null;
  merchantId: string | null;
  /** The provider's reference, when it has the payout. */
  reference: string | null;
  ours: { amount: number; status: PayoutAttemptStatus } | null;
  provider: { amount: number; status: PayoutRailListing['status'] } | null;
}

export interface RailReconciliation {
  rail: string;
  livemode: boolean;
  /** Our attempts handed to this rail that day. */
  ours: number;
  /** The rail's payouts of that day. */
  provider: number;
  matched: number;
  differences: ReconciliationDifference[];
}

export interface PayoutReconciliationReport {
  date: string;
  from: string;
  to: string;
  rails: RailReconciliation[];
  differences: number;
}

/** What each of our attempt statuses expects the rail to say. */
const expectedAtRail: Record<PayoutAttemptStatus, PayoutRailListing['status']> = {
  SUBMITTING: 'PENDING',
  SUBMITTED: 'PENDING',
  PAID: 'PAID',
  REJECTED: 'REJECTED',
  RETURNED: 'RETURNED',
};

const dayMs = 86_400_000;
/** A submission may reach the rail a while after our attempt was created (a retry, funding): matched over a wider window. */
const matchPaddingMs = dayMs;

/**
 * The daily payout reconciliation: for one UTC day, our payout attempts (the ledger's payouts:
 * each attempt moved the page's amount) next to each rail's own records of that day, retrieved
 * through the rail's port, and every difference listed — a payout we handed over that the rail does
 * not have, a payout the rail made that we do not know, a different amount, a different outcome.
 */
export function createPayoutReconciliation(deps: { database: Database; rails: PayoutRails }) {
  const { database, rails } = deps;

  async function reconcileRail(rail: PayoutRail, livemode: boolean, from: Date, to: Date): Promise<RailReconciliation> {
    const ours = await database.db
      .select({ id: payoutAttempts.id, payoutPageId: payoutAttempts.payoutPageId, merchantId: payoutAttempts.merchantId, status: payoutAttempts.status, reference: payoutAttempts.railReference, amount: payoutPages.amount })
      .from(payoutAttempts)
      .innerJoin(payoutPages, eq(payoutPages.id, payoutAttempts.payoutPageId))
      .where(and(eq(payoutAttempts.rail, rail.name), eq(payoutAttempts.livemode, livemode), gte(payoutAttempts.createdAt, from), lt(payoutAttempts.createdAt, to)));
    const listed = await rail.listPayouts({ from: new Date(from.getTime() - matchPaddingMs), to: new Date(to.getTime() + matchPaddingMs) });
    const atRail = new Map(listed.filter((record) => record.payoutId !== null).map((record) => [record.payoutId, record]));
    const differences: ReconciliationDifference[] = [];
    let matched = 0;
    for (const attempt of ours) {
      const record = atRail.get(attempt.id);
      atRail.delete(attempt.id);
      const base = { payoutId: attempt.id, payoutPageId: attempt.payoutPageId, merchantId: attempt.merchantId, ours: { amount: attempt.amount, status: attempt.status } };
      if (!record) {
        // Not sent yet, or refused before it reached the rail: nothing to find there.
        const neverSent = attempt.status === 'SUBMITTING' || (attempt.status === 'REJECTED' && (attempt.reference === null || attempt.reference.startsWith('refused:')));
        if (!neverSent) {
          differences.push({ ...base, kind: 'MISSING_AT_PROVIDER', reference: attempt.reference, provider: null });
        }
        continue;
      }
      const provider = { amount: record.amount, status: record.status };
      if (record.amount !== attempt.amount) {
        differences.push({ ...base, kind: 'AMOUNT_MISMATCH', reference: record.reference, provider });
      } else if (record.status !== expectedAtRail[attempt.status]) {
        differences.push({ ...base, kind: 'STATUS_MISMATCH', reference: record.reference, provider });
      } else {
        matched += 1;
      }
    }
    // The rail's payouts of this day that match none of our attempts of this day: ours at all (another day's)?
    const inDay = listed.filter((record) => (record.payoutId === null || atRail.has(record.payoutId)) && !ours.some((attempt) => attempt.id === record.payoutId));
    const otherIds = inDay.flatMap((record) => (record.payoutId ? [record.payoutId] : []));
    const known = otherIds.length === 0 ? [] : await database.db.select({ id: payoutAttempts.id }).from(payoutAttempts).where(inArray(payoutAttempts.id, otherIds));
    const knownIds = new Set(known.map((row) => row.id));
    for (const record of inDay) {
      if (record.payoutId === null || !knownIds.has(record.payoutId)) {
        differences.push({ kind: 'UNKNOWN_AT_PROVIDER', payoutId: record.payoutId, payoutPageId: null, merchantId: null, reference: record.reference, ours: null, provider: { amount: record.amount, status: record.status } });
      }
    }
    return { rail: rail.name, livemode, ours: ours.length, provider: listed.length, matched, differences };
  }

  return {
    /** `date`: YYYY-MM-DD (UTC). */
    async reconcilePayouts(date: string): Promise<PayoutReconciliationReport> {
      const from = new Date(`${date}T00:00:00.000Z`);
      const to = new Date(from.getTime() + dayMs);
      const configured: Array<[PayoutRail, boolean]> = [...railsOfMode(rails, false).map((rail): [PayoutRail, boolean] => [rail, false]), ...railsOfMode(rails, true).map((rail): [PayoutRail, boolean] => [rail, true])];
      const results: RailReconciliation[] = [];
      for (const [rail, livemode] of configured) {
        results.push(await reconcileRail(rail, livemode, from, to));
      }
      return { date, from: from.toISOString(), to: to.toISOString(), rails: results, differences: results.reduce((sum, rail) => sum + rail.differences.length, 0) };
    },
  };
}
