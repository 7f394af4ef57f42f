import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchants, paymentPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { enqueueEmail } from '../email/index.ts';
import type { CustomersService } from '../customers/index.ts';
import { cardLabel, findPayment } from '../payments/index.ts';
import { receiptEmail, refundNoticeEmail, type ReceiptContext } from './emails.ts';
import { customerEmailOf } from './view.ts';

export interface CustomerEmailDeps {
  keyRing: KeyRing;
  customers: Pick<CustomersService, 'contactOf'>;
}

/** A refund that succeeded, as the refunds module reports it. */
export interface SucceededRefund {
  id: string;
  paymentPageId: string;
  paymentId: string;
  amount: number;
  updatedAt: Date;
}

/**
 * What a receipt or refund notice needs about a paid page, with its recipient; null when nobody is
 * to be written to (the customer was erased, or the page or its payment is not there).
 */
async function receiptContext(tx: Executor, deps: CustomerEmailDeps, pageId: string, paymentId: string): Promise<{ to: string; merchantId: string; livemode: boolean; context: ReceiptContext } | null> {
  const [page] = await tx.select().from(paymentPages).where(eq(paymentPages.id, pageId));
  const payment = await findPayment(tx, paymentId);
  if (!page || !payment || payment.decidedAt === null) {
    return null;
  }
  const to = customerEmailOf(deps.keyRing, page);
  if (to === '') {
    return null;
  }
  const [merchant] = await tx.select({ name: merchants.name, email: merchants.email }).from(merchants).where(eq(merchants.id, page.merchantId));
  const { firstName } = await deps.customers.contactOf(tx, page.customerId);
  return {
    to,
    merchantId: page.merchantId,
    livemode: page.livemode,
    context: {
      merchantName: merchant?.name ?? 'The merchant',
      supportEmail: merchant?.email ?? '',
      livemode: page.livemode,
      firstName,
      amount: payment.amount,
      currency: payment.currency,
      description: page.description,
      lineItems: page.lineItems,
      card: cardLabel(payment),
      paymentId: payment.id,
      paidAt: page.paidAt ?? payment.decidedAt,
    },
  };
}

/**
 * The customer's receipt, queued in the transaction that marks the page PAID (so exactly once per
 * paid page: the page becomes PAID once), and the refund notice, queued in the transaction that
 * settles a refund as SUCCEEDED (once per refund). Both are related to the page, like every e-mail
 * about a page: a customer's erasure and export find them there.
 */
export function createCustomerEmails(deps: CustomerEmailDeps) {
  return {
    async sendReceipt(tx: Executor, paid: { pageId: string; paymentId: string }, now: Date): Promise<void> {
      const found = await receiptContext(tx, deps, paid.pageId, paid.paymentId);
      if (found) {
        await enqueueEmail(tx, now, deps.keyRing, { merchantId: found.merchantId, livemode: found.livemode, to: found.to, relatedId: paid.pageId, ...receiptEmail(found.context) });
      }
    },

    async sendRefundNotice(tx: Executor, refund: SucceededRefund, now: Date): Promise<void> {
      const found = await receiptContext(tx, deps, refund.paymentPageId, refund.paymentId);
      if (found) {
        const content = refundNoticeEmail({ ...found.context, refundId: refund.id, refundAmount: refund.amount, refundedAt: refund.updatedAt });
        await enqueueEmail(tx, now, deps.keyRing, { merchantId: found.merchantId, livemode: found.livemode, to: found.to, relatedId: refund.paymentPageId, ...content });
      }
    },
  };
}
