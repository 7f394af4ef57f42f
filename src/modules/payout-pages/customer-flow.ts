import type { Executor } from '../../db/client.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { identityProblems, missingKycFields, type KycData } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { InsufficientFundsError } from '../ledger/index.ts';
import { createPayoutPageAccess } from './access.ts';
import type { PayoutPageLock } from './lock.ts';
import { destinationProblems, maskDestination, validateDestination, type PayoutDestination, type PayoutMethodInput, type PayoutMethodType } from './destinations.ts';
import { verificationCodeEmail } from './emails.ts';
import { payoutPagesRepository as repository, type PayoutPageRow } from './repository.ts';
import type { KycInput, PayoutPageResponse } from './schemas.ts';
import { actionForKycDecision, type PayoutPageAction } from './states.ts';
import { invalidState, type PayoutPagesDeps, type PayoutTransitions } from './transitions.ts';

/** A rejected or returned payout: the customer may enter other details on the same page. */
export function isRetryable(page: Pick<PayoutPageRow, 'status' | 'subStatus'>): boolean {
  return page.status === 'FAILED' && (page.subStatus === 'PAYOUT_REJECTED' || page.subStatus === 'PAYOUT_RETURNED');
}

/**
 * The customer's side: the hosted page (verification code, confirmation, KYC, decline) and the
 * sandbox test helpers that do the same through the same code; and the KYC decision's hook.
 */
