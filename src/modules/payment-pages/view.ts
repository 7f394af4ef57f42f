import { and, eq } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, resealFields, type PiiLocation } from '../../crypto/pii.ts';
import { resealTable, type ReencryptOptions } from '../../crypto/rotation.ts';
import { returnUrlsOf } from '../../http/request-rules.ts';
import { payinDetailsOf, type PaymentRow } from '../payments/index.ts';
import type { PaymentPageResponse } from './schemas.ts';

export type PaymentPageRow = typeof paymentPages.$inferSelect;

/** A page as read for a response: with its customer's reference and its successful payment. */
export interface PageView {
  page: PaymentPageRow;
  customerReferenceId: string;
  payment: PaymentRow | null;
}

export function emailLocation(page: { merchantId: string; id: string }): PiiLocation {
  return { merchantId: page.merchantId, table: 'payment_pages', rowId: page.id };
}

export function customerEmailOf(keyRing: KeyRing, page: PaymentPageRow): string {
  if (page.customerEmailCiphertext === '') {
    return ''; // erased with its customer
  }
  return openFields(keyRing, emailLocation(page), { customerEmail: page.customerEmailCiphertext }).customerEmail ?? '';
}

/** The docs/API.md §9 PaymentPage object. */
export function pageResponse(keyRing: KeyRing, publicUrl: string, view: PageView): PaymentPageResponse {
  const { page, payment } = view;
  const response: PaymentPageResponse = {
    id: page.id,
    status: page.status,
    clientReferenceId: page.clientReferenceId,
    customer: { id: page.customerId, referenceId: view.customerReferenceId, email: customerEmailOf(keyRing, page) },
    amount: page.amount,
    currency: page.currency,
    url: `${publicUrl}/payment-page/${page.id}`,
    expiresAt: page.expiresAt.getTime(),
    createdAt: page.createdAt.getTime(),
    livemode: page.livemode,
    metadata: page.metadata,
    refundedAmount: payment && payment.status === 'SUCCEEDED' ? payment.refundedAmount : 0,
  };
  if (page.paidAt) {
    response.paidAt = page.paidAt.getTime();
  }
  if (page.expiredAt) {
    response.expiredAt = page.expiredAt.getTime();
  }
  if (page.paymentId) {
    response.paymentId = page.paymentId;
  }
  if (page.subscriptionId) {
    response.subscriptionId = page.subscriptionId;
  }
  if (payment && payment.status === 'SUCCEEDED') {
    response.payinDetails = payinDetailsOf(payment);
  }
  if (page.description !== null) {
    response.description = page.description;
  }
  if (page.lineItems !== null) {
    response.lineItems = page.lineItems;
  }
  Object.assign(response, returnUrlsOf(page));
  if (page.subscription) {
    response.subscription = page.subscription;
  }
  return response;
}

/**
 * Key-ring rotation: re-seals each page's customer e-mail under the active key (same associated
 * data; UPDATE conditional on the ciphertext read). `onProgress`: rows examined of all.
 */
export async function reencryptPageEmails(database: Database, keyRing: KeyRing, options: ReencryptOptions = {}): Promise<number> {
  return resealTable(database, {
    ...options,
    table: paymentPages,
    columns: { id: paymentPages.id, merchantId: paymentPages.merchantId, customerEmailCiphertext: paymentPages.customerEmailCiphertext },
    key: 'id',
    reseal: async (row) => {
      const resealed = resealFields(keyRing, emailLocation(row), { customerEmail: row.customerEmailCiphertext })?.customerEmail;
      if (resealed === undefined) {
        return false;
      }
      const updated = await database.db
        .update(paymentPages)
        .set({ customerEmailCiphertext: resealed })
        .where(and(eq(paymentPages.id, row.id), eq(paymentPages.customerEmailCiphertext, row.customerEmailCiphertext)))
        .returning({ id: paymentPages.id });
      return updated.length > 0;
    },
  });
}
