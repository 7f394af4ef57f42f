import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';
import { referenceIdOf } from '../customers/index.ts';
import { recordEvent } from '../events/index.ts';
import { payinDetailsOf, type PaymentRow, type PaymentSettledHook } from '../payments/index.ts';

/** What an on-paid hook receives (subscriptions build on this; keep it stable). */
export interface PaidPaymentPage {
  merchantId: string;
  livemode: boolean;
  pageId: string;
  paymentId: string;
  customerId: string;
  amount: number;
  currency: string;
  subscription: { productId: string; interval: 'DAY' | 'WEEK' | 'MONTH' | 'YEAR'; intervalCount: number } | null;
  /** The saved card (ctok_…) when the page has a subscription and the processor returned a token. */
  cardTokenId: string | null;
  paidAt: Date;
}

/**
 * Runs inside the transaction that marks the page PAID (with the payment row and the
 * PAYMENT_SUCCEEDED event): whatever it writes commits with the payment or not at all. A returned
 * `subscriptionId` is stored on the page.
 */
export type PaymentPaidHook = (tx: Executor, paid: PaidPaymentPage, now: Date) => Promise<{ subscriptionId?: string } | void>;

/**
 * The payments module's settled hook: a checkout payment that SUCCEEDED marks its page PAID (one
 * PAYMENT_SUCCEEDED, the on-paid hooks, a returned subscription id); a DECLINED one releases the
 * page's claim (the page stays CREATED). Runs in the settlement's transaction.
 */
export function createPageSettlement(paidHooks: readonly PaymentPaidHook[]): PaymentSettledHook {
  return async function onPaymentSettled(tx: Executor, payment: PaymentRow, now: Date): Promise<void> {
    if (payment.kind !== 'CHECKOUT' || payment.pageId === null) {
      return;
    }
    if (payment.status === 'DECLINED') {
      await tx
        .update(paymentPages)
        .set({ attemptPaymentId: null, updatedAt: now })
        .where(and(eq(paymentPages.id, payment.pageId), eq(paymentPages.attemptPaymentId, payment.id)));
      return;
    }
    if (payment.status !== 'SUCCEEDED') {
      return;
    }
    const [paid] = await tx
      .update(paymentPages)
      .set({ status: 'PAID', paidAt: now, paymentId: payment.id, attemptPaymentId: null, updatedAt: now })
      .where(and(eq(paymentPages.id, payment.pageId), eq(paymentPages.attemptPaymentId, payment.id), eq(paymentPages.status, 'CREATED')))
      .returning();
    if (!paid) {
      throw new Error(`payment ${payment.id} settled without holding its page`);
    }
    await recordEvent(tx, now, {
      merchantId: paid.merchantId,
      livemode: paid.livemode,
      type: 'PAYMENT_SUCCEEDED',
      data: {
        pageId: paid.id,
        paymentId: payment.id,
        clientReferenceId: paid.clientReferenceId,
        amount: paid.amount,
        currency: paid.currency,
        // No e-mail: events are stored and sent to webhooks, and carry no PII (read the page for it).
        customer: { id: paid.customerId, referenceId: await referenceIdOf(tx, paid.customerId) },
        payinDetails: payinDetailsOf(payment),
      },
    });
    const event: PaidPaymentPage = {
      merchantId: paid.merchantId,
      livemode: paid.livemode,
      pageId: paid.id,
      paymentId: payment.id,
      customerId: paid.customerId,
      amount: paid.amount,
      currency: paid.currency,
      subscription: paid.subscription ? { ...paid.subscription } : null,
      cardTokenId: payment.cardTokenId,
      paidAt: now,
    };
    let subscriptionId: string | null = null;
    for (const hook of paidHooks) {
      const outcome = await hook(tx, event, now);
      if (outcome && outcome.subscriptionId) {
        subscriptionId = outcome.subscriptionId;
      }
    }
    if (subscriptionId) {
      await tx.update(paymentPages).set({ subscriptionId }).where(eq(paymentPages.id, paid.id));
    }
  };
}
