import { and, desc, eq, isNull, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { kycVerifications } from '../../db/schema/index.ts';
import type { JobDefinition, JobOutcome } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { moveKycStatus, setPendingKycReason, type KycData } from '../customers/index.ts';
import type { KycOutcome, KycProvider } from './providers/types.ts';

export const kycVerifyQueue = 'kyc.verify';

export type KycDecisionHook = (tx: Executor, decision: { customerId: string; merchantId: string; livemode: boolean; status: 'APPROVED' | 'REJECTED' }, now: Date) => Promise<void>;

type VerificationRow = typeof kycVerifications.$inferSelect;

/**
 * A customer's verifications, latest first. A new one starts only once the previous is decided, so
 * among two created in the same millisecond the one still PENDING is the latest.
 */
export const latestVerificationFirst = [desc(kycVerifications.createdAt), sql`(${kycVerifications.status} = 'PENDING') desc`, desc(kycVerifications.id)];

/** The longest a reconciliation poll waits, whatever the provider says. */
const maxPollMs = 60 * 60 * 1000;

/**
 * Records a final decision (provider or merchant): the verification, the customer's `kycStatus` and
 * every listener (payout pages waiting on it) in the caller's transaction; conditional on the
 * verification still being PENDING, so a decision lands once. Returns false when it was decided already.
 */
export async function recordDecision(
  tx: Executor,
  hooks: readonly KycDecisionHook[],
  verification: Pick<VerificationRow, 'id' | 'customerId' | 'merchantId' | 'livemode'>,
  decision: { status: 'APPROVED' | 'REJECTED'; reason: string | null; decidedBy: 'provider' | 'merchant'; breakdown?: Record<string, string>; requireOutcome?: 'REVIEW' },
  now: Date,
): Promise<boolean> {
  const conditions = [eq(kycVerifications.id, verification.id), eq(kycVerifications.status, 'PENDING')];
  if (decision.requireOutcome) {
    conditions.push(eq(kycVerifications.providerOutcome, decision.requireOutcome));
  }
  const decided = await tx
    .update(kycVerifications)
    .set({
      status: decision.status,
      reason: decision.reason,
      decidedAt: now,
      decidedBy: decision.decidedBy,
      ...(decision.decidedBy === 'provider' ? { providerOutcome: decision.status } : {}),
      ...(decision.breakdown ? { breakdown: decision.breakdown } : {}),
    })
    .where(and(...conditions))
    .returning({ id: kycVerifications.id });
  if (decided.length === 0) {
    return false;
  }
  await moveKycStatus(tx, verification.customerId, { from: 'PENDING', to: decision.status, reason: decision.status === 'REJECTED' ? (decision.reason ?? 'rejected') : null }, now);
  for (const hook of hooks) {
    await hook(tx, { customerId: verification.customerId, merchantId: verification.merchantId, livemode: verification.livemode, status: decision.status }, now);
  }
  return true;
}

/**
 * Drives one verification forward with its provider: creates the applicant, starts the check
 * (exactly once: a start whose answer was lost is looked up by the provider, never redone blind),
 * reads the outcome and applies it. Used by the `kyc.verify` job (which also reconciles: it polls
 * until the outcome is known) and by provider webhooks (which only say "something changed").
 */
export function createVerificationDriver(deps: {
  database: Database;
  clock: Clock;
  providerFor: (livemode: boolean) => KycProvider | null;
  readKycData: (executor: Executor, customerId: string) => Promise<KycData>;
  hooks: readonly KycDecisionHook[];
}) {
  const { database, clock, providerFor, readKycData, hooks } = deps;

  async function load(verificationId: string): Promise<VerificationRow | null> {
    const [row] = await database.db.select().from(kycVerifications).where(eq(kycVerifications.id, verificationId));
    return row ?? null;
  }

  async function applyOutcome(verification: VerificationRow, checkId: string, outcome: KycOutcome): Promise<JobOutcome> {
    const now = clock.now();
    if (outcome.status === 'PENDING') {
      const provider = providerFor(verification.livemode);
      const at = now.getTime();
      const retryAt = outcome.retryAt && outcome.retryAt.getTime() > at ? outcome.retryAt.getTime() : at + (provider?.pollIntervalMs ?? maxPollMs);
      return { rescheduleAt: new Date(Math.min(retryAt, at + maxPollMs)) };
    }
    if (outcome.status === 'REVIEW' || outcome.status === 'STEP_UP') {
      // Waiting on a person (the merchant, or the customer's documents): nothing more to poll.
      await database.transaction(async (tx) => {
        const moved = await tx
          .update(kycVerifications)
          .set({ providerOutcome: outcome.status, reason: outcome.reason, breakdown: outcome.breakdown ?? null })
          .where(and(eq(kycVerifications.id, verification.id), eq(kycVerifications.status, 'PENDING'), eq(kycVerifications.providerReference, checkId)))
          .returning({ id: kycVerifications.id });
        if (moved.length > 0) {
          await setPendingKycReason(tx, verification.customerId, outcome.reason, now);
        }
      });
      return;
    }
    await database.transaction((tx) =>
      recordDecision(
        tx,
        hooks,
        verification,
        { status: outcome.status, reason: outcome.status === 'REJECTED' ? outcome.reason : null, decidedBy: 'provider', ...(outcome.breakdown ? { breakdown: outcome.breakdown } : {}) },
        now,
      ),
    );
    return;
  }

  async function advance(verificationId: string): Promise<JobOutcome> {
    const verification = await load(verificationId);
    if (!verification || verification.status !== 'PENDING' || verification.providerOutcome === 'REVIEW' || verification.providerOutcome === 'STEP_UP') {
      return;
    }
    const provider = providerFor(verification.livemode);
    if (!provider || provider.name !== verification.provider) {
      return;
    }
    let applicantId = verification.providerApplicantId;
    if (!applicantId) {
      const data = await readKycData(database.db, verification.customerId);
      // Recorded before the call: if its answer is lost (or the process dies), the next run knows the
      // applicant may exist and has the provider look for it instead of creating a second one.
      await database.db.update(kycVerifications).set({ applicantRequestedAt: clock.now() }).where(and(eq(kycVerifications.id, verificationId), isNull(kycVerifications.applicantRequestedAt)));
      applicantId = await provider.createApplicant({ verificationId, livemode: verification.livemode, data, attemptedBefore: verification.applicantRequestedAt !== null });
      await database.db.update(kycVerifications).set({ providerApplicantId: applicantId }).where(and(eq(kycVerifications.id, verificationId), isNull(kycVerifications.providerApplicantId)));
    }
    let checkId = verification.providerReference;
    if (!checkId) {
      // From here until the id is stored, the check's existence is unknown: the provider's
      // startCheck looks it up before creating one, so a retry never starts a second check.
      await database.db.update(kycVerifications).set({ checkRequestedAt: clock.now() }).where(eq(kycVerifications.id, verificationId));
      checkId = await provider.startCheck({ verificationId, applicantId, kind: verification.stage });
      await database.db
        .update(kycVerifications)
        .set({ providerReference: checkId, providerOutcome: 'PENDING' })
        .where(and(eq(kycVerifications.id, verificationId), isNull(kycVerifications.providerReference)));
    }
    const outcome = await provider.fetchOutcome(checkId);
    return applyOutcome({ ...verification, providerApplicantId: applicantId, providerReference: checkId }, checkId, outcome);
  }

  return {
    advance,

    /** The job that submits to the provider, applies its outcome and reconciles lost answers. */
    verifyJob(): JobDefinition<{ verificationId: string }> {
      return {
        queue: kycVerifyQueue,
        maxAttempts: 20,
        handle: async ({ verificationId }) => advance(verificationId),
      };
    },
  };
}
