import type { Executor } from '../../db/client.ts';
import type { EnqueueOptions } from '../../jobs/queue.ts';
import type { KycData } from './rules.ts';

/** The customer as KYC sees it when deciding whether a verification starts. */
export interface KycSubject {
  id: string;
  merchantId: string;
  livemode: boolean;
  kycStatus: string;
}

/** A verification about to start: its row, and the job that submits it (none without a provider). */
export interface KycStartPlan {
  verification: { id: string; merchantId: string; livemode: boolean; customerId: string; provider: string; status: 'PENDING'; reason: string | null; createdAt: Date };
  job: { queue: string; payload: { verificationId: string }; options: EnqueueOptions } | null;
}

/**
 * What customers asks of KYC when identity data arrives or changes. The kyc module implements it and
 * `platform.ts` connects it (`customers.useKyc(kyc)`), so customers depends on this port and never on
 * the kyc module, which itself reads identity data through customers.
 */
export interface CustomerKyc {
  /** The verification a customer's data would start now, or null (already started, or data missing). */
  planStart(customer: KycSubject, data: KycData, now: Date): KycStartPlan | null;
  /** Starts verification in `tx` if the data is complete and none has started; 'PENDING' when it did. */
  startIfComplete(tx: Executor, customer: KycSubject, data: KycData, now: Date): Promise<'PENDING' | null>;
  /** After approval, starts a new verification when a verified field changed; 'PENDING' when it did. */
  reverifyIfChanged(tx: Executor, customer: KycSubject, before: KycData, after: KycData, now: Date): Promise<'PENDING' | null>;
}
