import { and, asc, count, eq, gt, gte, isNotNull, isNull, lt, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database, Executor } from '../../db/client.ts';
import { cardTokens, customers, paymentPages, payments, type PaymentPageSubscription } from '../../db/schema/index.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { withoutCommitGuard } from '../../db/commit-guard.ts';
import { newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields, resealFields, sealFields, type PiiLocation } from '../../crypto/pii.ts';
import { resealInBatches, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { validateMetadata, validateReturnUrl } from '../../http/request-rules.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock, JobDefinition } from '../../jobs/worker.ts';
import { recordEvent } from '../events/record.ts';
import type { CustomersService } from '../customers/service.ts';
import { normalizeEmail } from '../customers/rules.ts';
import type { Merchant } from '../merchants/service.ts';
import { isCardExpired, isLuhnValid, normalizeCardNumber } from '../card-processor/cards.ts';
import { liveProcessorMissingMessage, type CardProcessorRouter } from '../card-processor/router.ts';
import type { ChargeResult } from '../card-processor/types.ts';
import { type CardPaymentInput, type PayinDetailsResponse, type PaymentPageCreateInput, type PaymentPageResponse } from './schemas.ts';

export type PaymentPageRow = typeof paymentPages.$inferSelect;
export type PaymentRow = typeof payments.$inferSelect;
export type CardTokenRow = typeof cardTokens.$inferSelect;

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

export type PayOutcome = { outcome: 'PAID'; page: PaymentPageResponse } | { outcome: 'DECLINED'; declineReason: string; page: PaymentPageResponse };

/** A successful (or named) card payment as the fraud reports module needs it. */
export interface FraudCandidate {
  paymentId: string;
  merchantId: string;
  livemode: boolean;
  status: PaymentRow['status'];
  pageId: string | null;
  clientReferenceId: string | null;
  amount: number;
  currency: string;
  bin: string;
  last4: string;
  scheme: string | null;
  cardType: string | null;
  issuer: string | null;
  decidedAt: Date | null;
}

export const paymentPageExpireQueue = 'payment-pages.expire';
export const paymentAttemptResolveQueue = 'payment-pages.resolve-attempt';

const defaultLifetimeMs = 24 * 60 * 60 * 1000;
const maxLifetimeMs = 30 * 24 * 60 * 60 * 1000;
/** The processor call is abandoned after this long… */
const processorTimeoutMs = 30_000;
/** …so an attempt still unsettled after this long has either reached the processor or never will. */
const attemptRecoveryDelayMs = 2 * 60_000;
/** How long an expire waits for an in-flight payment attempt to settle before answering 409. */
const expireWaitMs = 5_000;
const expireRetryAfterBusyMs = 5_000;

interface PageView {
  page: PaymentPageRow;
  customerReferenceId: string;
  payment: PaymentRow | null;
}

function emailLocation(page: { merchantId: string; id: string }): PiiLocation {
  return { merchantId: page.merchantId, table: 'payment_pages', rowId: page.id };
}

function paymentLocation(payment: { merchantId: string; id: string }): PiiLocation {
  return { merchantId: payment.merchantId, table: 'payments', rowId: payment.id };
}

export interface ValidatedCard {
  number: string;
  expMonth: number;
  expYear: number;
  cvc: string;
  cardholderName: string;
}

/**
 * Checks a card before anything is charged or stored. Messages name the field and the rule and
 * never echo what was typed.
 */
export function validateCard(input: CardPaymentInput, now: Date): ValidatedCard {
  const number = normalizeCardNumber(input.cardNumber);
  if (!isLuhnValid(number)) {
    throw wrongParameter('cardNumber', 'must be a valid card number (12-19 digits passing the Luhn check)');
  }
  if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) {
    throw wrongParameter('expMonth', 'must be an integer between 1 and 12');
  }
  if (!Number.isInteger(input.expYear) || input.expYear < 2000 || input.expYear > now.getUTCFullYear() + 25) {
    throw wrongParameter('expYear', `must be a four-digit year no later than ${now.getUTCFullYear() + 25}`);
  }
  if (isCardExpired(input.expMonth, input.expYear, now)) {
    throw wrongParameter('expYear', 'and expMonth must not be in the past (the card has expired)');
  }
  if (!/^\d{3,4}$/.test(input.cvc)) {
    throw wrongParameter('cvc', 'must be 3 or 4 digits');
  }
  const cardholderName = input.cardholderName.trim().replace(/\s+/g, ' ');
  if (cardholderName.length === 0 || cardholderName.length > 200 || /\d{6,}/.test(cardholderName)) {
    throw wrongParameter('cardholderName', 'must be the name printed on the card (1-200 characters)');
  }
  return { number, expMonth: input.expMonth, expYear: input.expYear, cvc: input.cvc, cardholderName };
}

