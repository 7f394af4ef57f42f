import { and, eq } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { sandboxProviderRecords } from '../../../db/schema/index.ts';
import type { Clock } from '../../../jobs/worker.ts';
import type { KycData } from '../../customers/rules.ts';
import type { KycOutcome, KycProvider } from './types.ts';

const providerName = 'sandbox-kyc';

type DataRule = { status: 'APPROVED' } | { status: 'REJECTED' | 'REVIEW' | 'STEP_UP'; reason: string };

/**
 * The sandbox's deterministic rules for the data check (contract §6 and §17), as a table: the first
 * matching row decides; no row → APPROVED.
 */
export const sandboxKycRules: ReadonlyArray<{ readonly when: (data: KycData) => boolean; readonly outcome: DataRule }> = [
  { when: (data) => data.lastName === 'Rejected', outcome: { status: 'REJECTED', reason: 'sandbox: last name "Rejected"' } },
  { when: (data) => data.dateOfBirth === '1901-01-01', outcome: { status: 'REJECTED', reason: 'sandbox: date of birth 1901-01-01' } },
  { when: (data) => data.lastName === 'Review', outcome: { status: 'REVIEW', reason: 'sandbox: last name "Review" needs a manual review' } },
  { when: (data) => data.lastName === 'Documents', outcome: { status: 'STEP_UP', reason: 'sandbox: last name "Documents" needs identity documents' } },
];

export function sandboxDataOutcome(data: KycData): DataRule {
  return sandboxKycRules.find((rule) => rule.when(data))?.outcome ?? { status: 'APPROVED' };
}

/**
 * The sandbox KYC provider: a real, deterministic provider behind the same port as Onfido. It keeps
 * its own records (as an outside provider would): the applicant holds only the rule that matched
 * (never the identity data), each check decides `delayMs` after it starts. A document check (after
 * a step-up) is approved.
 */
export function createSandboxKycProvider(deps: { database: Database; clock: Clock; delayMs: number }): KycProvider {
  const { database, clock, delayMs } = deps;

  async function record(reference: string) {
    const [row] = await database.db
      .select()
      .from(sandboxProviderRecords)
      .where(and(eq(sandboxProviderRecords.provider, providerName), eq(sandboxProviderRecords.reference, reference)));
    return row ?? null;
  }

  async function insert(reference: string, data: unknown, readyAt: Date): Promise<void> {
    await database.db
      .insert(sandboxProviderRecords)
      .values({ provider: providerName, reference, data, readyAt, createdAt: clock.now() })
      .onConflictDoNothing();
  }

  return {
    name: providerName,
    pollIntervalMs: Math.max(50, Math.min(delayMs, 1000)),

    async createApplicant({ verificationId, data }) {
      const applicantId = `applicant_${verificationId}`;
      await insert(applicantId, { rule: sandboxDataOutcome(data) }, clock.now());
      return applicantId;
    },

    async startCheck({ verificationId, applicantId, kind }) {
      const checkId = `check_${verificationId}_${kind.toLowerCase()}`;
      const applicant = await record(applicantId);
      if (!applicant) {
        throw new Error(`sandbox KYC has no applicant ${applicantId}`);
      }
      const outcome: DataRule = kind === 'DATA' ? (applicant.data as { rule: DataRule }).rule : { status: 'APPROVED' };
      // Keyed by our verification and the kind: a retried start finds the check it already made.
      await insert(checkId, { outcome }, new Date(clock.now().getTime() + delayMs));
      return checkId;
    },

    async fetchOutcome(checkId): Promise<KycOutcome> {
      const check = await record(checkId);
      if (!check) {
        throw new Error(`sandbox KYC has no check ${checkId}`);
      }
      if (check.readyAt.getTime() > clock.now().getTime()) {
        return { status: 'PENDING', retryAt: check.readyAt };
      }
      const { outcome } = check.data as { outcome: DataRule };
      return { ...outcome, breakdown: { sandbox_rules: outcome.status.toLowerCase() } };
    },

    async stepUpToken({ applicantId }) {
      return `sandbox-sdk-token:${applicantId}`;
    },

    checkUrl() {
      return null;
    },
  };
}
