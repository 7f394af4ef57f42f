import type { Check, Report } from '@onfido/api';
import type { KycCheckKind, KycOutcome } from '../providers/types.ts';

/** The report of a data-only check (Onfido's document-less identity verification). */
export const dataReport = 'identity_enhanced';
/** The reports of a document step-up: the document, and a selfie matched against it. */
export const documentReports = ['document', 'facial_similarity_photo'] as const;

export interface OnfidoResult {
  readonly check: Pick<Check, 'status' | 'result'>;
  readonly reports: ReadonlyArray<Pick<Report, 'name' | 'status' | 'result' | 'sub_result'>>;
  readonly kind: KycCheckKind;
}

/** Report name → `result` (or `result/sub_result`): what the review queue shows; never PII. */
export function breakdownOf(reports: OnfidoResult['reports']): Record<string, string> {
  const breakdown: Record<string, string> = {};
  for (const report of reports) {
    breakdown[report.name] = [report.result ?? report.status ?? 'unknown', report.sub_result].filter(Boolean).join('/');
  }
  return breakdown;
}

type Row = { readonly name: string; readonly when: (result: OnfidoResult) => boolean; readonly outcome: KycOutcome['status']; readonly reason: string | null };

const waiting = new Set(['in_progress', 'awaiting_applicant', 'paused', 'reopened']);

/**
 * Onfido's check and report states → our outcome, one row per case; the first row that matches
 * decides (a test per row: src/modules/kyc/onfido/mapping.test.ts). Reasons are fixed texts: they
 * reach the merchant and `kycReason`, so they never carry the applicant's data.
 */
export const onfidoOutcomeTable: readonly Row[] = [
  { name: 'check still running', when: ({ check }) => check.status === undefined || waiting.has(check.status), outcome: 'PENDING', reason: null },
  { name: 'check withdrawn at Onfido', when: ({ check }) => check.status === 'withdrawn', outcome: 'REVIEW', reason: 'onfido: the check was withdrawn' },
  { name: 'complete and clear', when: ({ check }) => check.status === 'complete' && check.result === 'clear', outcome: 'APPROVED', reason: null },
  {
    name: 'a report rejected outright',
    when: ({ check, reports }) => check.status === 'complete' && reports.some((report) => report.sub_result === 'rejected'),
    outcome: 'REJECTED',
    reason: 'onfido: the identity was rejected',
  },
  {
    name: 'data check: identity not found in data sources',
    when: ({ check, reports, kind }) => check.status === 'complete' && kind === 'DATA' && reports.some((report) => report.name === dataReport && report.result === 'unidentified'),
    outcome: 'STEP_UP',
    reason: 'onfido: the identity could not be confirmed from data; identity documents are needed',
  },
  { name: 'complete, consider', when: ({ check }) => check.status === 'complete', outcome: 'REVIEW', reason: 'onfido: the result is "consider"; a manual review is needed' },
  { name: 'any other state', when: () => true, outcome: 'REVIEW', reason: 'onfido: unexpected check state; a manual review is needed' },
];

export function mapOnfidoResult(result: OnfidoResult): KycOutcome {
  const row = onfidoOutcomeTable.find((candidate) => candidate.when(result));
  const status = row?.outcome ?? 'REVIEW';
  const reason = row?.reason ?? 'onfido: a manual review is needed';
  const breakdown = breakdownOf(result.reports);
  switch (status) {
    case 'PENDING':
      return { status };
    case 'APPROVED':
      return { status, breakdown };
    default:
      return { status, reason, breakdown };
  }
}