function payinDetailsOf(payment: PaymentRow): PayinDetailsResponse {
  return {
    amount: payment.amount,
    currency: payment.currency,
    type: 'CARD',
    scheme: payment.scheme ?? 'UNKNOWN',
    last4: payment.last4,
    cardType: payment.cardType ?? 'CREDIT',
    bin: payment.bin,
    issuer: payment.issuer ?? 'Unknown issuer',
  };
}

async function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`card processor did not answer within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * Payment pages (contract §9): create, read, expire, pay by card (hosted checkout and the sandbox
 * test helper run the same `payPage`), expiry at `expiresAt`, and the on-paid hooks.
 *
 * Paying is claim → charge → settle:
 *  1. claim: one transaction sets `attempt_payment_id` on the page with a conditional UPDATE
 *     (status CREATED, no attempt, not past expiresAt) and inserts the PROCESSING payment. Expire,
 *     the expiry job and other payments update only pages without an attempt, so from here on the
 *     attempt alone decides the page's fate: a payment racing an expire has exactly one winner and
 *     nothing is ever charged on a page that can no longer be paid.
 *  2. charge: the processor is called outside any transaction (idempotent by payment id).
 *  3. settle: one transaction moves the payment to SUCCEEDED (page → PAID, PAYMENT_SUCCEEDED, card
 *     token, on-paid hooks) or DECLINED (claim released, page stays CREATED).
 * If the answer is lost (crash, timeout), the resolve-attempt job enqueued with the claim asks the
 * processor what happened after `attemptRecoveryDelayMs` and settles the same way.
 */
export function createPaymentPagesService(deps: {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  publicUrl: string;
  customers: CustomersService;
  cardProcessor: CardProcessorRouter;
  logger: Logger;
}) {
  const { database, clock, keyRing, publicUrl, customers: customersService, cardProcessor, logger } = deps;
  const paidHooks: PaymentPaidHook[] = [];

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
    .select({ page: paymentPages, customerReferenceId: customers.referenceId, payment: payments })
    .from(paymentPages)
    .innerJoin(customers, eq(customers.id, paymentPages.customerId))
    .leftJoin(payments, eq(payments.id, paymentPages.paymentId))
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

  function customerEmailOf(page: PaymentPageRow): string {
    return openFields(keyRing, emailLocation(page), { customerEmail: page.customerEmailCiphertext }).customerEmail ?? '';
  }

  function toResponse(view: PageView): PaymentPageResponse {
    const { page, payment } = view;
    const response: PaymentPageResponse = {
      id: page.id,
      status: page.status,
      clientReferenceId: page.clientReferenceId,
      customer: { id: page.customerId, referenceId: view.customerReferenceId, email: customerEmailOf(page) },
      amount: page.amount,
      currency: page.currency,
      url: `${publicUrl}/payment-page/${page.id}`,
      expiresAt: page.expiresAt.getTime(),
      createdAt: page.createdAt.getTime(),
      livemode: page.livemode,
      metadata: page.metadata,
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
    if (page.successReturnUrl) {
      response.successReturnUrl = page.successReturnUrl;
    }
    if (page.failureReturnUrl) {
      response.failureReturnUrl = page.failureReturnUrl;
    }
    if (page.subscription) {
      response.subscription = page.subscription;
    }
    return response;
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

  /**
   * Records the processor's answer for a PROCESSING payment; a payment that is no longer PROCESSING
   * was settled by someone else (the pay request or the resolve job) and is left alone.
   */
  async function settleAttempt(paymentId: string, result: ChargeResult): Promise<PayOutcome | null> {
    const settled = await database.transaction(async (tx) => {
      const now = clock.now();
      const [payment] = await tx.select().from(payments).where(eq(payments.id, paymentId)).for('update');
      if (!payment || payment.status !== 'PROCESSING') {
        return null;
      }
      if (payment.kind === 'RENEWAL' || payment.pageId === null) {
        await settleRenewal(tx, payment, result, now);
        return null;
      }
      if (result.status === 'DECLINED') {
        await tx
          .update(payments)
          .set({
            status: 'DECLINED',
            declineReason: result.declineReason,
            scheme: result.card?.scheme ?? null,
            cardType: result.card?.cardType ?? null,
            issuer: result.card?.issuer ?? null,
            decidedAt: now,
            updatedAt: now,
          })
          .where(eq(payments.id, paymentId));
        await tx
          .update(paymentPages)
          .set({ attemptPaymentId: null, updatedAt: now })
          .where(and(eq(paymentPages.id, payment.pageId), eq(paymentPages.attemptPaymentId, paymentId)));
        return { outcome: 'DECLINED' as const, declineReason: result.declineReason, pageId: payment.pageId };
      }
      const [page] = await tx
        .select()
        .from(paymentPages)
        .where(and(eq(paymentPages.id, payment.pageId), eq(paymentPages.attemptPaymentId, paymentId), eq(paymentPages.status, 'CREATED')));
      if (!page) {
        throw new Error(`payment ${paymentId} settled without holding its page`);
      }
      let cardTokenId: string | null = null;
      if (result.token && page.subscription) {
        cardTokenId = newId('cardToken', now.getTime());
        await tx.insert(cardTokens).values({
          id: cardTokenId,
          merchantId: page.merchantId,
          livemode: page.livemode,
          customerId: page.customerId,
          processor: payment.processor,
          processorToken: result.token,
          paymentId,
          bin: result.card.bin,
          last4: result.card.last4,
          scheme: result.card.scheme,
          cardType: result.card.cardType,
          issuer: result.card.issuer,
          expMonth: result.card.expMonth,
          expYear: result.card.expYear,
          createdAt: now,
        });
      }
      const [succeeded] = await tx
        .update(payments)
        .set({
          status: 'SUCCEEDED',
          processorReference: result.processorReference,
          networkTransactionId: result.networkTransactionId,
          scheme: result.card.scheme,
          cardType: result.card.cardType,
          issuer: result.card.issuer,
          cardTokenId,
          decidedAt: now,
          updatedAt: now,
        })
        .where(eq(payments.id, paymentId))
        .returning();
      if (!succeeded) {
        throw new Error(`payment ${paymentId} vanished while settling`);
      }
      const [paid] = await tx
        .update(paymentPages)
        .set({ status: 'PAID', paidAt: now, paymentId, attemptPaymentId: null, updatedAt: now })
        .where(and(eq(paymentPages.id, page.id), eq(paymentPages.attemptPaymentId, paymentId)))
        .returning();
      if (!paid) {
        throw new Error(`payment page ${page.id} changed while settling ${paymentId}`);
      }
      const [customer] = await tx.select({ referenceId: customers.referenceId }).from(customers).where(eq(customers.id, paid.customerId));
      const customerReferenceId = customer?.referenceId ?? '';
      await recordEvent(tx, now, {
        merchantId: paid.merchantId,
        livemode: paid.livemode,
        type: 'PAYMENT_SUCCEEDED',
        data: {
          pageId: paid.id,
          paymentId,
          clientReferenceId: paid.clientReferenceId,
          amount: paid.amount,
          currency: paid.currency,
          // No e-mail: events are stored and sent to webhooks, and carry no PII (read the page for it).
          customer: { id: paid.customerId, referenceId: customerReferenceId },
          payinDetails: payinDetailsOf(succeeded),
        },
      });
      let subscriptionId: string | null = null;
      const event: PaidPaymentPage = {
        merchantId: paid.merchantId,
        livemode: paid.livemode,
        pageId: paid.id,
        paymentId,
        customerId: paid.customerId,
        amount: paid.amount,
        currency: paid.currency,
        subscription: paid.subscription ? { ...paid.subscription } : null,
        cardTokenId,
        paidAt: now,
      };
      for (const hook of paidHooks) {
        const outcome = await hook(tx, event, now);
        if (outcome && outcome.subscriptionId) {
          subscriptionId = outcome.subscriptionId;
        }
      }
      let final = paid;
      if (subscriptionId) {
        const [withSubscription] = await tx.update(paymentPages).set({ subscriptionId }).where(eq(paymentPages.id, paid.id)).returning();
        final = withSubscription ?? paid;
      }
      return { outcome: 'PAID' as const, view: { page: final, customerReferenceId, payment: succeeded } };
    });
    if (!settled) {
      return null;
    }
    if (settled.outcome === 'PAID') {
      return { outcome: 'PAID', page: toResponse(settled.view) };
    }
    const view = await requireView({ pageId: settled.pageId });
    return { outcome: 'DECLINED', declineReason: settled.declineReason, page: toResponse(view) };
  }

  async function settleRenewal(tx: Executor, payment: PaymentRow, result: ChargeResult, now: Date): Promise<void> {
    if (result.status === 'SUCCEEDED') {
      await tx
        .update(payments)
        .set({
          status: 'SUCCEEDED',
          processorReference: result.processorReference,
          networkTransactionId: result.networkTransactionId,
          scheme: result.card.scheme,
          cardType: result.card.cardType,
          issuer: result.card.issuer,
          decidedAt: now,
          updatedAt: now,
        })
        .where(and(eq(payments.id, payment.id), eq(payments.status, 'PROCESSING')));
      return;
    }
    await tx
      .update(payments)
      .set({ status: 'DECLINED', declineReason: result.declineReason, decidedAt: now, updatedAt: now })
      .where(and(eq(payments.id, payment.id), eq(payments.status, 'PROCESSING')));
  }

  /** Asks the processor what happened to an attempt whose answer was lost; null = it never arrived. */
  async function recoverResult(paymentId: string, livemode: boolean): Promise<ChargeResult> {
    const recorded = await cardProcessor.retrieveCharge({ paymentId, livemode });
    return recorded ?? { status: 'DECLINED', declineReason: 'processing_error', card: null };
  }

  /** A saved card (ctok_…) with the processor token renewals charge. */
  async function findCardToken(executor: Executor, cardTokenId: string): Promise<CardTokenRow | null> {
    const [row] = await executor.select().from(cardTokens).where(eq(cardTokens.id, cardTokenId));
    return row ?? null;
  }

  async function createPageOnce(merchant: Merchant, livemode: boolean, input: PaymentPageCreateInput, values: { email: string; successReturnUrl: string | null; failureReturnUrl: string | null; expiresAt: Date; metadata: Record<string, string>; subscription: PaymentPageSubscription | null }, now: Date): Promise<PageView> {
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
      const values = { email, successReturnUrl, failureReturnUrl, expiresAt, metadata, subscription };
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
      if (!cardProcessor.isAvailable(page.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      const paymentId = newId('payment', now.getTime());
      // A reservation, settled below or by the resolve job: the Idempotency-Key is marked by the
      // settlement, not here (decision 0004).
      const claimed = await withoutCommitGuard(() => database.transaction(async (tx) => {
        const [held] = await tx
          .update(paymentPages)
          .set({ attemptPaymentId: paymentId, updatedAt: now })
          .where(and(eq(paymentPages.id, page.id), eq(paymentPages.status, 'CREATED'), isNull(paymentPages.attemptPaymentId), gt(paymentPages.expiresAt, now)))
          .returning();
        if (!held) {
          return null;
        }
        await tx.insert(payments).values({
          id: paymentId,
          merchantId: held.merchantId,
          livemode: held.livemode,
          kind: 'CHECKOUT',
          pageId: held.id,
          customerId: held.customerId,
          amount: held.amount,
          currency: held.currency,
          status: 'PROCESSING',
          processor: cardProcessor.processorName(held.livemode),
          bin: card.number.slice(0, 6),
          last4: card.number.slice(-4),
          expMonth: card.expMonth,
          expYear: card.expYear,
          cardholderNameCiphertext: sealFields(keyRing, paymentLocation({ merchantId: held.merchantId, id: paymentId }), { cardholderName: card.cardholderName }).cardholderName ?? null,
          createdAt: now,
          updatedAt: now,
        });
        await enqueueJob(tx, now, paymentAttemptResolveQueue, { paymentId }, { runAt: new Date(now.getTime() + attemptRecoveryDelayMs), dedupeKey: `${paymentAttemptResolveQueue}:${paymentId}` });
        return held;
      }));
      if (!claimed) {
        const current = await requireView({ pageId: page.id });
        throw notPayable(current.page, clock.now()) ?? new AppError('INVALID_STATE', `Payment page ${page.id} cannot be paid right now; retry`);
      }
      let result: ChargeResult;
      try {
        result = await withTimeout(
          cardProcessor.charge({
            paymentId,
            livemode: claimed.livemode,
            amount: claimed.amount,
            currency: claimed.currency,
            card: { number: card.number, expMonth: card.expMonth, expYear: card.expYear, cvc: card.cvc, cardholderName: card.cardholderName },
            saveCard: claimed.subscription !== null,
          }),
          processorTimeoutMs,
        );
      } catch (error) {
        // Never log the error object itself: a processor's error could quote the request.
        logger.warn({ paymentId, errorName: error instanceof Error ? error.name : typeof error }, 'card processor call failed; asking it for the result');
        try {
          result = await recoverResult(paymentId, claimed.livemode);
        } catch {
          throw new AppError('SERVICE_UNAVAILABLE', 'The card payment could not be confirmed; it will be settled automatically within a few minutes. Do not retry the payment.', {}, { 'Retry-After': '120' });
        }
      }
      const outcome = await settleAttempt(paymentId, result);
      if (outcome) {
        return outcome;
      }
      // Settled concurrently by the resolve job: report what it decided.
      const [payment] = await database.db.select().from(payments).where(eq(payments.id, paymentId));
      const current = toResponse(await requireView({ pageId: page.id }));
      return payment?.status === 'SUCCEEDED' ? { outcome: 'PAID', page: current } : { outcome: 'DECLINED', declineReason: payment?.declineReason ?? 'processing_error', page: current };
    },

    /** The page for the hosted checkout (no merchant scope: the id in the URL is the capability). */
    async checkoutPage(pageId: string): Promise<{ page: PaymentPageResponse; merchantId: string; cardPaymentsAvailable: boolean; attemptInProgress: boolean } | null> {
      const view = await loadView({ pageId });
      if (!view) {
        return null;
      }
      return {
        page: toResponse(view),
        merchantId: view.page.merchantId,
        cardPaymentsAvailable: cardProcessor.isAvailable(view.page.livemode),
        attemptInProgress: view.page.attemptPaymentId !== null,
      };
    },

    /** Expires the page at `expiresAt` (scheduled with the page); waits out an in-flight attempt. */
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
            return { rescheduleAt: new Date(now.getTime() + expireRetryAfterBusyMs) };
          }
          return { rescheduleAt: page.expiresAt };
        },
      };
    },

    /** Settles an attempt whose pay request died or timed out, from the processor's own record. */
    resolveAttemptJob(): JobDefinition<{ paymentId: string }> {
      return {
        queue: paymentAttemptResolveQueue,
        maxAttempts: 20,
        handle: async ({ paymentId }) => {
          const [payment] = await database.db.select().from(payments).where(eq(payments.id, paymentId));
          if (!payment || payment.status !== 'PROCESSING') {
            return;
          }
          await settleAttempt(paymentId, await recoverResult(paymentId, payment.livemode));
        },
      };
    },

    findCardToken,

    /**
     * Charges a saved card (subscription renewals) and records the payment (kind RENEWAL). Pass a
     * `paymentId` you generated and kept to make a retry safe: the processor and this record are
     * both idempotent by it. Runs its own transactions (the processor call sits between them).
     */
    async chargeSavedCard(input: { merchantId: string; livemode: boolean; cardTokenId: string; amount: number; currency: string; pageId?: string | null; paymentId?: string }): Promise<{ paymentId: string; status: 'SUCCEEDED' | 'DECLINED'; declineReason: string | null; payinDetails: PayinDetailsResponse | null }> {
      const now = clock.now();
      const token = await findCardToken(database.db, input.cardTokenId);
      if (!token || token.merchantId !== input.merchantId || token.livemode !== input.livemode) {
        throw notFound('card token', input.cardTokenId);
      }
      if (!cardProcessor.isAvailable(input.livemode)) {
        throw new AppError('FORBIDDEN', liveProcessorMissingMessage);
      }
      const paymentId = input.paymentId ?? newId('payment', now.getTime());
      await database.transaction(async (tx) => {
        const inserted = await tx
          .insert(payments)
          .values({
            id: paymentId,
            merchantId: token.merchantId,
            livemode: token.livemode,
            kind: 'RENEWAL',
            pageId: input.pageId ?? null,
            customerId: token.customerId,
            amount: input.amount,
            currency: input.currency,
            status: 'PROCESSING',
            processor: token.processor,
            bin: token.bin,
            last4: token.last4,
            scheme: token.scheme,
            cardType: token.cardType,
            issuer: token.issuer,
            expMonth: token.expMonth,
            expYear: token.expYear,
            cardTokenId: token.id,
            createdAt: now,
            updatedAt: now,
          })
          .onConflictDoNothing()
          .returning({ id: payments.id });
        if (inserted.length === 1) {
          await enqueueJob(tx, now, paymentAttemptResolveQueue, { paymentId }, { runAt: new Date(now.getTime() + attemptRecoveryDelayMs), dedupeKey: `${paymentAttemptResolveQueue}:${paymentId}` });
        }
      });
      const [existing] = await database.db.select().from(payments).where(eq(payments.id, paymentId));
      if (existing && existing.status === 'PROCESSING') {
        const result = await withTimeout(cardProcessor.chargeToken({ paymentId, livemode: token.livemode, amount: input.amount, currency: input.currency, token: token.processorToken }), processorTimeoutMs);
        await settleAttempt(paymentId, result);
      }
      const [payment] = await database.db.select().from(payments).where(eq(payments.id, paymentId));
      if (!payment || payment.status === 'PROCESSING') {
        throw new AppError('SERVICE_UNAVAILABLE', 'The renewal charge could not be confirmed; retry with the same paymentId', {}, { 'Retry-After': '5' });
      }
      return {
        paymentId,
        status: payment.status,
        declineReason: payment.declineReason,
        payinDetails: payment.status === 'SUCCEEDED' ? payinDetailsOf(payment) : null,
      };
    },

    /** Payments the fraud reports module may attach a report to (read-only). */
    async findPaymentsForFraud(
      executor: Executor,
      criteria:
        | { paymentId: string }
        | { networkTransactionId: string; scheme: string; livemode: boolean }
        | { bin: string; last4: string; amount: number; currency: string; day: Date; scheme: string; livemode: boolean },
    ): Promise<FraudCandidate[]> {
      const conditions: SQL[] = [];
      if ('paymentId' in criteria) {
        conditions.push(eq(payments.id, criteria.paymentId));
      } else if ('networkTransactionId' in criteria) {
        conditions.push(
          eq(payments.networkTransactionId, criteria.networkTransactionId),
          eq(payments.scheme, criteria.scheme),
          eq(payments.livemode, criteria.livemode),
          eq(payments.status, 'SUCCEEDED'),
        );
      } else {
        const dayEnd = new Date(criteria.day.getTime() + 24 * 60 * 60 * 1000);
        conditions.push(
          eq(payments.bin, criteria.bin),
          eq(payments.last4, criteria.last4),
          eq(payments.amount, criteria.amount),
          eq(payments.currency, criteria.currency),
          gte(payments.decidedAt, criteria.day),
          lt(payments.decidedAt, dayEnd),
          eq(payments.scheme, criteria.scheme),
          eq(payments.livemode, criteria.livemode),
          eq(payments.status, 'SUCCEEDED'),
        );
      }
      const rows = await executor
        .select({ payment: payments, clientReferenceId: paymentPages.clientReferenceId })
        .from(payments)
        .leftJoin(paymentPages, eq(paymentPages.id, payments.pageId))
        .where(and(...conditions))
        .limit(10);
      return rows.map(({ payment, clientReferenceId }) => ({
        paymentId: payment.id,
        merchantId: payment.merchantId,
        livemode: payment.livemode,
        status: payment.status,
        pageId: payment.pageId,
        clientReferenceId,
        amount: payment.amount,
        currency: payment.currency,
        bin: payment.bin,
        last4: payment.last4,
        scheme: payment.scheme,
        cardType: payment.cardType,
        issuer: payment.issuer,
        decidedAt: payment.decidedAt,
      }));
    },

    /** The cardholder name and the page's customer e-mail in plaintext, for sealing into a fraud report. */
    async revealPaymentPii(executor: Executor, paymentId: string): Promise<{ cardholderName: string; customerEmail: string }> {
      const [row] = await executor.select({ payment: payments, page: paymentPages }).from(payments).leftJoin(paymentPages, eq(paymentPages.id, payments.pageId)).where(eq(payments.id, paymentId));
      if (!row) {
        throw notFound('payment', paymentId);
      }
      const cardholderName = row.payment.cardholderNameCiphertext
        ? (openFields(keyRing, paymentLocation(row.payment), { cardholderName: row.payment.cardholderNameCiphertext }).cardholderName ?? '')
        : '';
      let customerEmail = row.page ? customerEmailOf(row.page) : '';
      if (customerEmail === '') {
        customerEmail = (await customersService.contactOf(executor, row.payment.customerId)).email ?? '';
      }
      return { cardholderName, customerEmail };
    },

    /**
     * Key-ring rotation: re-seals each page's customer e-mail under the active key (same associated
     * data; UPDATE conditional on the ciphertext read). `onProgress`: rows examined of all.
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealInBatches({
        ...options,
        count: async () => (await database.db.select({ total: count() }).from(paymentPages))[0]?.total ?? 0,
        readBatch: (after: string | undefined, limit: number) =>
          database.db
            .select({ id: paymentPages.id, merchantId: paymentPages.merchantId, customerEmailCiphertext: paymentPages.customerEmailCiphertext })
            .from(paymentPages)
            .where(after === undefined ? undefined : gt(paymentPages.id, after))
            .orderBy(asc(paymentPages.id))
            .limit(limit),
        cursorOf: (row) => row.id,
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
    },

    /** Key-ring rotation: re-seals each payment's cardholder name under the active key (as `reencryptAll`). */
    async reencryptPayments(options: ReencryptOptions = {}): Promise<number> {
      return resealInBatches({
        ...options,
        count: async () => (await database.db.select({ total: count() }).from(payments).where(isNotNull(payments.cardholderNameCiphertext)))[0]?.total ?? 0,
        readBatch: (after: string | undefined, limit: number) =>
          database.db
            .select({ id: payments.id, merchantId: payments.merchantId, cardholderNameCiphertext: payments.cardholderNameCiphertext })
            .from(payments)
            .where(and(isNotNull(payments.cardholderNameCiphertext), after === undefined ? undefined : gt(payments.id, after)))
            .orderBy(asc(payments.id))
            .limit(limit),
        cursorOf: (row) => row.id,
        reseal: async (row) => {
          if (row.cardholderNameCiphertext === null) {
            return false;
          }
          const resealed = resealFields(keyRing, paymentLocation(row), { cardholderName: row.cardholderNameCiphertext })?.cardholderName;
          if (resealed === undefined) {
            return false;
          }
          const updated = await database.db
            .update(payments)
            .set({ cardholderNameCiphertext: resealed })
            .where(and(eq(payments.id, row.id), eq(payments.cardholderNameCiphertext, row.cardholderNameCiphertext)))
            .returning({ id: payments.id });
          return updated.length > 0;
        },
      });
    },
  };
}

export type PaymentPagesService = ReturnType<typeof createPaymentPagesService>;
