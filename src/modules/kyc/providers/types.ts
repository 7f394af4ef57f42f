import type { KycData } from '../../customers/rules.ts';

/** `retryAt`: when the provider expects to have decided (the job looks again then, else after `pollIntervalMs`). */
export type KycDecision = { status: 'PENDING'; retryAt?: Date } | { status: 'APPROVED' } | { status: 'REJECTED'; reason: string };

/**
 * An identity verification provider. Live adapters (Persona, Onfido, …) implement the same two
 * calls; the sandbox provider is a deterministic implementation of them.
 */
export interface KycProvider {
  readonly name: string;
  /** Submits the applicant; idempotent by `verificationId` (a retried job never submits twice). */
  submit(input: { verificationId: string; livemode: boolean; data: KycData }): Promise<{ reference: string }>;
  /** The decision so far. */
  fetchDecision(reference: string): Promise<KycDecision>;
  /** When to ask again while the decision is pending. */
  readonly pollIntervalMs: number;
}