export function createPayoutCustomerFlow(deps: PayoutPagesDeps, transitions: PayoutTransitions, lock: Pick<PayoutPageLock, 'countWrongCode'>) {
  const { database, clock, keyRing, customers } = deps;
  const { act, requirePage, requireScoped, sealDestination, emailContext, sendEmail, toResponse } = transitions;

  function supportedCheck(tx: Executor, destination: PayoutDestination) {
    return async (current: PayoutPageRow) => {
      const customer = await repository.lockCustomer(tx, current.customerId);
      if (!customer) {
        throw notFound('customer', current.customerId);
      }
      const supported = (customer.supportedPayoutMethods ?? ['BANK_TRANSFER', 'CRYPTO_WALLET']) as PayoutMethodType[];
      if (!supported.includes(destination.type)) {
        throw wrongParameter('payoutMethod.type', `must be one of ${supported.join(', ')} for this customer`);
      }
      return customer.kycStatus;
    };
  }

  /**
   * Other details after a rejection or a return: a new attempt (the page's `attempt` + 1), the amount
   * reserved again, then released as the page's releaseMethod says.
   */
  async function retryIn(tx: Executor, payoutPageId: string, destination: PayoutDestination, now: Date): Promise<PayoutPageRow> {
    try {
      const page = await act(tx, () => repository.findById(tx, payoutPageId), 'retry', {
        actor: 'customer',
        now,
        kycStatus: supportedCheck(tx, destination),
        set: (current) => ({ attempt: current.attempt + 1, payoutMethod: maskDestination(destination), destination: sealDestination(current, destination) }),
      });
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return page;
    } catch (error) {
      if (error instanceof InsufficientFundsError) {
        throw new AppError('INSUFFICIENT_FUNDS', `The merchant's available balance cannot cover payout page ${payoutPageId} again at the moment`);
      }
      throw error;
    }
  }

  /**
   * The customer's confirmation: shared by the hosted page and the sandbox test helper. On the hosted
   * page (`allowRetry`) it also takes other details after a rejected or returned payout; the test
   * helper keeps docs/API.md §8's confirm (CREATED only, anything else INVALID_STATE).
   */
  async function confirmIn(tx: Executor, payoutPageId: string, destination: PayoutDestination, now: Date, allowRetry = false): Promise<PayoutPageRow> {
    const current = await requirePage(tx, payoutPageId);
    if (allowRetry && isRetryable(current)) {
      return retryIn(tx, payoutPageId, destination, now);
    }
    const page = await act(tx, () => repository.findById(tx, payoutPageId), 'confirm', {
      actor: 'customer',
      now,
      check: (current) => {
        if (current.status === 'CREATED' && current.expiresAt.getTime() <= now.getTime()) {
          throw new AppError('INVALID_STATE', `Payout page ${current.id} expired at ${current.expiresAt.toISOString()}`);
        }
      },
      kycStatus: supportedCheck(tx, destination),
      set: (current) => ({ customerConfirmedAt: now, payoutMethod: maskDestination(destination), destination: sealDestination(current, destination) }),
    });
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }

  /** The hosted KYC form (and the helper's `kyc`): completes the customer's identity data and starts KYC. */
  async function submitKycIn(tx: Executor, page: PayoutPageRow, input: KycInput, now: Date): Promise<PayoutPageRow> {
    if (page.status !== 'PENDING' || page.subStatus !== 'KYC_REQUIRED') {
      throw invalidState(page, 'kycSubmitted');
    }
    const customer = await customers.completeIdentity(tx, page.merchantId, page.customerId, input, now);
    if (customer.kycStatus === 'NOT_STARTED') {
      const missing = missingKycFields(await customers.readKycData(tx, page.customerId));
      throw wrongParameter(`kyc.${missing[0] ?? 'firstName'}`, 'is required to verify the identity');
    }
    const action: PayoutPageAction = customer.kycStatus === 'PENDING' ? 'kycSubmitted' : actionForKycDecision(customer.kycStatus === 'APPROVED' ? 'APPROVED' : 'REJECTED');
    const moved = await act(tx, () => repository.findById(tx, page.id), action, { actor: 'customer', now });
    if (!moved) {
      throw notFound('payout page', page.id);
    }
    return moved;
  }

  const access = createPayoutPageAccess({
    database,
    clock,
    keyRing,
    emailCode: async (tx, payoutPageId, code, now) => {
      const page = await requirePage(tx, payoutPageId);
      const context = await emailContext(tx, page);
      await sendEmail(tx, page, verificationCodeEmail({ merchantName: context.merchantName, firstName: context.firstName, code, minutes: 10 }), now);
    },
    countWrongCode: lock.countWrongCode,
  });
  return {
    access,

    async findForCustomer(payoutPageId: string): Promise<{ page: PayoutPageRow; merchantName: string; supportedMethods: PayoutMethodType[] } | null> {
      const page = await repository.findById(database.db, payoutPageId);
      if (!page) {
        return null;
      }
      const supported = ((await repository.customerPayoutMethods(database.db, page.customerId)) ?? ['BANK_TRANSFER', 'CRYPTO_WALLET']) as PayoutMethodType[];
      return { page, merchantName: await repository.merchantName(database.db, page.merchantId), supportedMethods: supported };
    },

    /** Validates a destination without storing it (the hosted page's review step): the destination, or every problem at once. */
    checkDestination(input: PayoutMethodInput): ReturnType<typeof destinationProblems> {
      return destinationProblems(input);
    },

    async confirm(payoutPageId: string, method: PayoutMethodInput): Promise<PayoutPageRow> {
      const destination = validateDestination(method);
      const now = clock.now();
      return database.transaction((tx) => confirmIn(tx, payoutPageId, destination, now, true));
    },

    /** Every problem of the hosted KYC form at once (with what the customer record already holds), before `submitKyc`. */
    async kycProblems(payoutPageId: string, input: KycInput): Promise<AppError[]> {
      const page = await requirePage(database.db, payoutPageId);
      if (page.status !== 'PENDING' || page.subStatus !== 'KYC_REQUIRED') {
        return []; // `submitKyc` answers the state
      }
      return identityProblems(input, await customers.readKycData(database.db, page.customerId), clock.now());
    },

    async submitKyc(payoutPageId: string, input: KycInput): Promise<PayoutPageRow> {
      const now = clock.now();
      return database.transaction(async (tx) => submitKycIn(tx, await requirePage(tx, payoutPageId), input, now));
    },

    async decline(payoutPageId: string): Promise<PayoutPageRow> {
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => repository.findById(tx, payoutPageId), 'decline', { actor: 'customer', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return page;
    },

    /** The customer's identity data, to pre-fill the hosted KYC form (only after the code was verified). */
    async kycPrefill(payoutPageId: string): Promise<{ data: KycData; firstName: string | null }> {
      const page = await requirePage(database.db, payoutPageId);
      const data = await customers.readKycData(database.db, page.customerId);
      return { data, firstName: data.firstName ?? null };
    },

    /** Sandbox test helper: what the customer does on the page, through the same code, in one transaction. */
    async confirmAsTestHelper(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string, input: { payoutMethod: PayoutMethodInput; kyc?: KycInput }): Promise<PayoutPageResponse> {
      const destination = validateDestination(input.payoutMethod);
      const now = clock.now();
      const page = await database.transaction(async (tx) => {
        const scoped = await requireScoped(tx, merchant, livemode, payoutPageId);
        if (scoped.livemode) {
          throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this payout page is live');
        }
        const confirmed = await confirmIn(tx, scoped.id, destination, now);
        if (input.kyc && confirmed.status === 'PENDING' && confirmed.subStatus === 'KYC_REQUIRED') {
          return submitKycIn(tx, confirmed, input.kyc, now);
        }
        return confirmed;
      });
      return toResponse(page);
    },

    async declineAsTestHelper(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const scoped = await requireScoped(database.db, merchant, livemode, payoutPageId);
      if (scoped.livemode) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this payout page is live');
      }
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => repository.findById(tx, scoped.id), 'decline', { actor: 'customer', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    /**
     * kyc.onReverification: the customer is verified again (identity data changed after approval).
     * Pages waiting for their release on the old approval wait in KYC_IN_REVIEW for the new
     * decision (which moves them as any decision does), in the transaction that started it.
     */
    async onKycRestarted(tx: Executor, customerId: string, now: Date): Promise<void> {
      for (const waiting of await repository.awaitingRelease(tx, customerId)) {
        await act(tx, () => repository.findById(tx, waiting.id), 'kycRestarted', { actor: 'kyc', now });
      }
    },

    /** kyc.onDecision: moves the customer's pages waiting on KYC, in the decision's transaction. */
    async onKycDecision(tx: Executor, decision: { customerId: string; status: 'APPROVED' | 'REJECTED' }, now: Date): Promise<void> {
      for (const waiting of await repository.waitingOnKyc(tx, decision.customerId)) {
        await act(tx, () => repository.findById(tx, waiting.id), actionForKycDecision(decision.status), { actor: 'kyc', now });
      }
    },

  };
}

export type PayoutCustomerFlow = ReturnType<typeof createPayoutCustomerFlow>;
