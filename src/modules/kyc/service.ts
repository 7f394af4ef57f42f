import { and, eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { kycVerifications } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock } from '../../clock.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { CapturedDocuments, KycProvider, StepUpCapture } from './providers/types.ts';
import { missingKycFields, moveKycStatus, setPendingKycReason, type KycData, type KycStartPlan, type KycSubject } from '../customers/index.ts';
import { createVerificationDriver, kycVerifyQueue, latestVerificationFirst, type KycDecisionHook } from './verify.ts';
import { createKycReviews } from './review.ts';
import { createKycErasure } from './erasure.ts';

export { kycVerifyQueue, type KycDecisionHook };

export type KycReverificationHook = (tx: Executor, customer: { customerId: string }, now: Date) => Promise<void>;

/**
 * The fields a verification checks: exactly those a provider receives (the Onfido applicant: names,
 * date of birth, the address; the sandbox rules look at a subset). A change of one after approval
 * calls for a new verification. The phone number, middle name and `address.line2` are required or
 * kept for other reasons but neither sent nor checked, so changing them does not
 * (src/modules/kyc/verified-fields.test.ts holds this list to what the Onfido adapter sends).
 */
export const verifiedIdentityFields: ReadonlyArray<keyof KycData> = ['firstName', 'lastName', 'dateOfBirth', 'address.line1', 'address.city', 'address.state', 'address.postalCode', 'address.country'];

export const noLiveProviderReason = 'No live KYC provider is configured: live verifications stay PENDING until the operator configures one.';

/**
 * KYC: when a customer's identity data is complete it is submitted to the provider in the
 * background; the decision updates `kycStatus` and notifies listeners (payout pages wait on it)
 * in the same transaction.
 */
