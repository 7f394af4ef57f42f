import assert from 'node:assert/strict';
import type { TestContext, TestMerchant } from '../helpers/context.ts';

// The ledger model check's model (ledger-model.ts): the page states, the four ledger accounts per
// currency, and the rules by which commands and the job worker move them.

export type Currency = 'USDC' | 'USD';
export const currencies: readonly Currency[] = ['USDC', 'USD'];

type KycStatus = 'NOT_STARTED' | 'PENDING' | 'APPROVED' | 'REJECTED';
export type PageState =
  | 'CREATED/AWAITING_CUSTOMER'
  | 'PENDING/KYC_REQUIRED'
  | 'PENDING/KYC_IN_REVIEW'
  | 'PENDING/AWAITING_RELEASE'
  | 'PROCESSING/SUBMITTED'
  | 'PROCESSED/PAID'
  | 'FAILED/KYC_REJECTED'
  | 'FAILED/PAYOUT_REJECTED'
  | 'CANCELED/MERCHANT_CANCELED'
  | 'CANCELED/CUSTOMER_DECLINED'
  | 'EXPIRED/NOT_COMPLETED';

/** The sandbox delays the model assumes (createTestContext's SANDBOX_*_DELAY_MS) and the pollers' interval. */
const kycDelayMs = 2_000;
export const railDelayMs = 2_000;
const railPollMs = 1_000;

export interface ModelBalance {
  available: number;
  reserved: number;
  inFlight: number;
  external: number;
}

interface ModelCustomer {
  referenceId: string;
  kyc: KycStatus;
  /** When PENDING: the time the sandbox provider decides (set when the verify job first runs), and what. */
  decidesAt?: number;
  outcome?: 'APPROVED' | 'REJECTED';
}

export interface ModelPage {
  id: string;
  currency: Currency;
  amount: number;
  releaseMethod: 'AUTOMATIC' | 'MANUAL';
  customer: number;
  state: PageState;
  expiresAt: number;
  /** Set at confirmation: the sandbox rail rejects this destination. */
  railRejects: boolean;
  /** While PROCESSING: when the rail's outcome is ready and when the settle job polls next (unset until the submit job ran). */
  railReadyAt?: number;
  settleAt?: number;
}

export interface LedgerModel {
  now: number;
  balances: Record<Currency, ModelBalance>;
  customers: ModelCustomer[];
  pages: ModelPage[];
}

export interface Real {
  context: TestContext;
  /** Runs the payout page and KYC jobs only (see modelWorker). */
  drainModelJobs: () => Promise<number>;
  /** The SQL invariants of the whole ledger, read incrementally (createLedgerWatch: the same rules as assertLedgerInvariants). */
  checkLedger: () => Promise<void>;
  merchant: TestMerchant;
  /** clientReferenceId prefix of this run's pages. */
  prefix: string;
}

type Movement = 'reserve' | 'release' | 'submit' | 'settle' | 'return';
const movements: Record<Movement, { from: keyof ModelBalance; to: keyof ModelBalance }> = {
  reserve: { from: 'available', to: 'reserved' },
  release: { from: 'reserved', to: 'available' },
  submit: { from: 'reserved', to: 'inFlight' },
  settle: { from: 'inFlight', to: 'external' },
  return: { from: 'inFlight', to: 'available' },
};

export const openStates: ReadonlySet<PageState> = new Set(['CREATED/AWAITING_CUSTOMER', 'PENDING/KYC_REQUIRED', 'PENDING/KYC_IN_REVIEW', 'PENDING/AWAITING_RELEASE']);

// ---------------------------------------------------------------- the model's rules

export function move(model: LedgerModel, page: ModelPage, movement: Movement): void {
  const { from, to } = movements[movement];
  const balance = model.balances[page.currency];
  balance[from] -= page.amount;
  balance[to] += page.amount;
  for (const kind of ['available', 'reserved', 'inFlight'] as const) {
    assert.ok(balance[kind] >= 0, `model: ${page.currency} ${kind} went negative (${balance[kind]}) on ${movement} of ${page.id}`);
  }
}

/** PENDING/AWAITING_RELEASE, and for AUTOMATIC pages the release the system does at once. */
function approve(model: LedgerModel, page: ModelPage): void {
  page.state = 'PENDING/AWAITING_RELEASE';
  if (page.releaseMethod === 'AUTOMATIC') {
    submit(model, page);
  }
}

