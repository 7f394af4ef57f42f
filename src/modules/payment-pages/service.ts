import { and, eq, gt, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { customers, paymentPages, payments as paymentRecords, type PaymentPageLineItem, type PaymentPageSubscription } from '../../db/schema/index.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { withoutCommitGuard } from '../../db/commit-guard.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { sealFields } from '../../crypto/pii.ts';
import type { ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { validateMetadata, validateReturnUrl } from '../../http/request-rules.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { recordEvent } from '../events/index.ts';
import { normalizeEmail, type CustomersService } from '../customers/index.ts';
import type { Merchant } from '../merchants/index.ts';
import { cardNumbersRefusedMessage, liveProcessorMissingMessage } from '../card-processor/index.ts';
import { validateCard, type PaymentsService, type ValidatedCard } from '../payments/index.ts';
import { createPageSettlement, type PaymentPaidHook } from './settlement.ts';
import { createCheckoutSessions } from './checkout.ts';
import { createCustomerEmails } from './customer-emails.ts';
import { createPaymentPageList } from './list.ts';
import { openRenewalPage, renewalPageStatus } from './renewal-page.ts';
import { customerEmailOf, emailLocation, pageResponse, reencryptPageEmails, type PageView, type PaymentPageRow } from './view.ts';
import type { CardPaymentInput, PaymentPageCreateInput, PaymentPageResponse } from './schemas.ts';

export type { PaidPaymentPage, PaymentPaidHook } from './settlement.ts';
export type { PaymentPageRow } from './view.ts';


export type PayOutcome = { outcome: 'PAID'; page: PaymentPageResponse } | { outcome: 'DECLINED'; declineReason: string; page: PaymentPageResponse };

export const paymentPageExpireQueue = 'payment-pages.expire';

const defaultLifetimeMs = 24 * 60 * 60 * 1000;
const maxLifetimeMs = 30 * 24 * 60 * 60 * 1000;
/** How long an expire waits for an in-flight payment attempt to settle before answering 409. */
const expireWaitMs = 5_000;
const expireRetryAfterBusyMs = 5_000;



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

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

  function pageScope(merchantId: string | undefined, livemode: boolean | undefined, pageId: string): SQL {
    const conditions: SQL[] = [eq(paymentPages.id, pageId)];
    if (merchantId !== undefined) {
      conditions.push(eq(paymentPages.merchantId, merchantId));
    }
    if (livemode !== undefined) {
      conditions.push(eq(paymentPages.livemode, livemode));
    }
    return and(...conditions) as SQL;
  }

  /**
   * The page with its customer reference and successful payment: one prepared statement (every read
   * by id goes through it, so PostgreSQL parses and plans it once per connection).
   */
  const pageViewStatement = database.db
    .select({ page: paymentPages, customerReferenceId: customers.referenceId, payment: paymentRecords })
    .from(paymentPages)
    .innerJoin(customers, eq(customers.id, paymentPages.customerId))
    .leftJoin(paymentRecords, eq(paymentRecords.id, paymentPages.paymentId))
    .where(
      and(
        eq(paymentPages.id, sql.placeholder('pageId')),
        sql`(${sql.placeholder('merchantId')}::text is null or ${paymentPages.merchantId} = ${sql.placeholder('merchantId')}::text)`,
        sql`(${sql.placeholder('livemode')}::boolean is null or ${paymentPages.livemode} = ${sql.placeholder('livemode')}::boolean)`,
      ),
    )
    .prepare('payment_pages_view_by_id');

  interface PageTarget {
    pageId: string;
    merchantId?: string | undefined;
    livemode?: boolean | undefined;
  }

  async function loadView(target: PageTarget): Promise<PageView | null> {
    const [row] = await pageViewStatement.execute({ pageId: target.pageId, merchantId: target.merchantId ?? null, livemode: target.livemode ?? null });
    return row ?? null;
  }



  async function requireView(target: PageTarget): Promise<PageView> {
    const view = await loadView(target);
    if (!view) {
      throw notFound('payment page', target.pageId);
    }
    return view;
  }

  /** CREATED → EXPIRED if no attempt holds the page (and, with `onlyIfDue`, expiresAt has passed). */
  async function expireInTransaction(tx: Executor, where: SQL, now: Date, onlyIfDue: boolean): Promise<PaymentPageRow | null> {
    const conditions = [where, eq(paymentPages.status, 'CREATED'), isNull(paymentPages.attemptPaymentId)];
    if (onlyIfDue) {
      conditions.push(lt(paymentPages.expiresAt, new Date(now.getTime() + 1)));
    }
    const [expired] = await tx
      .update(paymentPages)
      .set({ status: 'EXPIRED', expiredAt: now, updatedAt: now })
      .where(and(...conditions))
      .returning();
    if (!expired) {
      return null;
    }
    await recordEvent(tx, now, {
      merchantId: expired.merchantId,
      livemode: expired.livemode,
      type: 'PAYMENT_EXPIRED',
      data: { pageId: expired.id, clientReferenceId: expired.clientReferenceId },
    });
    return expired;
  }

  function notPayable(page: PaymentPageRow, now: Date): AppError | null {
    if (page.status === 'PAID') {
      return new AppError('INVALID_STATE', `Payment page ${page.id} is already PAID`);
    }
    if (page.status === 'EXPIRED' || page.expiresAt.getTime() <= now.getTime()) {
      return new AppError('INVALID_STATE', `Payment page ${page.id} has EXPIRED and can no longer be paid`);
    }
    if (page.attemptPaymentId !== null) {
      return new AppError('INVALID_STATE', `A card payment for payment page ${page.id} is in progress; retry in a few seconds`, {}, { 'Retry-After': '2' });
    }
    return null;
  }

  payments.onSettled(createPageSettlement(paidHooks));
  payments.useCheckoutContact(async (executor, pageId) => {
    const [page] = await executor.select().from(paymentPages).where(eq(paymentPages.id, pageId));
    return page ? customerEmailOf(keyRing, page) : '';
  });
  const toResponse = (view: PageView): PaymentPageResponse => pageResponse(keyRing, publicUrl, view);

  /**
   * The claim: one transaction sets `attempt_payment_id` with a conditional UPDATE and records the
   * PROCESSING payment (with the sandbox form's card description, or none for processor fields).
   * A reservation, settled by the payments module: the Idempotency-Key is marked by the
   * settlement, not here (decision 0004). Throws the reason when the page cannot be claimed.
   */
  async function claim(pageId: string, paymentId: string, now: Date, card: ValidatedCard | null): Promise<PaymentPageRow> {
    const claimed = await withoutCommitGuard(() => database.transaction(async (tx) => {
      const [held] = await tx
        .update(paymentPages)
        .set({ attemptPaymentId: paymentId, updatedAt: now })
        .where(and(eq(paymentPages.id, pageId), eq(paymentPages.status, 'CREATED'), isNull(paymentPages.attemptPaymentId), gt(paymentPages.expiresAt, now)))
        .returning();
      if (held) {
        await payments.recordCheckoutAttempt(tx, { paymentId, merchantId: held.merchantId, livemode: held.livemode, pageId: held.id, customerId: held.customerId, amount: held.amount, currency: held.currency, saveCard: held.subscription !== null, card }, now);
      }
      return held ?? null;
    }));
    if (!claimed) {
      const current = await requireView({ pageId });
      throw notPayable(current.page, clock.now()) ?? new AppError('INVALID_STATE', `Payment page ${pageId} cannot be paid right now; retry`);
    }
    return claimed;
  }

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
    /** Registers a hook called inside the transaction that marks a page PAID (see PaymentPaidHook). */
    onPaid(hook: PaymentPaidHook): void {
      paidHooks.push(hook);
    },

    toResponse,

    /** Queues the customer's refund notice in the transaction that settles a refund as SUCCEEDED. */
    sendRefundNotice: customerEmails.sendRefundNotice,

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

    async getPage(merchant: Merchant, livemode: boolean | undefined, pageId: string): Promise<PaymentPageResponse> {
      return toResponse(await requireView({ pageId, merchantId: merchant.id, livemode }));
    },

    /**
     * CREATED → EXPIRED (one PAYMENT_EXPIRED); EXPIRED → the same page again; PAID → 400. A page
     * held by an in-flight payment attempt is waited for (briefly): the attempt decides.
     */
    async expirePage(merchant: Merchant, livemode: boolean | undefined, pageId: string): Promise<PaymentPageResponse> {
      const where = pageScope(merchant.id, livemode, pageId);
      const deadline = Date.now() + expireWaitMs;
      let closedSession: string | null = null;
      for (;;) {
        await database.transaction((tx) => expireInTransaction(tx, where, clock.now(), false));
        const view = await requireView({ pageId, merchantId: merchant.id, livemode });
        if (view.page.status === 'EXPIRED') {
          return toResponse(view);
        }
        if (view.page.status === 'PAID') {
          throw new AppError('WRONG_PARAMETER', `Payment page ${pageId} is already PAID and cannot be expired`, { field: 'pageId' });
        }
        if (view.page.attemptPaymentId !== null) {
          // A processor-hosted session is canceled at the processor, once (a payment completed meanwhile wins).
          if (closedSession !== view.page.attemptPaymentId) {
            closedSession = view.page.attemptPaymentId;
            const attempt = await payments.closeSession(closedSession);
            if (attempt && attempt.status !== 'PROCESSING') {
              continue;
            }
          }
          if (Date.now() >= deadline) {
            throw new AppError('INVALID_STATE', `A card payment for payment page ${pageId} is in progress; retry the expire in a few seconds`, {}, { 'Retry-After': '2' });
          }
          await sleep(20);
        }
      }
    },

    /**
     * Pays a page by card: the hosted checkout and the sandbox test helper both call this. `target`
     * scopes the lookup (the API passes the merchant and mode; the hosted page only the id).
     */
    async payPage(target: { pageId: string; merchantId?: string; livemode?: boolean }, input: CardPaymentInput): Promise<PayOutcome> {
      const card = validateCard(input, clock.now());
      const view = await requireView(target);
      const { page } = view;
      const now = clock.now();
      if (page.status === 'CREATED' && page.attemptPaymentId === null && page.expiresAt.getTime() <= now.getTime()) {
        await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, page.id), now, true));
      }
      const refusal = notPayable(page, now);
      if (refusal) {
        throw refusal;
      }
      if (!payments.isAvailable(page.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      if (!payments.acceptsCardNumbers(page.livemode)) {
        throw new AppError('FORBIDDEN', cardNumbersRefusedMessage(page.livemode));
      }
      const paymentId = newId('payment', now.getTime());
      const claimed = await claim(page.id, paymentId, now, card);
      const payment = await payments.payWithCard({ paymentId, livemode: claimed.livemode, amount: claimed.amount, currency: claimed.currency, card, saveCard: claimed.subscription !== null });
      const current = toResponse(await requireView({ pageId: page.id }));
      return payment.status === 'SUCCEEDED' ? { outcome: 'PAID', page: current } : { outcome: 'DECLINED', declineReason: payment.declineReason ?? 'processing_error', page: current };
    },

    ...createCheckoutSessions({ database, clock, payments, requireView, loadView, claim, notPayable, toResponse }),
    ...createPaymentPageList({ database, keyRing, publicUrl }),

    /** Expires the page at `expiresAt` (scheduled with the page); waits out an in-flight attempt. */
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.expireJob()];
    },

    expireJob(): JobDefinition<{ pageId: string }> {
      return {
        queue: paymentPageExpireQueue,
        maxAttempts: 20,
        handle: async ({ pageId }) => {
          const now = clock.now();
          const expired = await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, pageId), now, true));
          if (expired) {
            return;
          }
          const [page] = await database.db.select().from(paymentPages).where(eq(paymentPages.id, pageId));
          if (!page || page.status !== 'CREATED') {
            return;
          }
          if (page.attemptPaymentId !== null) {
            // The page's time is up: an open session is closed at the processor, then the page expires.
            const attempt = await payments.closeSession(page.attemptPaymentId);
            if (attempt && attempt.status !== 'PROCESSING') {
              await database.transaction((tx) => expireInTransaction(tx, eq(paymentPages.id, pageId), clock.now(), true));
              return;
            }
            return { rescheduleAt: new Date(now.getTime() + expireRetryAfterBusyMs) };
          }
          return { rescheduleAt: page.expiresAt };
        },
      };
    },
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
