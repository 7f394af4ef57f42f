import { eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchants, paymentPages } from '../../db/schema/index.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { sealFields } from '../../crypto/pii.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import { enqueueEmail } from '../email/index.ts';
import type { CustomersService } from '../customers/index.ts';
import { renewalPageEmail } from './emails.ts';
import { customerEmailOf, emailLocation } from './view.ts';

/**
 * A page for the customer to pay a renewal that could not be charged off-session (the issuer asks
 * for authentication): same merchant, mode, customer, e-mail and subscription terms as the page
 * that started the subscription, for the renewal's amount, open until `expiresAt`. Paying it
 * confirms on-session (3-D Secure in the processor's fields) and saves the card for the next
 * renewals; the subscriptions module recognises it by its id. The customer is e-mailed the page's
 * link (through the e-mail outbox, in the same transaction: once per page). Runs in the caller's
 * transaction.
 */
export async function openRenewalPage(
  tx: Executor,
  deps: { keyRing: KeyRing; publicUrl: string; expireQueue: string; customers: Pick<CustomersService, 'contactOf'> },
  input: { subscriptionId: string; subscriptionPageId: string; amount: number; currency: string; periodEnd: Date; expiresAt: Date },
  now: Date,
): Promise<{ pageId: string; url: string }> {
  const [original] = await tx.select().from(paymentPages).where(eq(paymentPages.id, input.subscriptionPageId));
  if (!original) {
    throw new Error(`payment page ${input.subscriptionPageId} of subscription ${input.subscriptionId} vanished`);
  }
  const id = newId('paymentPage', now.getTime());
  const email = customerEmailOf(deps.keyRing, original);
  await tx.insert(paymentPages).values({
    id,
    merchantId: original.merchantId,
    livemode: original.livemode,
    status: 'CREATED',
    // Unique per merchant and mode like every page's: one renewal page per subscription period.
    clientReferenceId: `renewal:${input.subscriptionId}:${input.periodEnd.getTime()}`,
    customerId: original.customerId,
    customerEmailCiphertext: sealFields(deps.keyRing, emailLocation({ merchantId: original.merchantId, id }), { customerEmail: email }).customerEmail ?? '',
    amount: input.amount,
    currency: input.currency,
    successReturnUrl: null,
    failureReturnUrl: null,
    metadata: { subscriptionId: input.subscriptionId },
    // The subscription's terms: the card is saved for the next renewals.
    subscription: original.subscription,
    description: original.description,
    expiresAt: input.expiresAt,
    createdAt: now,
    updatedAt: now,
  });
  await enqueueJob(tx, now, deps.expireQueue, { pageId: id }, { runAt: input.expiresAt, dedupeKey: `${deps.expireQueue}:${id}`, maxAttempts: 20 });
  const url = `${deps.publicUrl}/payment-page/${id}`;
  if (email !== '') {
    const [merchant] = await tx.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, original.merchantId));
    const { firstName } = await deps.customers.contactOf(tx, original.customerId);
    const content = renewalPageEmail({ merchantName: merchant?.name ?? 'The merchant', firstName, amount: input.amount, currency: input.currency, url, expiresAt: input.expiresAt });
    await enqueueEmail(tx, now, deps.keyRing, { merchantId: original.merchantId, livemode: original.livemode, to: email, relatedId: id, ...content });
  }
  return { pageId: id, url };
}

/** Where a renewal page stands (the subscriptions module waits for it before ending a subscription). */
export async function renewalPageStatus(executor: Executor, pageId: string): Promise<'CREATED' | 'PAID' | 'EXPIRED' | null> {
  const [page] = await executor.select({ status: paymentPages.status }).from(paymentPages).where(eq(paymentPages.id, pageId));
  return page?.status ?? null;
}
