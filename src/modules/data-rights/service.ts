import type { Database } from '../../db/client.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { forgetStoredAnswersMentioning } from '../../http/idempotency.ts';
import type { Clock } from '../../clock.ts';
import type { CustomersService, ErasedCustomerResponse } from '../customers/index.ts';
import { deleteEmailsAbout } from '../email/index.ts';
import { recordEvent } from '../events/index.ts';
import { eraseFraudReportData } from '../fraud-reports/index.ts';
import type { KycService } from '../kyc/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { erasePaymentPageData } from '../payment-pages/index.ts';
import { erasePaymentData } from '../payments/index.ts';
import { erasePayoutPageData } from '../payout-pages/index.ts';

/**
 * Erasing a customer (the right to erasure, GDPR art. 17): one transaction in which each module
 * removes its part of the customer's personal data — the sealed PII record and e-mail lookup, the
 * e-mail and payout destination sealed on their pages, the cardholder name on their payments and
 * fraud reports, the e-mails to them in the outbox, stored idempotent answers that carried their
 * data — open KYC verifications end, a job is enqueued to delete their applicants at the KYC
 * provider, and `CUSTOMER_ERASED` is recorded. All of it commits or none of it does; the ciphertexts
 * are deleted, not kept under a destroyed key (docs/decisions/0008-erasure-deletes-ciphertexts.md).
 * Money records stay: ledger entries, amounts, statuses, ids, the masked card and payout method.
 * Refused (409 INVALID_STATE naming the page) while a payout page of the customer is open. Erasing
 * an erased customer answers the same tombstone and changes nothing.
 */
export function createErasureService(deps: { database: Database; clock: Clock; keyRing: KeyRing; customers: CustomersService; kyc: KycService }) {
  const { database, clock, keyRing, customers } = deps;
  return {
    async eraseCustomer(merchant: Merchant, livemode: boolean | undefined, customerId: string): Promise<ErasedCustomerResponse> {
      const now = clock.now();
      const row = await database.transaction(async (tx) => {
        // The customer's row first (locked): a page created meanwhile waits for this to commit and then sees it erased.
        const { row: customer, erased } = await customers.eraseRecord(tx, merchant.id, livemode, customerId, now);
        if (!erased) {
          return customer;
        }
        const payoutPageIds = await erasePayoutPageData(tx, merchant.id, customer.id);
        const paymentPageIds = await erasePaymentPageData(tx, merchant.id, customer.id);
        const paymentIds = await erasePaymentData(tx, merchant.id, customer.id);
        await eraseFraudReportData(tx, merchant.id, paymentIds);
        await deleteEmailsAbout(tx, merchant.id, [...payoutPageIds, ...paymentPageIds]);
        await forgetStoredAnswersMentioning(tx, keyRing, merchant.id, [customer.id, ...payoutPageIds, ...paymentPageIds]);
        await deps.kyc.eraseCustomer(tx, customer.id, now);
        await recordEvent(tx, now, {
          merchantId: merchant.id,
          livemode: customer.livemode,
          type: 'CUSTOMER_ERASED',
          data: { id: customer.id, referenceId: customer.referenceId, erasedAt: now.getTime() },
        });
        return customer;
      });
      return { id: row.id, referenceId: row.referenceId, merchantId: row.merchantId, livemode: row.livemode, erasedAt: (row.erasedAt ?? now).getTime(), createdAt: row.createdAt.getTime() };
    },
  };
}

export type ErasureService = ReturnType<typeof createErasureService>;
