import type { Database } from '../../db/client.ts';
import { paymentPages, type PaymentPageLineItem, type PaymentPageSubscription } from '../../db/schema/index.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { sealFields } from '../../crypto/pii.ts';
import { AppError, wrongParameter } from '../../http/errors.ts';
import { validateMetadata, validateReturnUrl } from '../../http/request-rules.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock } from '../../clock.ts';
import { normalizeEmail, type CustomersService } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { paymentPageExpireQueue } from './expiry.ts';
import { emailLocation, type PageView, type PaymentPageRow } from './view.ts';
import type { PaymentPageCreateInput, PaymentPageResponse } from './schemas.ts';

const defaultLifetimeMs = 24 * 60 * 60 * 1000;
const maxLifetimeMs = 30 * 24 * 60 * 60 * 1000;

/** The line items as stored, or null; their `quantity × unitAmount` must sum to exactly `amount` (docs/API.md §9). */
function validateLineItems(amount: number, items: PaymentPageCreateInput['lineItems']): PaymentPageLineItem[] | null {
  if (items === undefined) {
    return null;
  }
  // Each product is at most 10,000 × 100,000,000 and there are at most 100: the sum stays exact.
  const total = items.reduce((sum, item) => sum + item.quantity * item.unitAmount, 0);
  if (total !== amount) {
    throw wrongParameter('lineItems', `must add up to amount (${amount}): the lines' quantity × unitAmount add up to ${total}`);
  }
  return items.map((item) => ({ name: item.name, quantity: item.quantity, unitAmount: item.unitAmount }));
}

/** Creating a page: its customer found or created by reference, the page, and its expiry job, in one transaction. */
export function createPageCreation(deps: { database: Database; clock: Clock; keyRing: KeyRing; customers: Pick<CustomersService, 'findOrCreateByReference'>; toResponse: (view: PageView) => PaymentPageResponse }) {
  const { database, clock, keyRing, customers: customersService, toResponse } = deps;

  async function createPageOnce(merchant: Merchant, livemode: boolean, input: PaymentPageCreateInput, values: { email: string; successReturnUrl: string | null; failureReturnUrl: string | null; expiresAt: Date; metadata: Record<string, string>; subscription: PaymentPageSubscription | null; description: string | null; lineItems: PaymentPageLineItem[] | null }, now: Date): Promise<PageView> {
    return database.transaction(async (tx) => {
      const customer = await customersService.findOrCreateByReference(tx, merchant.id, livemode, { referenceId: input.customer.referenceId, email: values.email }, now);
      const id = newId('paymentPage', now.getTime());
      let page: PaymentPageRow | undefined;
      try {
        [page] = await tx
          .insert(paymentPages)
          .values({
            id,
            merchantId: merchant.id,
            livemode,
            status: 'CREATED',
            clientReferenceId: input.clientReferenceId,
            customerId: customer.id,
            customerEmailCiphertext: sealFields(keyRing, emailLocation({ merchantId: merchant.id, id }), { customerEmail: values.email }).customerEmail ?? '',
            amount: input.amount,
            currency: input.currency,
            successReturnUrl: values.successReturnUrl,
            failureReturnUrl: values.failureReturnUrl,
            metadata: values.metadata,
            subscription: values.subscription,
            description: values.description,
            lineItems: values.lineItems,
            expiresAt: values.expiresAt,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
      } catch (error) {
        if (isUniqueViolation(error, 'payment_pages_client_reference_unique')) {
          throw new AppError('DUPLICATE_CLIENT_REFERENCE_ID', `A payment page with clientReferenceId '${input.clientReferenceId.slice(0, 255)}' already exists in this mode`, { field: 'clientReferenceId' });
        }
        throw error;
      }
      if (!page) {
        throw new Error('payment page insert returned nothing');
      }
      await enqueueJob(tx, now, paymentPageExpireQueue, { pageId: id }, { runAt: values.expiresAt, dedupeKey: `${paymentPageExpireQueue}:${id}`, maxAttempts: 20 });
      return { page, customerReferenceId: customer.referenceId, payment: null };
    });
  }

  return {
    async createPage(merchant: Merchant, livemode: boolean, input: PaymentPageCreateInput): Promise<PaymentPageResponse> {
      const now = clock.now();
      const email = normalizeEmail('customer.email', input.customer.email);
      const successReturnUrl = validateReturnUrl('successReturnUrl', input.successReturnUrl);
      const failureReturnUrl = validateReturnUrl('failureReturnUrl', input.failureReturnUrl);
      let expiresAt = new Date(now.getTime() + defaultLifetimeMs);
      if (input.expiresAt !== undefined) {
        if (input.expiresAt <= now.getTime()) {
          throw wrongParameter('expiresAt', 'must be in the future');
        }
        if (input.expiresAt > now.getTime() + maxLifetimeMs) {
          throw wrongParameter('expiresAt', 'must be at most 30 days from now');
        }
        expiresAt = new Date(input.expiresAt);
      }
      const metadata = validateMetadata(input.metadata);
      const subscription: PaymentPageSubscription | null = input.subscription
        ? { productId: input.subscription.productId, interval: input.subscription.interval, intervalCount: input.subscription.intervalCount ?? 1 }
        : null;
      const lineItems = validateLineItems(input.amount, input.lineItems);
      const values = { email, successReturnUrl, failureReturnUrl, expiresAt, metadata, subscription, description: input.description ?? null, lineItems };
      let view: PageView;
      try {
        view = await createPageOnce(merchant, livemode, input, values, now);
      } catch (error) {
        // Two pages created at once for one new customer: the loser finds the winner's customer.
        if (error instanceof AppError && error.code === 'DUPLICATE_REFERENCE_ID') {
          view = await createPageOnce(merchant, livemode, input, values, now);
        } else {
          throw error;
        }
      }
      return toResponse(view);
    },
  };
}
