import { and, eq, gte, lt } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { sandboxProviderRecords } from '../../../db/schema/index.ts';
import type { Clock } from '../../../clock.ts';
import type { PayoutDestination } from '../destinations.ts';
import type { PayoutRail, PayoutRailRecord, PayoutRailStatus } from './types.ts';
import { sandboxTransactionHash } from './explorer.ts';

export const sandboxRailName = 'sandbox-rail';

type SandboxOutcome = { outcome: 'PAID' } | { outcome: 'REJECTED'; reason: string } | { outcome: 'RETURNED'; reason: string };

/**
 * docs/API.md §8 and §17: an account number ending 0002 or a wallet address ending `dead` (any case) is
 * rejected; an account number ending 0003 is paid, then returned; everything else is paid.
 */
export function sandboxOutcome(destination: PayoutDestination): SandboxOutcome {
  if (destination.type === 'BANK_TRANSFER') {
    if (destination.accountNumber.endsWith('0002')) {
      return { outcome: 'REJECTED', reason: 'sandbox: bank account number ending 0002 is rejected' };
    }
    if (destination.accountNumber.endsWith('0003')) {
      return { outcome: 'RETURNED', reason: 'sandbox: bank account number ending 0003 is returned after payment' };
    }
    return { outcome: 'PAID' };
  }
  return destination.address.toLowerCase().endsWith('dead') ? { outcome: 'REJECTED', reason: 'sandbox: wallet address ending "dead" is rejected' } : { outcome: 'PAID' };
}

interface SandboxRecordData {
  amount: number;
  currency: string;
  outcome: SandboxOutcome['outcome'];
  reason: string | null;
  /** When a RETURNED payout is given back (epoch ms); `readyAt` is when it is paid. */
  returnAt?: number;
  /** Crypto payouts: a deterministic fake transaction hash (sandbox only, on no chain). */
  transactionHash?: string;
}

/**
 * The sandbox payout rail, deterministic: rejected destinations end REJECTED and everything else
 * PAID, `delayMs` after submission; a returned one is PAID then, and RETURNED `delayMs` later. A
 * paid crypto payout carries a deterministic fake transaction hash (`sandboxTransactionHash`). Like
 * an outside rail it keeps its own records, keyed by our payout id, so a second submission of the
 * same payout is the same payout, and a payout can be retrieved by our id.
 */
export function createSandboxPayoutRail(deps: { database: Database; clock: Clock; delayMs: number }): PayoutRail {
  const { database, clock, delayMs } = deps;

  function statusOf(readyAt: Date, data: SandboxRecordData): PayoutRailStatus {
    const now = clock.now().getTime();
    if (readyAt.getTime() > now) {
      return { status: 'PENDING' };
    }
    if (data.outcome === 'REJECTED') {
      return { status: 'REJECTED', reason: data.reason ?? 'rejected' };
    }
    if (data.outcome === 'RETURNED') {
      const returnAt = data.returnAt ?? readyAt.getTime();
      return returnAt <= now ? { status: 'RETURNED', reason: data.reason ?? 'returned' } : { status: 'PAID', recheckAt: new Date(returnAt) };
    }
    return data.transactionHash ? { status: 'PAID', transactionHash: data.transactionHash } : { status: 'PAID' };
  }

  async function read(reference: string): Promise<PayoutRailRecord | null> {
    const [record] = await database.db
      .select()
      .from(sandboxProviderRecords)
      .where(and(eq(sandboxProviderRecords.provider, sandboxRailName), eq(sandboxProviderRecords.reference, reference)));
    return record ? { reference: record.reference, status: statusOf(record.readyAt, record.data as SandboxRecordData) } : null;
  }

  return {
    name: sandboxRailName,
    pollIntervalMs: Math.max(50, Math.min(delayMs, 1000)),
    async submit(submission) {
      const now = clock.now();
      const outcome = sandboxOutcome(submission.destination);
      const readyAt = new Date(now.getTime() + delayMs);
      // What a rail would keep: no destination details beyond the outcome.
      const data: SandboxRecordData = {
        amount: submission.amount,
        currency: submission.currency,
        outcome: outcome.outcome,
        reason: outcome.outcome === 'PAID' ? null : outcome.reason,
        ...(outcome.outcome === 'RETURNED' ? { returnAt: readyAt.getTime() + delayMs } : {}),
        ...(submission.destination.type === 'CRYPTO_WALLET' ? { transactionHash: sandboxTransactionHash(submission.destination.network, submission.payoutId) } : {}),
      };
      await database.db.insert(sandboxProviderRecords).values({ provider: sandboxRailName, reference: submission.payoutId, data, readyAt, createdAt: now }).onConflictDoNothing();
      const record = await read(submission.payoutId);
      if (!record) {
        throw new Error(`sandbox rail lost payout ${submission.payoutId}`);
      }
      return record;
    },
    retrieve: read,
    async listPayouts({ from, to }) {
      const records = await database.db
        .select()
        .from(sandboxProviderRecords)
        .where(and(eq(sandboxProviderRecords.provider, sandboxRailName), gte(sandboxProviderRecords.createdAt, from), lt(sandboxProviderRecords.createdAt, to)));
      return records.map((record) => {
        const data = record.data as SandboxRecordData;
        return { payoutId: record.reference, reference: record.reference, amount: data.amount, status: statusOf(record.readyAt, data).status };
      });
    },
    async fetchStatus(reference) {
      const record = await read(reference);
      if (!record) {
        throw new Error(`sandbox rail has no payout ${reference}`);
      }
      return record.status;
    },
  };
}
