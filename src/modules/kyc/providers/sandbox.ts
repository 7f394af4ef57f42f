import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { sandboxProviderRecords } from '../../../db/schema/index.ts';
import type { Clock } from '../../../jobs/worker.ts';
import type { KycProvider } from './types.ts';

const providerName = 'sandbox-kyc';

/**
 * The sandbox KYC provider (contract §6), deterministic: last name `Rejected` or date of birth
 * `1901-01-01` → REJECTED, anything else → APPROVED, decided `delayMs` after submission. It keeps
 * its own records, as an outside provider would.
 */
export function createSandboxKycProvider(deps: { database: Database; clock: Clock; delayMs: number }): KycProvider {
  const { database, clock, delayMs } = deps;
  return {
    name: providerName,
    pollIntervalMs: Math.max(50, Math.min(delayMs, 1000)),
    async submit({ verificationId, data }) {
      const now = clock.now();
      const rejectedReason =
        data.lastName === 'Rejected' ? 'sandbox: last name "Rejected"' : data.dateOfBirth === '1901-01-01' ? 'sandbox: date of birth 1901-01-01' : null;
      await database.db
        .insert(sandboxProviderRecords)
        .values({
          provider: providerName,
          reference: verificationId,
          data: { decision: rejectedReason ? 'REJECTED' : 'APPROVED', reason: rejectedReason },
          readyAt: new Date(now.getTime() + delayMs),
          createdAt: now,
        })
        .onConflictDoNothing();
      return { reference: verificationId };
    },
    async fetchDecision(reference) {
      const [record] = await database.db
        .select()
        .from(sandboxProviderRecords)
        .where(and(eq(sandboxProviderRecords.provider, providerName), eq(sandboxProviderRecords.reference, reference)));
      if (!record) {
        throw new Error(`sandbox KYC has no applicant ${reference}`);
      }
      if (record.readyAt.getTime() > clock.now().getTime()) {
        return { status: 'PENDING', retryAt: record.readyAt };
      }
      const data = record.data as { decision: 'APPROVED' | 'REJECTED'; reason: string | null };
      return data.decision === 'REJECTED' ? { status: 'REJECTED', reason: data.reason ?? 'rejected' } : { status: 'APPROVED' };
    },
  };
}
