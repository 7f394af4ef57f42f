import { and, asc, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { payoutAttempts, payoutPageStatusHistory, payoutPages } from '../../../db/schema/index.ts';
import { explorerUrl, findTransition, isFinal, payoutPageStatuses, payoutPageSubStatuses, railReferenceUrl, type PayoutPageResponse, type PayoutPagesService, type PayoutPageStatus, type PayoutPageSubStatus } from '../../payout-pages/index.ts';
import type { Merchant } from '../../merchants/index.ts';
import { readPage, type PageOf } from './pagination.ts';

export interface PayoutPageRowView {
  id: string;
  clientReferenceId: string;
  customerReferenceId: string;
  amount: number;
  fundingCurrency: string;
  status: string;
  subStatus: string;
  releaseMethod: string;
  createdAt: Date;
  expiresAt: Date;
}

export interface PayoutHistoryView {
  fromStatus: string | null;
  fromSubStatus: string | null;
  toStatus: string;
  toSubStatus: string;
  action: string;
  actor: string;
  reason: string | null;
  eventId: string | null;
  createdAt: Date;
}

/** One hand-over of the payout to a rail, with links to the rail's record and the chain. */
export interface PayoutAttemptView {
  number: number;
  rail: string;
  status: string;
  reference: string | null;
  referenceUrl: string | null;
  transactionHash: string | null;
  explorerUrl: string | null;
  reason: string | null;
  createdAt: Date;
  finishedAt: Date | null;
}

export interface PayoutPageDetailView {
  page: PayoutPageResponse;
  attempts: PayoutAttemptView[];
  /** One page of the status history, oldest change first. */
  history: PageOf<PayoutHistoryView>;
  canRelease: boolean;
  canCancel: boolean;
  /** Locked after too many wrong codes, with something left for the customer to do. */
  canReissue: boolean;
}

/** The list filter takes a status (`PENDING`) or a sub-status (`AWAITING_RELEASE`). */
export type PayoutStatusFilter = { status: PayoutPageStatus } | { subStatus: PayoutPageSubStatus } | Record<string, never>;

export function parsePayoutStatusFilter(raw: string): PayoutStatusFilter {
  if ((payoutPageStatuses as readonly string[]).includes(raw)) {
    return { status: raw as PayoutPageStatus };
  }
  if ((payoutPageSubStatuses as readonly string[]).includes(raw)) {
    return { subStatus: raw as PayoutPageSubStatus };
  }
  return {};
}

/** Read model of the payout page screens: lists by SQL, the page as the API reads it, its status history. */
export function createPayoutPagesPresenter(deps: { database: Database; payoutPages: PayoutPagesService }) {
  const { database } = deps;

  return {
    async list(merchantId: string, livemode: boolean, filter: PayoutStatusFilter, page: number): Promise<PageOf<PayoutPageRowView>> {
      const conditions: SQL[] = [eq(payoutPages.merchantId, merchantId), eq(payoutPages.livemode, livemode)];
      if ('status' in filter) {
        conditions.push(eq(payoutPages.status, filter.status));
      }
      if ('subStatus' in filter) {
        conditions.push(eq(payoutPages.subStatus, filter.subStatus));
      }
      return readPage(page, (limit, offset) =>
        database.db
          .select({
            id: payoutPages.id,
            clientReferenceId: payoutPages.clientReferenceId,
            customerReferenceId: payoutPages.customerReferenceId,
            amount: payoutPages.amount,
            fundingCurrency: payoutPages.fundingCurrency,
            status: payoutPages.status,
            subStatus: payoutPages.subStatus,
            releaseMethod: payoutPages.releaseMethod,
            createdAt: payoutPages.createdAt,
            expiresAt: payoutPages.expiresAt,
          })
          .from(payoutPages)
          .where(and(...conditions))
          .orderBy(desc(payoutPages.createdAt), desc(payoutPages.id))
          .limit(limit)
          .offset(offset),
      );
    },

    /** Throws NOT_FOUND outside the merchant and mode. Buttons show only for moves the state table allows. */
    async detail(merchant: Merchant, livemode: boolean, payoutPageId: string, historyPage = 1): Promise<PayoutPageDetailView> {
      const page = await deps.payoutPages.getPayoutPage(merchant, livemode, payoutPageId);
      const history = await readPage(historyPage, (limit, offset) =>
        database.db
          .select({
            fromStatus: payoutPageStatusHistory.fromStatus,
            fromSubStatus: payoutPageStatusHistory.fromSubStatus,
            toStatus: payoutPageStatusHistory.toStatus,
            toSubStatus: payoutPageStatusHistory.toSubStatus,
            action: payoutPageStatusHistory.action,
            actor: payoutPageStatusHistory.actor,
            reason: payoutPageStatusHistory.reason,
            eventId: payoutPageStatusHistory.eventId,
            createdAt: payoutPageStatusHistory.createdAt,
          })
          .from(payoutPageStatusHistory)
          .where(and(eq(payoutPageStatusHistory.payoutPageId, page.id), eq(payoutPageStatusHistory.merchantId, merchant.id), eq(payoutPageStatusHistory.livemode, livemode)))
          .orderBy(asc(payoutPageStatusHistory.id))
          .limit(limit)
          .offset(offset),
      );
      const attemptRows = await database.db
        .select()
        .from(payoutAttempts)
        .where(and(eq(payoutAttempts.payoutPageId, page.id), eq(payoutAttempts.merchantId, merchant.id), eq(payoutAttempts.livemode, livemode)))
        .orderBy(asc(payoutAttempts.number));
      const network = page.payoutMethod?.type === 'CRYPTO_WALLET' ? page.payoutMethod.network : null;
      const attempts = attemptRows.map((attempt) => ({
        number: attempt.number,
        rail: attempt.rail,
        status: attempt.status,
        reference: attempt.railReference,
        referenceUrl: attempt.railReference ? railReferenceUrl(attempt.rail, attempt.railReference) : null,
        transactionHash: attempt.transactionHash,
        explorerUrl: attempt.transactionHash && network ? explorerUrl(network, attempt.transactionHash, livemode) : null,
        reason: attempt.reason,
        createdAt: attempt.createdAt,
        finishedAt: attempt.finishedAt ?? attempt.paidAt,
      }));
      const state = { status: page.status, subStatus: page['sub-status'] };
      const context = { releaseMethod: page.releaseMethod };
      return {
        page,
        attempts,
        history,
        canRelease: findTransition(state, 'release', context) !== null,
        canCancel: findTransition(state, 'cancel', context) !== null,
        canReissue: page.lockedAt !== undefined && !isFinal(state),
      };
    },
  };
}

export type PayoutPagesPresenter = ReturnType<typeof createPayoutPagesPresenter>;