export function submit(model: LedgerModel, page: ModelPage): void {
  page.state = 'PROCESSING/SUBMITTED';
  move(model, page, 'submit');
  // The submit job runs at the next drain; railReadyAt and settleAt are set then.
  delete page.railReadyAt;
  delete page.settleAt;
}

export function finish(model: LedgerModel, page: ModelPage, state: PageState, movement: Movement): void {
  page.state = state;
  move(model, page, movement);
  delete page.railReadyAt;
  delete page.settleAt;
}

/** Where confirming a CREATED page leads, by the customer's KYC status (the state table's confirm rows). */
export function confirmInModel(model: LedgerModel, page: ModelPage): void {
  const customer = model.customers[page.customer];
  assert.ok(customer);
  switch (customer.kyc) {
    case 'NOT_STARTED':
      page.state = 'PENDING/KYC_REQUIRED';
      return;
    case 'PENDING':
      page.state = 'PENDING/KYC_IN_REVIEW';
      return;
    case 'APPROVED':
      approve(model, page);
      return;
    case 'REJECTED':
      finish(model, page, 'FAILED/KYC_REJECTED', 'release');
      return;
  }
}

/** Identity data submitted for `page` (helper's `kyc` or the hosted form): KYC starts, the page waits for it. */
export function submitKycInModel(model: LedgerModel, page: ModelPage, rejected: boolean): void {
  const customer = model.customers[page.customer];
  assert.ok(customer);
  if (customer.kyc === 'NOT_STARTED') {
    // The first complete identity data starts verification; later submissions keep known fields.
    customer.kyc = 'PENDING';
    delete customer.decidesAt;
    customer.outcome = rejected ? 'REJECTED' : 'APPROVED';
  }
  page.state = 'PENDING/KYC_IN_REVIEW';
}

/**
 * What the job worker does when it runs every due job at `model.now` (only the Advance command
 * drains, so jobs queued by other commands wait for it, as they would for a busy worker):
 * 1. KYC verify jobs queued since the last drain submit to the sandbox provider, which decides
 *    kycDelayMs later (the job re-polls at exactly that time);
 * 2. due KYC decisions move the customer's waiting pages (AUTOMATIC ones on to PROCESSING);
 * 3. expiry jobs of unconfirmed pages past expiresAt; submit jobs of PROCESSING pages (the rail is
 *    ready railDelayMs later, the settle job first polls after railPollMs); due settle polls:
 *    the outcome when the rail is ready, else another poll railPollMs later.
 */
export function drainInModel(model: LedgerModel): void {
  for (const customer of model.customers) {
    if (customer.kyc === 'PENDING' && customer.decidesAt === undefined) {
      customer.decidesAt = model.now + kycDelayMs;
    }
  }
  for (const [index, customer] of model.customers.entries()) {
    if (customer.kyc !== 'PENDING' || customer.decidesAt === undefined || customer.decidesAt > model.now || !customer.outcome) {
      continue;
    }
    customer.kyc = customer.outcome;
    for (const page of model.pages) {
      if (page.customer !== index || (page.state !== 'PENDING/KYC_REQUIRED' && page.state !== 'PENDING/KYC_IN_REVIEW')) {
        continue;
      }
      if (customer.kyc === 'APPROVED') {
        approve(model, page);
      } else {
        finish(model, page, 'FAILED/KYC_REJECTED', 'release');
      }
    }
  }
  for (const page of model.pages) {
    if (page.state === 'CREATED/AWAITING_CUSTOMER' && page.expiresAt <= model.now) {
      finish(model, page, 'EXPIRED/NOT_COMPLETED', 'release');
    }
    if (page.state !== 'PROCESSING/SUBMITTED') {
      continue;
    }
    if (page.railReadyAt === undefined || page.settleAt === undefined) {
      page.railReadyAt = model.now + railDelayMs;
      page.settleAt = model.now + railPollMs;
    } else if (page.settleAt <= model.now) {
      if (page.railReadyAt <= model.now) {
        finish(model, page, page.railRejects ? 'FAILED/PAYOUT_REJECTED' : 'PROCESSED/PAID', page.railRejects ? 'return' : 'settle');
      } else {
        page.settleAt = model.now + railPollMs;
      }
    }
  }
}

