import { and, asc, eq, gt, not, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { postedUnder, type LedgerService } from '../ledger/index.ts';
import { creditMerchant } from './settle.ts';

/** The queue of the one-time backfill job (migration 0016 enqueues it on databases that hold payments). */
export const paymentCreditBackfillQueue = 'payments.backfill-credits';

export interface PaymentCreditBackfillResult {
  /** Payments credited by this run. */
  credited: number;
  /** Payments found without a credit that another run or the settlement credited meanwhile. */
  alreadyCredited: number;
}

/**
 * Card payments that succeeded before card payments were posted to the ledger (before migration
 * 0013) have no credit: this posts it (external → available, `kind` payment, the same idempotency
 * key as the settlement's, `<payment id>:payment`), one payment per transaction, in id order. A
 * unique constraint on that key makes it exactly once whatever runs at the same time (another
 * backfill, a settlement): running it again credits nothing more.
 */
export function createPaymentCreditBackfill(deps: { database: Database; clock: Clock; ledger: Pick<LedgerService, 'post'> }) {
  const { database, clock, ledger } = deps;

  async function run(options: { batchSize?: number } = {}): Promise<PaymentCreditBackfillResult> {
    const batchSize = options.batchSize ?? 200;
    const result: PaymentCreditBackfillResult = { credited: 0, alreadyCredited: 0 };
    let after = '';
    for (;;) {
      const uncredited = await database.db
        .select({ id: payments.id })
        .from(payments)
        .where(
          and(
            eq(payments.status, 'SUCCEEDED'),
            gt(payments.id, after),
            not(postedUnder(sql`${payments.id} || ':payment'`)),
          ),
        )
        .orderBy(asc(payments.id))
        .limit(batchSize);
      for (const { id } of uncredited) {
        const credited = await database.transaction(async (tx) => {
          const [payment] = await tx.select().from(payments).where(eq(payments.id, id));
          return payment ? creditMerchant(ledger, tx, payment, clock.now()) : false;
        });
        result[credited ? 'credited' : 'alreadyCredited'] += 1;
      }
      const last = uncredited[uncredited.length - 1];
      if (!last || uncredited.length < batchSize) {
        return result;
      }
      after = last.id;
    }
  }

  function job(): JobDefinition<Record<string, never>> {
    return {
      queue: paymentCreditBackfillQueue,
      maxAttempts: 20,
      handle: async () => {
        await run();
      },
    };
  }

  return { run, job };
}

export type PaymentCreditBackfill = ReturnType<typeof createPaymentCreditBackfill>;
