import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { disputeStatuses, disputes, paymentPages, payments, type DisputeStatus } from '../../../db/schema/index.ts';
import { createdWithin, everyRow, readPage, type CreatedRange, type PageOf } from './pagination.ts';
import { stripeDashboardUrl } from './provider-links.ts';

export interface DisputeRowView {
  id: string;
  status: DisputeStatus;
  reason: string;
  amount: number;
  currency: string;
  paymentId: string;
  pageId: string | null;
  clientReferenceId: string | null;
  evidenceDueBy: Date | null;
  createdAt: Date;
  closedAt: Date | null;
  /** The processor's dispute and payment ids, and their pages on the processor's dashboard (Stripe) when it has one. */
  processorReference: string;
  processorUrl: string | null;
  paymentProcessorReference: string | null;
  paymentProcessorUrl: string | null;
}

export function parseDisputeStatus(raw: unknown): DisputeStatus | undefined {
  return typeof raw === 'string' && (disputeStatuses as readonly string[]).includes(raw) ? (raw as DisputeStatus) : undefined;
}

/** Read model of the disputes list and of the disputes shown on a payment page (SQL scoped by merchant and mode). */
export function createDisputesPresenter(deps: { database: Database }) {
  const { database } = deps;

  function rows(merchantId: string, livemode: boolean, where: SQL[], limit: number, offset: number): Promise<DisputeRowView[]> {
    return database.db
      .select({ dispute: disputes, clientReferenceId: paymentPages.clientReferenceId, paymentReference: payments.processorReference, paymentProcessor: payments.processor })
      .from(disputes)
      .innerJoin(payments, eq(payments.id, disputes.paymentId))
      .leftJoin(paymentPages, eq(paymentPages.id, disputes.pageId))
      .where(and(eq(disputes.merchantId, merchantId), eq(disputes.livemode, livemode), ...where))
      .orderBy(desc(disputes.createdAt), desc(disputes.id))
      .limit(limit)
      .offset(offset)
      .then((found) =>
        found.map(({ dispute, clientReferenceId, paymentReference, paymentProcessor }) => ({
          id: dispute.id,
          status: dispute.status,
          reason: dispute.reason,
          amount: dispute.amount,
          currency: dispute.currency,
          paymentId: dispute.paymentId,
          pageId: dispute.pageId,
          clientReferenceId,
          evidenceDueBy: dispute.evidenceDueBy,
          createdAt: dispute.createdAt,
          closedAt: dispute.closedAt,
          processorReference: dispute.processorReference,
          processorUrl: stripeDashboardUrl(dispute.processor, 'disputes', dispute.processorReference, dispute.livemode),
          paymentProcessorReference: paymentReference,
          paymentProcessorUrl: stripeDashboardUrl(paymentProcessor, 'payments', paymentReference, dispute.livemode),
        })),
      );
  }

  return {
    list(merchantId: string, livemode: boolean, filters: { status?: DisputeStatus }, page: number, period: CreatedRange = {}): Promise<PageOf<DisputeRowView>> {
      const where = [...(filters.status ? [eq(disputes.status, filters.status)] : []), ...createdWithin(disputes.createdAt, period)];
      return readPage(page, (limit, offset) => rows(merchantId, livemode, where, limit, offset));
    },

    /** Every dispute the filters select, newest first (the CSV export). */
    exportRows(merchantId: string, livemode: boolean, filters: { status?: DisputeStatus }, period: CreatedRange): AsyncGenerator<DisputeRowView> {
      const where = [...(filters.status ? [eq(disputes.status, filters.status)] : []), ...createdWithin(disputes.createdAt, period)];
      return everyRow({ createdAt: disputes.createdAt, id: disputes.id }, (after, limit) => rows(merchantId, livemode, [...where, ...after], limit, 0));
    },

    /** Every dispute of one payment page (a page has one successful payment, so a handful at most). */
    forPage(merchantId: string, livemode: boolean, pageId: string): Promise<DisputeRowView[]> {
      return rows(merchantId, livemode, [eq(disputes.pageId, pageId)], 100, 0);
    },
  };
}

export type DisputesPresenter = ReturnType<typeof createDisputesPresenter>;
