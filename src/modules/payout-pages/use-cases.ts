import type { Executor } from '../../db/client.ts';
import { newId } from '../../crypto/ids.ts';
import { sealFields } from '../../crypto/pii.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { validateMetadata, validateReturnUrl } from '../../http/request-rules.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { normalizeEmail } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { InsufficientFundsError } from '../ledger/index.ts';
import { pageCreatedEmail } from './emails.ts';
import { location } from './present.ts';
import { payoutPagesRepository as repository, type PayoutPageRow } from './repository.ts';
import { noLiveRailReason } from './rails/types.ts';
import { maxPayoutAmount, type PayoutPageCreateInput, type PayoutPageResponse } from './schemas.ts';
import { initialState } from './states.ts';
import { payoutExpireQueue, type PayoutPagesDeps, type PayoutTransitions } from './transitions.ts';

const dayMs = 24 * 60 * 60 * 1000;
export const defaultPageLifetimeMs = 7 * dayMs;
export const maxPageLifetimeMs = 30 * dayMs;

/** The merchant API's use cases: create (with the reservation), read, release, cancel, history. */
export function createPayoutUseCases(deps: PayoutPagesDeps, transitions: PayoutTransitions) {
  const { database, clock, keyRing, customers } = deps;
  const { act, railFor, requireScoped, emailContext, sendEmail, moveMoney, toResponse } = transitions;

  /** findOrCreateByReference under a savepoint: a concurrent create of the same customer is found, not an error. */
  async function customerFor(tx: Executor, merchantId: string, livemode: boolean, input: { referenceId: string; email: string }, now: Date) {
    try {
      return await tx.transaction((savepoint) => customers.findOrCreateByReference(savepoint as unknown as Executor, merchantId, livemode, input, now));
    } catch (error) {
      if (error instanceof AppError && error.code === 'DUPLICATE_REFERENCE_ID') {
        return customers.findOrCreateByReference(tx, merchantId, livemode, input, now);
      }
      throw error;
    }
  }

  return {
    async createPayoutPage(merchant: Merchant, livemode: boolean, input: PayoutPageCreateInput): Promise<PayoutPageResponse> {
      const now = clock.now();
      if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.amount > maxPayoutAmount) {
        throw wrongParameter('amount', `must be an integer between 1 and ${maxPayoutAmount}`);
      }
      const email = normalizeEmail('customer.email', input.customer.email);
      const successReturnUrl = validateReturnUrl('successReturnUrl', input.successReturnUrl);
      const failureReturnUrl = validateReturnUrl('failureReturnUrl', input.failureReturnUrl);
      const expiresAt = new Date(input.expiresAt ?? now.getTime() + defaultPageLifetimeMs);
      if (expiresAt.getTime() <= now.getTime() || expiresAt.getTime() > now.getTime() + maxPageLifetimeMs) {
        throw wrongParameter('expiresAt', 'must be in the future and at most 30 days from now (epoch milliseconds)');
      }
      const metadata = validateMetadata(input.metadata);
      const id = newId('payoutPage', now.getTime());
      return database.transaction(async (tx) => {
        const customer = await customerFor(tx, merchant.id, livemode, { referenceId: input.customer.referenceId, email }, now);
        let page: PayoutPageRow;
        try {
          page = await repository.insert(tx, {
            id,
            merchantId: merchant.id,
            livemode,
            customerId: customer.id,
            customerReferenceId: customer.referenceId,
            customerEmailCiphertext: sealFields(keyRing, location({ merchantId: merchant.id, id }), { 'customer.email': email })['customer.email'] ?? '',
            clientReferenceId: input.clientReferenceId,
            amount: input.amount,
            fundingCurrency: input.fundingCurrency,
            releaseMethod: input.releaseMethod,
            status: initialState.status,
            subStatus: initialState.subStatus,
            successReturnUrl,
            failureReturnUrl,
            metadata,
            expiresAt,
            createdAt: now,
            updatedAt: now,
          });
        } catch (error) {
          if (isUniqueViolation(error, 'payout_pages_client_reference_unique')) {
            throw new AppError('DUPLICATE_CLIENT_REFERENCE_ID', `A payout page with clientReferenceId '${input.clientReferenceId.slice(0, 255)}' already exists in this mode`);
          }
          throw error;
        }
        await repository.insertHistory(tx, {
          payoutPageId: id,
          merchantId: merchant.id,
          livemode,
          fromStatus: null,
          fromSubStatus: null,
          toStatus: initialState.status,
          toSubStatus: initialState.subStatus,
          action: 'create',
          actor: 'merchant',
          reason: null,
          eventId: null,
          createdAt: now,
        });
        await enqueueJob(tx, now, payoutExpireQueue, { payoutPageId: id }, { runAt: expiresAt, dedupeKey: `${payoutExpireQueue}:${id}` });
        await sendEmail(tx, page, pageCreatedEmail(await emailContext(tx, page, merchant.name)), now);
        // The reservation comes last: the balance row is the merchant's hot spot, and its lock is
        // held from this UPDATE to the commit, so nothing else should run in between.
        try {
          await moveMoney(tx, page, 'reserve', now);
        } catch (error) {
          if (error instanceof InsufficientFundsError) {
            throw new AppError('INSUFFICIENT_FUNDS', `The available ${input.fundingCurrency} balance cannot cover this payout page (amount ${input.amount})`);
          }
          throw error;
        }
        return toResponse(page);
      });
    },

    async getPayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      return toResponse(await requireScoped(database.db, merchant, livemode, payoutPageId));
    },

    /** MANUAL pages in AWAITING_RELEASE → PROCESSING (the ledger moves reserved → in flight). */
    async releasePayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const now = clock.now();
      const page = await database.transaction((tx) =>
        act(tx, () => requireScoped(tx, merchant, livemode, payoutPageId), 'release', {
          actor: 'merchant',
          now,
          check: (current) => {
            if (current.releaseMethod !== 'MANUAL') {
              throw new AppError('INVALID_STATE', `Payout page ${current.id} has releaseMethod AUTOMATIC: it is released as soon as the customer is verified`);
            }
            if (current.status === 'PENDING' && current.subStatus === 'AWAITING_RELEASE' && !railFor(current.livemode, current.payoutMethod?.type)) {
              throw new AppError('INVALID_STATE', noLiveRailReason);
            }
          },
        }),
      );
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    async cancelPayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => requireScoped(tx, merchant, livemode, payoutPageId), 'cancel', { actor: 'merchant', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    /** Status history (oldest first), for the dashboard. */
    async history(merchant: Merchant, payoutPageId: string) {
      await requireScoped(database.db, merchant, undefined, payoutPageId);
      return repository.history(database.db, payoutPageId);
    },
  };
}