export function createKycService(deps: {
  database: Database;
  clock: Clock;
  sandboxProvider: KycProvider;
  liveProvider: KycProvider | null;
  readKycData: (executor: Executor, customerId: string) => Promise<KycData>;
}) {
  const { database, clock, sandboxProvider, liveProvider, readKycData } = deps;
  const decisionHooks: KycDecisionHook[] = [];
  const reverificationHooks: KycReverificationHook[] = [];

  function providerFor(livemode: boolean): KycProvider | null {
    return livemode ? liveProvider : sandboxProvider;
  }
  const driver = createVerificationDriver({ database, clock, providerFor, readKycData, hooks: decisionHooks });
  const reviews = createKycReviews({ database, clock, hooks: decisionHooks, providerFor });
  const erasure = createKycErasure({ database, clock, providerFor });

  /**
   * What starting verification means for this customer, or null when it does not start (data
   * incomplete, or already started): the verification row and, when a provider is configured,
   * the job that submits it. `startIfComplete` applies it; a create applies it in its own insert.
   */
  function planStart(customer: KycSubject, data: KycData, now: Date, options: { again?: boolean } = {}): KycStartPlan | null {
    if (customer.kycStatus !== (options.again ? 'APPROVED' : 'NOT_STARTED') || missingKycFields(data).length > 0) {
      return null;
    }
    const provider = providerFor(customer.livemode);
    const id = newId('kycVerification', now.getTime());
    return {
      verification: {
        id,
        merchantId: customer.merchantId,
        livemode: customer.livemode,
        customerId: customer.id,
        provider: provider?.name ?? 'none',
        status: 'PENDING',
        reason: provider ? null : noLiveProviderReason,
        createdAt: now,
      },
      job: provider ? { queue: kycVerifyQueue, payload: { verificationId: id }, options: { dedupeKey: `kyc.verify:${id}`, maxAttempts: 20 } } : null,
    };
  }

  async function start(tx: Executor, customer: KycSubject, data: KycData, now: Date, options: { again?: boolean }): Promise<'PENDING' | null> {
    const plan = planStart(customer, data, now, options);
    if (!plan) {
      return null;
    }
    await tx.insert(kycVerifications).values(plan.verification);
    await moveKycStatus(tx, customer.id, { from: options.again ? 'APPROVED' : 'NOT_STARTED', to: 'PENDING', reason: null }, now);
    if (plan.job) {
      await enqueueJob(tx, now, plan.job.queue, plan.job.payload, plan.job.options);
    }
    if (options.again) {
      for (const hook of reverificationHooks) {
        await hook(tx, { customerId: customer.id }, now);
      }
    }
    return 'PENDING';
  }

  return {
    onDecision(hook: KycDecisionHook): void {
      decisionHooks.push(hook);
    },

    /** Called in the transaction that starts a re-verification (the approval is no longer current). */
    onReverification(hook: KycReverificationHook): void {
      reverificationHooks.push(hook);
    },

    planStart,

    /**
     * Starts verification if the data is complete and none has started. Runs inside the caller's
     * transaction with the customer row locked (or just inserted) by the caller.
     */
    async startIfComplete(tx: Executor, customer: KycSubject, data: KycData, now: Date): Promise<'PENDING' | null> {
      return start(tx, customer, data, now, {});
    },

    /**
     * Re-verification: an APPROVED customer whose identity data changed is verified again (a new
     * verification; `kycStatus` back to PENDING) before the next payout. Same transaction rules as
     * `startIfComplete`. Returns 'PENDING' when a verification started.
     */
    async reverifyIfChanged(tx: Executor, customer: KycSubject, before: KycData, after: KycData, now: Date): Promise<'PENDING' | null> {
      const changed = verifiedIdentityFields.some((field) => (before[field] ?? null) !== (after[field] ?? null));
      return changed ? start(tx, customer, after, now, { again: true }) : null;
    },

    async latestVerification(customerId: string) {
      const [row] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId)).orderBy(...latestVerificationFirst).limit(1);
      return row ?? null;
    },

    /** The customer's verification waiting for documents (step-up), or null. */
    async awaitingDocuments(customerId: string) {
      const [row] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId)).orderBy(...latestVerificationFirst).limit(1);
      return row && row.status === 'PENDING' && row.providerOutcome === 'STEP_UP' ? row : null;
    },

    /**
     * Where the customer's document step-up stands: `CAPTURE` (documents are asked for), `CHECKING`
     * (captured; the document check runs), or null (no step-up under way).
     */
    async stepUpStage(customerId: string): Promise<{ stage: 'CAPTURE' | 'CHECKING'; verification: typeof kycVerifications.$inferSelect } | null> {
      const [row] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.customerId, customerId)).orderBy(...latestVerificationFirst).limit(1);
      if (!row || row.status !== 'PENDING') {
        return null;
      }
      if (row.providerOutcome === 'STEP_UP') {
        return { stage: 'CAPTURE', verification: row };
      }
      return row.stage === 'DOCUMENTS' && row.providerOutcome !== 'REVIEW' ? { stage: 'CHECKING', verification: row } : null;
    },

    /** How the customer of a verification waiting for documents captures them (the provider's SDK, or the sandbox's test documents). */
    async stepUpCapture(verification: { livemode: boolean; providerApplicantId: string | null }, referrer: string): Promise<StepUpCapture | null> {
      const provider = providerFor(verification.livemode);
      return provider && verification.providerApplicantId ? provider.stepUpCapture({ applicantId: verification.providerApplicantId, referrer }) : null;
    },

    /**
     * The customer captured their documents: the provider confirms it holds them, then the
     * verification moves to the document check (started by the job, exactly once). Conditional on
     * it still waiting for documents. `CAPTURE_MISSING`: the provider holds no such capture (nothing
     * changed); `NOT_WAITING`: it was submitted already or is not waiting.
     */
    async submitDocuments(verificationId: string, captured: CapturedDocuments): Promise<'SUBMITTED' | 'CAPTURE_MISSING' | 'NOT_WAITING'> {
      const [waiting] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.id, verificationId));
      const provider = waiting ? providerFor(waiting.livemode) : null;
      if (!waiting || !provider || !waiting.providerApplicantId || waiting.status !== 'PENDING' || waiting.providerOutcome !== 'STEP_UP') {
        return 'NOT_WAITING';
      }
      if (!(await provider.receiveCapture({ applicantId: waiting.providerApplicantId, captured }))) {
        return 'CAPTURE_MISSING';
      }
      const moved = await database.transaction(async (tx) => {
        const now = clock.now();
        const moved = await tx
          .update(kycVerifications)
          .set({ stage: 'DOCUMENTS', providerReference: null, providerOutcome: 'PENDING', checkRequestedAt: null, reason: null })
          .where(and(eq(kycVerifications.id, verificationId), eq(kycVerifications.status, 'PENDING'), eq(kycVerifications.providerOutcome, 'STEP_UP')))
          .returning({ customerId: kycVerifications.customerId });
        if (!moved[0]) {
          return false;
        }
        await setPendingKycReason(tx, moved[0].customerId, 'identity documents are being checked', now);
        await enqueueJob(tx, now, kycVerifyQueue, { verificationId }, { dedupeKey: `kyc.verify:${verificationId}:documents`, maxAttempts: 20 });
        return true;
      });
      return moved ? 'SUBMITTED' : 'NOT_WAITING';
    },

    /** The job that submits to the provider, applies its outcome and reconciles lost answers. */
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs: (): JobDefinition[] => [driver.verifyJob(), erasure.deletionJob()],
    verifyJob: () => driver.verifyJob(),

    /** Reads the provider again and applies what it says (a provider webhook's "something changed"). */
    refresh: (verificationId: string) => driver.advance(verificationId),

    /** The merchant's review queue and decisions. */
    reviews,

    /** Erasing a customer: open verifications end, the provider's applicants are deleted by a job. */
    eraseCustomer: erasure.eraseCustomer,
    applicantDeletionJob: () => erasure.deletionJob(),
  };
}

export type KycService = ReturnType<typeof createKycService>;
