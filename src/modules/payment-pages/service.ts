import { eq } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { ReencryptOptions } from '../../crypto/rotation.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import type { CustomersService } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import type { PaymentsService } from '../payments/index.ts';
import { createPageSettlement, type PaymentPaidHook } from './settlement.ts';
import { createCheckoutSessions } from './checkout.ts';
import { createPageCreation } from './create.ts';
import { createCustomerEmails } from './customer-emails.ts';
import { createPageExpiry, paymentPageExpireQueue } from './expiry.ts';
import { createPaymentPageList } from './list.ts';
import { createPagePayment } from './pay.ts';
import { createPageReads } from './read.ts';
import { openRenewalPage, renewalPageStatus } from './renewal-page.ts';
import { customerEmailOf, pageResponse, reencryptPageEmails, type PageView } from './view.ts';
import type { PaymentPageResponse } from './schemas.ts';

export type { PaidPaymentPage, PaymentPaidHook } from './settlement.ts';
export type { PaymentPageRow } from './view.ts';
export type { PayOutcome } from './pay.ts';
export { paymentPageExpireQueue };

/**
 * Payment pages (docs/API.md §9): create, read, expire, pay by card (hosted checkout and the sandbox
 * test helper run the same `payPage`), expiry at `expiresAt`, and the on-paid hooks.
 *
 * Paying is claim → charge → settle:
 *  1. claim: one transaction sets `attempt_payment_id` on the page with a conditional UPDATE
 *     (status CREATED, no attempt, not past expiresAt) and inserts the PROCESSING payment. Expire,
 *     the expiry job and other payments update only pages without an attempt, so from here on the
 *     attempt alone decides the page's fate: a payment racing an expire has exactly one winner and
 *     nothing is ever charged on a page that can no longer be paid.
 *  2. charge: the payments module calls the processor outside any transaction (idempotent by payment id).
 *  3. settle: the payments module's settlement transaction runs this module's settled hook: SUCCEEDED
 *     → page PAID, PAYMENT_SUCCEEDED, on-paid hooks; DECLINED → claim released, page stays CREATED.
 * If the answer is lost (crash, timeout), the payments module's resolve-attempt job (scheduled with
 * the claim) asks the processor what happened and settles the same way, through the same hook.
 */
export function createPaymentPagesService(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  publicUrl: string;
  customers: CustomersService;
  /** Card payments: pages record their attempts there and react to settlements through its hook. */
  payments: PaymentsService;
}) {
  const { database, clock, keyRing, publicUrl, customers: customersService, payments } = deps;
  const customerEmails = createCustomerEmails({ keyRing, customers: customersService });
  // The receipt is queued with the page's PAID transition, before the other modules' hooks.
  const paidHooks: PaymentPaidHook[] = [(tx, paid, now) => customerEmails.sendReceipt(tx, paid, now)];
  const { loadView, requireView } = createPageReads({ database, payments });

  payments.onSettled(createPageSettlement(paidHooks));
  payments.useCheckoutContact(async (executor, pageId) => {
    const [page] = await executor.select().from(paymentPages).where(eq(paymentPages.id, pageId));
    return page ? customerEmailOf(keyRing, page) : '';
  });
  const toResponse = (view: PageView): PaymentPageResponse => pageResponse(keyRing, publicUrl, view);
  const { expireInTransaction, expirePage, expireJob } = createPageExpiry({ database, clock, payments, requireView, toResponse });
  const { notPayable, claim, payPage } = createPagePayment({ database, clock, payments, requireView, expireInTransaction, toResponse });

  return {
    /** Registers a hook called inside the transaction that marks a page PAID (see PaymentPaidHook). */
    onPaid(hook: PaymentPaidHook): void {
      paidHooks.push(hook);
    },

    toResponse,

    /** Queues the customer's refund notice in the transaction that settles a refund as SUCCEEDED. */
    sendRefundNotice: customerEmails.sendRefundNotice,

    ...createPageCreation({ database, clock, keyRing, customers: customersService, toResponse }),

    async getPage(merchant: Merchant, livemode: boolean | undefined, pageId: string): Promise<PaymentPageResponse> {
      return toResponse(await requireView({ pageId, merchantId: merchant.id, livemode }));
    },

    expirePage,
    payPage,

    ...createCheckoutSessions({ database, clock, payments, requireView, loadView, claim, notPayable, toResponse }),
    ...createPaymentPageList({ database, keyRing, publicUrl }),

    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.expireJob()];
    },
    expireJob,

    /** Pages where a customer pays a renewal on-session (the subscriptions module opens and follows them). */
    renewalPages: {
      open: (tx: Executor, input: Parameters<typeof openRenewalPage>[2], now: Date) => openRenewalPage(tx, { keyRing, publicUrl, expireQueue: paymentPageExpireQueue, customers: customersService }, input, now),
      statusOf: renewalPageStatus,
      urlOf: (pageId: string) => `${publicUrl}/payment-page/${pageId}`,
    },

    /** Key-ring rotation of the pages' customer e-mails. */
    reencryptAll: (options: ReencryptOptions = {}) => reencryptPageEmails(database, keyRing, options),
  };
}

export type PaymentPagesService = ReturnType<typeof createPaymentPagesService>;
