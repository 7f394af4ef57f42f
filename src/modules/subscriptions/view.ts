import type { invoices, subscriptions } from '../../db/schema/index.ts';
import type { InvoiceResponse, SubscriptionResponse } from './schemas.ts';

type SubscriptionRow = typeof subscriptions.$inferSelect;
type InvoiceRow = typeof invoices.$inferSelect;

export function toInvoiceResponse(row: InvoiceRow): InvoiceResponse {
  return {
    id: row.id,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    paymentId: row.paymentId,
    periodStart: row.periodStart.getTime(),
    periodEnd: row.periodEnd.getTime(),
    paidAt: row.paidAt.getTime(),
    createdAt: row.createdAt.getTime(),
  };
}

export function toSubscriptionResponse(row: SubscriptionRow, latestInvoice: InvoiceRow | null, renewalPaymentUrl: string | null = null): SubscriptionResponse {
  return {
    id: row.id,
    status: row.status,
    merchantId: row.merchantId,
    livemode: row.livemode,
    customerId: row.customerId,
    productId: row.productId,
    pageId: row.pageId,
    interval: row.interval,
    intervalCount: row.intervalCount,
    amount: row.amount,
    currency: row.currency,
    currentPeriodStart: row.currentPeriodStart.getTime(),
    currentPeriodEnd: row.currentPeriodEnd.getTime(),
    cancelAtPeriodEnd: row.cancelAtPeriodEnd,
    ...(row.canceledAt ? { canceledAt: row.canceledAt.getTime() } : {}),
    ...(row.endedAt ? { endedAt: row.endedAt.getTime() } : {}),
    failedRenewalAttempts: row.failedRenewalAttempts,
    ...(row.nextRenewalAttemptAt ? { nextRenewalAttemptAt: row.nextRenewalAttemptAt.getTime() } : {}),
    ...(row.lastDeclineReason ? { lastDeclineReason: row.lastDeclineReason } : {}),
    ...(row.renewalPageId ? { renewalPaymentPageId: row.renewalPageId, ...(renewalPaymentUrl ? { renewalPaymentUrl } : {}) } : {}),
    ...(latestInvoice ? { latestInvoice: toInvoiceResponse(latestInvoice) } : {}),
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
}
