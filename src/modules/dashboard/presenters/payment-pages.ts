import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { customers, fraudReports, paymentPageStatuses, paymentPages, payments, type PaymentPageStatus } from '../../../db/schema/index.ts';
import type { Merchant } from '../../merchants/index.ts';
import type { PaymentPageResponse, PaymentPagesService } from '../../payment-pages/index.ts';
import type { RefundsService, RefundView } from '../../refunds/index.ts';
import { readPage, type PageOf } from './pagination.ts';
import { stripeDashboardUrl } from './provider-links.ts';

export interface PaymentPageRowView {
  id: string;
  clientReferenceId: string;
  customerReferenceId: string;
  amount: number;
  currency: string;
  status: PaymentPageStatus;
  createdAt: Date;
  expiresAt: Date;
}

export interface PaymentAttemptView {
  id: string;
  kind: string;
  status: string;
  amount: number;
  currency: string;
  card: string;
  declineReason: string | null;
  createdAt: Date;
  decidedAt: Date | null;
  hasFraudReport: boolean;
  /** The processor's id of the payment, with its page on the processor's dashboard (Stripe) when it has one. */
  processorReference: string | null;
  processorUrl: string | null;
}

export interface PaymentPageDetailView {
  page: PaymentPageResponse;
  attempts: PaymentAttemptView[];
  /** Newest first (the latest 100). */
  refunds: RefundView[];
}

export function parsePaymentPageStatus(raw: unknown): PaymentPageStatus | undefined {
  return typeof raw === 'string' && (paymentPageStatuses as readonly string[]).includes(raw) ? (raw as PaymentPageStatus) : undefined;
}

export function describeCard(payment: { scheme: string | null; cardType: string | null; bin: string; last4: string }): string {
  return `${payment.scheme ?? 'Card'} ${payment.cardType ? payment.cardType.toLowerCase() : ''} ${payment.bin.slice(0, 4)} •••• ${payment.last4}`.replace(/\s+/g, ' ');
}

/** Read model of the payment page screens (lists by SQL; the page itself as the API reads it). */
export function createPaymentPagesPresenter(deps: { database: Database; paymentPages: PaymentPagesService; refunds: Pick<RefundsService, 'listRefunds'> }) {
  const { database } = deps;

  async function attemptsOf(merchantId: string, livemode: boolean, where: SQL): Promise<PaymentAttemptView[]> {
    const rows = await database.db
      .select({ payment: payments, fraudReportId: fraudReports.paymentId })
      .from(payments)
      .leftJoin(fraudReports, eq(fraudReports.paymentId, payments.id))
      .where(and(eq(payments.merchantId, merchantId), eq(payments.livemode, livemode), where))
      .orderBy(desc(payments.createdAt), desc(payments.id));
    return rows.map(({ payment, fraudReportId }) => ({
      id: payment.id,
      kind: payment.kind,
      status: payment.status,
      amount: payment.amount,
      currency: payment.currency,
      card: describeCard(payment),
      declineReason: payment.declineReason,
      createdAt: payment.createdAt,
      decidedAt: payment.decidedAt,
      hasFraudReport: fraudReportId !== null,
      processorReference: payment.processorReference,
      processorUrl: stripeDashboardUrl(payment.processor, 'payments', payment.processorReference, payment.livemode),
    }));
  }

  return {
    async list(merchantId: string, livemode: boolean, filters: { status?: PaymentPageStatus }, page: number): Promise<PageOf<PaymentPageRowView>> {
      const conditions: SQL[] = [eq(paymentPages.merchantId, merchantId), eq(paymentPages.livemode, livemode)];
      if (filters.status) {
        conditions.push(eq(paymentPages.status, filters.status));
      }
      return readPage(page, (limit, offset) =>
        database.db
          .select({
            id: paymentPages.id,
            clientReferenceId: paymentPages.clientReferenceId,
            customerReferenceId: customers.referenceId,
            amount: paymentPages.amount,
            currency: paymentPages.currency,
            status: paymentPages.status,
            createdAt: paymentPages.createdAt,
            expiresAt: paymentPages.expiresAt,
          })
          .from(paymentPages)
          .innerJoin(customers, eq(customers.id, paymentPages.customerId))
          .where(and(...conditions))
          .orderBy(desc(paymentPages.createdAt), desc(paymentPages.id))
          .limit(limit)
          .offset(offset),
      );
    },

    /** The page as GET /v1/payment_pages/:id shows it, with every card attempt on it. Throws NOT_FOUND outside the merchant and mode. */
    async detail(merchant: Merchant, livemode: boolean, pageId: string): Promise<PaymentPageDetailView> {
      const page = await deps.paymentPages.getPage(merchant, livemode, pageId);
      const refunds = page.status === 'PAID' ? (await deps.refunds.listRefunds(merchant, livemode, { paymentPageId: page.id, limit: 100 })).refunds : [];
      return { page, attempts: await attemptsOf(merchant.id, livemode, eq(payments.pageId, page.id)), refunds };
    },

    /** One card payment (the subject of a fraud report), or null outside the merchant and mode. */
    async payment(merchantId: string, livemode: boolean, paymentId: string): Promise<(PaymentAttemptView & { pageId: string | null }) | null> {
      const [attempt] = await attemptsOf(merchantId, livemode, eq(payments.id, paymentId));
      if (!attempt) {
        return null;
      }
      const [row] = await database.db.select({ pageId: payments.pageId }).from(payments).where(eq(payments.id, paymentId));
      return { ...attempt, pageId: row?.pageId ?? null };
    },
  };
}

export type PaymentPagesPresenter = ReturnType<typeof createPaymentPagesPresenter>;
