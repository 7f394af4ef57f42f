import type { KycData } from '../../customers/index.ts';

/**
 * What a verification's current check says, in our language (each adapter maps its provider's
 * statuses to these in one table):
 * - `PENDING`: the provider is still working (`retryAt`: when it expects to be done);
 * - `APPROVED` / `REJECTED`: decided;
 * - `REVIEW`: the provider could not decide; a person (the merchant) must;
 * - `STEP_UP`: data alone cannot confirm the identity; the customer must show documents.
 * `reason` is never PII; `breakdown` (report or rule → result) neither.
 */
export type KycOutcome =
  | { status: 'PENDING'; retryAt?: Date }
  | { status: 'APPROVED'; breakdown?: Record<string, string> }
  | { status: 'REJECTED'; reason: string; breakdown?: Record<string, string> }
  | { status: 'REVIEW'; reason: string; breakdown?: Record<string, string> }
  | { status: 'STEP_UP'; reason: string; breakdown?: Record<string, string> };

/**
 * Where a provider's browser SDK loads from and talks to, per CSP directive: the hosted page's
 * policy allows exactly these, and only on the page that captures documents.
 */
export interface CaptureSources {
  readonly script: readonly string[];
  readonly style: readonly string[];
  readonly font: readonly string[];
  readonly connect: readonly string[];
  readonly frame: readonly string[];
  readonly img: readonly string[];
}

/**
 * How the customer shows their identity document and a selfie (the step-up):
 * - `SDK`: the provider's browser SDK (`scriptUrl`, exposing `Onfido.init`-style `init`) captures
 *   and uploads them straight to the provider, authorized by a short-lived `token`; needs JavaScript;
 * - `TEST_DOCUMENTS`: the sandbox's plain form: the customer picks a test document whose outcome is
 *   known in advance; no image is sent or stored. Works without JavaScript.
 */
export type StepUpCapture =
  | { readonly kind: 'SDK'; readonly token: string; readonly scriptUrl: string; readonly sources: CaptureSources }
  | { readonly kind: 'TEST_DOCUMENTS'; readonly documents: ReadonlyArray<{ readonly value: string; readonly label: string; readonly hint: string }> };

/** What the capture produced, as posted by the page: the SDK's document and selfie ids, or the sandbox's test document. */
export type CapturedDocuments = { readonly documentId: string; readonly faceId: string } | { readonly testDocument: string };

/** `DATA`: the background, document-less check; `DOCUMENTS`: document + selfie after a step-up. */
export type KycCheckKind = 'DATA' | 'DOCUMENTS';

/**
 * An identity verification provider. The live adapter (Onfido) and the deterministic sandbox
 * implement the same calls; the KYC service drives them from its jobs and never guesses an outcome.
 */
export interface KycProvider {
  readonly name: string;
  /**
   * How often the reconciliation job looks at a check whose outcome is not known yet. A provider
   * that pushes outcomes (webhooks) polls rarely: the poll only settles lost answers.
   */
  readonly pollIntervalMs: number;
  /**
   * Creates the person to verify with exactly the fields the check needs, once per verification;
   * returns the provider's id for them. `attemptedBefore`: an earlier call's answer was lost (the
   * process died, the connection dropped), so the provider may hold the applicant already: it is
   * looked for first and reused, never created twice.
   */
  createApplicant(input: { verificationId: string; livemode: boolean; data: KycData; attemptedBefore: boolean }): Promise<string>;
  /**
   * Starts the check of `kind` for the applicant, exactly once per (verification, kind): it first
   * looks up a check already started for them (a retry after a lost answer finds it) and only
   * creates one when there is none. Returns the check's id.
   */
  startCheck(input: { verificationId: string; applicantId: string; kind: KycCheckKind }): Promise<string>;
  /** The check's outcome so far, read from the provider. */
  fetchOutcome(checkId: string): Promise<KycOutcome>;
  /**
   * How the applicant's documents are captured (step-up). `referrer`: the URL pattern of the page
   * that may use an SDK token (`https://pay.example.com/*`).
   */
  stepUpCapture(input: { applicantId: string; referrer: string }): Promise<StepUpCapture>;
  /**
   * Accepts what the capture produced for the applicant before the document check starts: the
   * provider confirms it holds those uploads (false: it does not; nothing is started). The
   * document check then uses them.
   */
  receiveCapture(input: { applicantId: string; captured: CapturedDocuments }): Promise<boolean>;
  /** Where the merchant sees the check at the provider (dashboard link), or null. */
  checkUrl(checkId: string): string | null;
  /**
   * Deletes the applicant and what the provider holds about them (the customer was erased).
   * `not_found`: the provider has no such applicant (already deleted): the outcome is the same,
   * so a retry after a lost answer is safe.
   */
  deleteApplicant(applicantId: string): Promise<'deleted' | 'not_found'>;
}
