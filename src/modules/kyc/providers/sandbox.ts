import { and, eq, inArray } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { sandboxProviderRecords } from '../../../db/schema/index.ts';
import type { Clock } from '../../../clock.ts';
import type { KycData } from '../../customers/index.ts';
import type { KycOutcome, KycProvider, StepUpCapture } from './types.ts';

const providerName = 'sandbox-kyc';

function documentsReference(applicantId: string): string {
  return `documents_${applicantId}`;
}

type DataRule = { status: 'APPROVED' } | { status: 'REJECTED' | 'REVIEW' | 'STEP_UP'; reason: string };

/**
 * The sandbox's deterministic rules for the data check (docs/API.md §6 and §17), as a table: the first
 * matching row decides; no row → APPROVED.
 */
export const sandboxKycRules: ReadonlyArray<{ readonly when: (data: KycData) => boolean; readonly outcome: DataRule }> = [
  { when: (data) => data.lastName === 'Rejected', outcome: { status: 'REJECTED', reason: 'sandbox: last name "Rejected"' } },
  { when: (data) => data.dateOfBirth === '1901-01-01', outcome: { status: 'REJECTED', reason: 'sandbox: date of birth 1901-01-01' } },
  { when: (data) => data.lastName === 'Review', outcome: { status: 'REVIEW', reason: 'sandbox: last name "Review" needs a manual review' } },
  { when: (data) => data.lastName === 'Documents', outcome: { status: 'STEP_UP', reason: 'sandbox: last name "Documents" needs identity documents' } },
];

/**
 * The sandbox's test documents for a step-up (its capture form): each decides the document check.
 * No image is asked for; the choice is all the sandbox keeps.
 */
export const sandboxTestDocuments: ReadonlyArray<{ value: string; label: string; hint: string; outcome: DataRule }> = [
  { value: 'passport_genuine', label: 'Genuine test passport', hint: 'The document check passes.', outcome: { status: 'APPROVED' } },
  { value: 'passport_tampered', label: 'Tampered test passport', hint: 'The document check rejects it.', outcome: { status: 'REJECTED', reason: 'sandbox: the test document "tampered passport" was rejected' } },
  { value: 'passport_blurred', label: 'Blurred test passport', hint: 'The check cannot decide: the merchant reviews it.', outcome: { status: 'REVIEW', reason: 'sandbox: the test document "blurred passport" needs a manual review' } },
];

export function sandboxDataOutcome(data: KycData): DataRule {
  return sandboxKycRules.find((rule) => rule.when(data))?.outcome ?? { status: 'APPROVED' };
}

/**
 * The sandbox KYC provider: a real, deterministic provider behind the same port as Onfido. It keeps
 * its own records (as an outside provider would): the applicant holds only the rule that matched
 * (never the identity data), each check decides `delayMs` after it starts. A document check (after
 * a step-up) is decided by the test document the customer picked (`sandboxTestDocuments`).
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
      let outcome: DataRule;
      if (kind === 'DATA') {
        outcome = (applicant.data as { rule: DataRule }).rule;
      } else {
        // As at Onfido, a document check needs the applicant's captured documents.
        const captured = await record(documentsReference(applicantId));
        if (!captured) {
          throw new Error(`sandbox KYC: applicant ${applicantId} has no captured documents`);
        }
        outcome = (captured.data as { outcome: DataRule }).outcome;
      }
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

    async stepUpCapture(): Promise<StepUpCapture> {
      return { kind: 'TEST_DOCUMENTS', documents: sandboxTestDocuments.map(({ value, label, hint }) => ({ value, label, hint })) };
    },

    async receiveCapture({ applicantId, captured }) {
      const document = 'testDocument' in captured ? sandboxTestDocuments.find((candidate) => candidate.value === captured.testDocument) : undefined;
      if (!document || !(await record(applicantId))) {
        return false;
      }
      // The first capture is the one checked (a replayed form changes nothing).
      await insert(documentsReference(applicantId), { outcome: document.outcome }, clock.now());
      return true;
    },

    checkUrl() {
      return null;
    },

    async deleteApplicant(applicantId) {
      // The applicant, its captured documents and its checks (`check_<verification>_<kind>`).
      const verificationId = applicantId.replace(/^applicant_/, '');
      const deleted = await database.db
        .delete(sandboxProviderRecords)
        .where(
          and(
            eq(sandboxProviderRecords.provider, providerName),
            inArray(sandboxProviderRecords.reference, [applicantId, documentsReference(applicantId), `check_${verificationId}_data`, `check_${verificationId}_documents`]),
          ),
        )
        .returning({ reference: sandboxProviderRecords.reference });
      return deleted.some((row) => row.reference === applicantId) ? 'deleted' : 'not_found';
    },
  };
}
