import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { sandboxProviderRecords } from '../../../db/schema/index.ts';
import type { Clock } from '../../../jobs/worker.ts';
import type { PayoutDestination } from '../destinations.ts';
import type { PayoutRail } from './types.ts';

export const sandboxRailName = 'sandbox-rail';

/** Contract §8: an account number ending 0002 or a wallet address ending `dead` (any case) is rejected. */
export function sandboxRejection(destination: PayoutDestination): string | null {
  if (destination.type === 'BANK_TRANSFER') {
    return destination.accountNumber.endsWith('0002') ? 'sandbox: bank account number ending 0002 is rejected' : null;
  }
  return destination.address.toLowerCase().endsWith('dead') ? 'sandbox: wallet address ending "dead" is rejected' : null;
}

/**
 * The sandbox payout rail, deterministic: rejected destinations (above) end REJECTED, everything
 * else PAID, `delayMs` after submission. Like an outside rail it keeps its own records, keyed by
 * the payout id, so a second submission of the same payout is the same payout.
 */
export function createSandboxPayoutRail(deps: { database: Database; clock: Clock; delayMs: number }): PayoutRail {
  const { database, clock, delayMs } = deps;
  return {
    name: sandboxRailName,
    pollIntervalMs: Math.max(50, Math.min(delayMs, 1000)),
    async submit(submission) {
      const now = clock.now();
      const rejection = sandboxRejection(submission.destination);
      await database.db
        .insert(sandboxProviderRecords)
        .values({
          provider: sandboxRailName,
          reference: submission.payoutId,
          // What a rail would keep: no destination details beyond the outcome.
          data: { amount: submission.amount, currency: submission.currency, outcome: rejection ? 'REJECTED' : 'PAID', reason: rejection },
          readyAt: new Date(now.getTime() + delayMs),
          createdAt: now,
        })
        .onConflictDoNothing();
      return { reference: submission.payoutId };
    },
    async fetchStatus(reference) {
      const [record] = await database.db
        .select()
        .from(sandboxProviderRecords)
        .where(and(eq(sandboxProviderRecords.provider, sandboxRailName), eq(sandboxProviderRecords.reference, reference)));
      if (!record) {
        throw new Error(`sandbox rail has no payout ${reference}`);
      }
      if (record.readyAt.getTime() > clock.now().getTime()) {
        return { status: 'PENDING' };
      }
      const data = record.data as { outcome: 'PAID' | 'REJECTED'; reason: string | null };
      return data.outcome === 'REJECTED' ? { status: 'REJECTED', reason: data.reason ?? 'rejected' } : { status: 'PAID' };
    },
  };
}
