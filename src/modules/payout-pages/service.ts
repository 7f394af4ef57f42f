import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { payoutPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { newId } from '../../crypto/ids.ts';
import { openFields, resealFields, sealFields } from '../../crypto/pii.ts';
import { resealInBatches, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import { validateMetadata, validateReturnUrl } from '../../http/request-rules.ts';
import { isUniqueViolation } from '../../db/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { Clock, JobDefinition } from '../../jobs/worker.ts';
import { recordEvent } from '../events/record.ts';
import { enqueueEmail } from '../email/enqueue.ts';
import type { CustomersService } from '../customers/service.ts';
import { missingKycFields, normalizeEmail } from '../customers/rules.ts';
import type { Merchant } from '../merchants/service.ts';
import { InsufficientFundsError, type LedgerService } from '../ledger/service.ts';
import type { KycData } from '../customers/rules.ts';
import { createPayoutPageAccess } from './access.ts';
import { destinationFields, destinationFromFields, maskDestination, validateDestination, type PayoutDestination, type PayoutMethodInput, type PayoutMethodType } from './destinations.ts';
import { pageCreatedEmail, transitionEmail, verificationCodeEmail, type PayoutEmailContext } from './emails.ts';
import { payoutPagesRepository as repository, type PayoutPageInsert, type PayoutPageRow } from './repository.ts';
import { noLiveRailReason, type PayoutRail, type PayoutRails } from './rails/types.ts';
import { maxPayoutAmount, type KycInput, type PayoutPageCreateInput, type PayoutPageResponse } from './schemas.ts';
import { actionForKycDecision, findTransition, initialState, ledgerMovements, type KycStatus, type LedgerMovement, type PayoutPageAction, type PayoutPageState, type PayoutPageStatus, type PayoutPageSubStatus, type Transition } from './states.ts';

export const payoutExpireQueue = 'payout_pages.expire';
export const payoutSubmitQueue = 'payout_pages.submit';
export const payoutSettleQueue = 'payout_pages.settle';

const dayMs = 24 * 60 * 60 * 1000;
export const defaultPageLifetimeMs = 7 * dayMs;
export const maxPageLifetimeMs = 30 * dayMs;

export type Actor = 'merchant' | 'customer' | 'system' | 'kyc' | 'rail';

const kycRejectedReason = 'The customer’s identity verification was not approved.';

const verbs: Record<PayoutPageAction, string> = {
  confirm: 'confirm',
  kycSubmitted: 'submit identity data for',
  kycApproved: 'approve',
  kycRejected: 'reject',
  release: 'release',
  autoRelease: 'release',
  cancel: 'cancel',
  decline: 'decline',
  expire: 'expire',
  railPaid: 'settle',
  railRejected: 'reject',
};

const actionHints: Partial<Record<PayoutPageAction, string>> = {
  release: 'release needs status PENDING with sub-status AWAITING_RELEASE',
  cancel: 'cancel is possible before the payout is PROCESSING',
  decline: 'a payout can be declined before it is PROCESSING',
  confirm: 'the payout method can be confirmed while the page is CREATED',
  kycSubmitted: 'identity data is asked for while the page is PENDING with sub-status KYC_REQUIRED',
};

function invalidState(page: PayoutPageRow, action: PayoutPageAction): AppError {
  const hint = actionHints[action];
  return new AppError('INVALID_STATE', `Cannot ${verbs[action]} payout page ${page.id}: it is ${page.status}/${page.subStatus}${hint ? `; ${hint}` : ''}`);
}

function stateOf(page: PayoutPageRow): PayoutPageState {
  return { status: page.status as PayoutPageStatus, subStatus: page.subStatus as PayoutPageSubStatus };
}

function location(page: { merchantId: string; id: string }) {
  return { merchantId: page.merchantId, table: 'payout_pages', rowId: page.id };
}

export interface PayoutPagesDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  publicUrl: string;
  ledger: LedgerService;
  customers: CustomersService;
  rails: PayoutRails;
}

interface ApplyOptions {
  actor: Actor;
  now: Date;
  kycStatus?: KycStatus;
  /** Columns written together with the state (the confirmation's method and destination). */
  set?: Partial<PayoutPageInsert>;
  /** The rail's rejection reason. */
  reason?: string;
}

type ApplyResult = { outcome: 'applied'; page: PayoutPageRow } | { outcome: 'refused' } | { outcome: 'conflict' };

/**
 * Payout pages: creation (with the reservation), the state machine applied by conditional
 * UPDATEs, and everything a change brings in the same transaction: ledger movement, status
 * history, PAYOUT_PAGE_UPDATED event, jobs and e-mails.
 */
export function createPayoutPagesService(deps: PayoutPagesDeps) {
  const { database, clock, keyRing, ledger, customers, rails } = deps;

  function railFor(livemode: boolean): PayoutRail | null {
    return livemode ? rails.live : rails.sandbox;
  }

  function pageUrl(id: string): string {
    return `${deps.publicUrl}/payout-page/${id}`;
  }

  function emailOf(page: PayoutPageRow): string {
    return openFields(keyRing, location(page), { 'customer.email': page.customerEmailCiphertext })['customer.email'] ?? '';
  }

  /** Destination fields are sealed one by one, bound to this page (`destination.<field>`). */
  function sealDestination(page: { merchantId: string; id: string }, destination: PayoutDestination): Record<string, string> {
    const fields = Object.fromEntries(Object.entries(destinationFields(destination)).map(([field, value]) => [`destination.${field}`, value]));
    return sealFields(keyRing, location(page), fields);
  }

  function destinationOf(page: PayoutPageRow): PayoutDestination | null {
    if (!page.destination) {
      return null;
    }
    const fields = openFields(keyRing, location(page), page.destination);
    return destinationFromFields(Object.fromEntries(Object.entries(fields).map(([field, value]) => [field.replace(/^destination\./, ''), value])));
  }

  function toResponse(page: PayoutPageRow): PayoutPageResponse {
    const response: PayoutPageResponse = {
      id: page.id,
      status: page.status as PayoutPageStatus,
      'sub-status': page.subStatus as PayoutPageSubStatus,
      amount: page.amount,
      fundingCurrency: page.fundingCurrency,
      clientReferenceId: page.clientReferenceId,
      releaseMethod: page.releaseMethod,
      customer: { id: page.customerId, referenceId: page.customerReferenceId, email: emailOf(page) },
      merchant: { id: page.merchantId, livemode: page.livemode },
      url: pageUrl(page.id),
      metadata: page.metadata,
      expiresAt: page.expiresAt.getTime(),
      createdAt: page.createdAt.getTime(),
      updatedAt: page.updatedAt.getTime(),
    };
    if (page.statusReason) {
      response.statusReason = page.statusReason;
    }
    if (page.successReturnUrl) {
      response.successReturnUrl = page.successReturnUrl;
    }
    if (page.failureReturnUrl) {
      response.failureReturnUrl = page.failureReturnUrl;
    }
    if (page.customerConfirmedAt) {
      response.customerConfirmedAt = page.customerConfirmedAt.getTime();
    }
    if (page.payoutMethod?.type === 'BANK_TRANSFER') {
      const destination = destinationOf(page);
      response.payoutMethod = { type: 'BANK_TRANSFER', last4: page.payoutMethod.last4, routingNumber: destination?.type === 'BANK_TRANSFER' ? destination.routingNumber : '' };
    } else if (page.payoutMethod?.type === 'CRYPTO_WALLET') {
      response.payoutMethod = { type: 'CRYPTO_WALLET', network: page.payoutMethod.network, address: page.payoutMethod.address };
    }
    return response;
  }

  /**
   * The event body: the payout page as the API returns it plus the previous state — without the
   * customer's e-mail, which is PII (contract §6: no plaintext PII in webhook payloads or in the
   * database, where events are stored).
   */
  function eventData(page: PayoutPageRow, previous: PayoutPageState): Record<string, unknown> {
    const { customer, ...rest } = toResponse(page);
    return { ...rest, customer: { id: customer.id, referenceId: customer.referenceId }, previousStatus: previous.status, previousSubStatus: previous.subStatus };
  }

  async function emailContext(tx: Executor, page: PayoutPageRow, merchantName?: string): Promise<PayoutEmailContext> {
    const contact = await customers.contactOf(tx, page.customerId);
    return {
      merchantName: merchantName ?? (await repository.merchantName(tx, page.merchantId)),
      firstName: contact.firstName,
      amount: page.amount,
      currency: page.fundingCurrency,
      url: pageUrl(page.id),
      expiresAt: page.expiresAt,
      subStatus: page.subStatus,
    };
  }

  async function sendEmail(tx: Executor, page: PayoutPageRow, content: { template: string; subject: string; text: string; html: string }, now: Date): Promise<void> {
    await enqueueEmail(tx, now, keyRing, { merchantId: page.merchantId, livemode: page.livemode, to: emailOf(page), relatedId: page.id, ...content });
  }

  async function moveMoney(tx: Executor, page: PayoutPageRow, movement: LedgerMovement, now: Date): Promise<void> {
    const { source, destination } = ledgerMovements[movement];
    await ledger.post(
      tx,
      {
        merchantId: page.merchantId,
        livemode: page.livemode,
        currency: page.fundingCurrency,
        kind: movement,
        reference: page.id,
        // One movement of each kind per page, ever: a unique constraint, not a hope.
        idempotencyKey: `${page.id}:${movement}`,
        postings: [{ source, destination, amount: page.amount }],
      },
      now,
    );
  }

  function reasonFor(edge: Transition, page: PayoutPageRow, options: ApplyOptions): string | null {
    if (edge.to.subStatus === 'AWAITING_RELEASE' && !railFor(page.livemode)) {
      return noLiveRailReason;
    }
    if (edge.to.subStatus === 'KYC_REJECTED') {
      return kycRejectedReason;
    }
    if (edge.to.subStatus === 'PAYOUT_REJECTED') {
      return options.reason ?? 'The payout rail rejected the payout.';
    }
    return null;
  }

  /**
   * Applies one row of the transition table to `page` as read, and everything that comes with it,
   * in the caller's transaction. `conflict` means the page moved since it was read.
   */
  async function apply(tx: Executor, page: PayoutPageRow, action: PayoutPageAction, options: ApplyOptions): Promise<ApplyResult> {
    const edge = findTransition(stateOf(page), action, { releaseMethod: page.releaseMethod, ...(options.kycStatus ? { kycStatus: options.kycStatus } : {}) });
    if (!edge) {
      return { outcome: 'refused' };
    }
    const { now } = options;
    const moved = await repository.moveState(tx, page.id, edge.from, {
      ...options.set,
      status: edge.to.status,
      subStatus: edge.to.subStatus,
      statusReason: reasonFor(edge, page, options),
      updatedAt: now,
    });
    if (!moved) {
      return { outcome: 'conflict' };
    }
    const event = await recordEvent(tx, now, { merchantId: moved.merchantId, livemode: moved.livemode, type: 'PAYOUT_PAGE_UPDATED', data: eventData(moved, edge.from) });
    await repository.insertHistory(tx, {
      payoutPageId: moved.id,
      merchantId: moved.merchantId,
      livemode: moved.livemode,
      fromStatus: edge.from.status,
      fromSubStatus: edge.from.subStatus,
      toStatus: edge.to.status,
      toSubStatus: edge.to.subStatus,
      action,
      actor: options.actor,
      reason: moved.statusReason,
      eventId: event.id,
      createdAt: now,
    });
    if (edge.submitsPayout) {
      await enqueueJob(tx, now, payoutSubmitQueue, { payoutPageId: moved.id }, { dedupeKey: `${payoutSubmitQueue}:${moved.id}`, maxAttempts: 20 });
    }
    if (edge.email) {
      await sendEmail(tx, moved, transitionEmail(edge.email, await emailContext(tx, moved)), now);
    }
    // Last, to keep the lock on the merchant's balance rows short (they are the hot spot).
    if (edge.ledger) {
      await moveMoney(tx, moved, edge.ledger, now);
    }
    // AUTOMATIC payouts are released the moment they may be (when a rail can take them).
    if (moved.status === 'PENDING' && moved.subStatus === 'AWAITING_RELEASE' && moved.releaseMethod === 'AUTOMATIC' && railFor(moved.livemode)) {
      const released = await apply(tx, moved, 'autoRelease', { actor: 'system', now });
      if (released.outcome === 'applied') {
        return released;
      }
    }
    return { outcome: 'applied', page: moved };
  }

  /**
   * Applies `action` to the page `load` reads, re-reading after a lost race. Refusal is
   * INVALID_STATE for people (merchant, customer) and a quiet null for the system (a job or a KYC
   * decision that finds the page already moved on has nothing to do).
   */
  async function act(
    tx: Executor,
    load: () => Promise<PayoutPageRow | null>,
    action: PayoutPageAction,
    options: Omit<ApplyOptions, 'kycStatus' | 'set'> & {
      kycStatus?: (page: PayoutPageRow) => Promise<KycStatus>;
      check?: (page: PayoutPageRow) => void;
      set?: (page: PayoutPageRow) => Partial<PayoutPageInsert>;
    },
  ): Promise<PayoutPageRow | null> {
    const people = options.actor === 'merchant' || options.actor === 'customer';
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const page = await load();
      if (!page) {
        return null;
      }
      options.check?.(page);
      const { kycStatus: readKyc, check: _check, set, ...rest } = options;
      const result = await apply(tx, page, action, { ...rest, ...(readKyc ? { kycStatus: await readKyc(page) } : {}), ...(set ? { set: set(page) } : {}) });
      if (result.outcome === 'applied') {
        return result.page;
      }
      if (result.outcome === 'refused') {
        if (people) {
          throw invalidState(page, action);
        }
        return null;
      }
    }
    throw new AppError('INVALID_STATE', 'The payout page is changing concurrently; retry the request');
  }

  /** findOrCreateByReference under a savepoint: a concurrent create of the same customer is found, not an error. */
  async function customerFor(tx: Executor, merchantId: string, livemode: boolean, input: { referenceId: string; email: string }, now: Date) {
    try {
      return await tx.transaction((savepoint) => customers.findOrCreateByReference(savepoint as unknown as Executor, merchantId, livemode, input, now));
    } catch (error) {
      if (error instanceof AppError && error.code === 'DUPLICATE_REFERENCE_ID') {
        return customers.findOrCreateByReference(tx, merchantId, livemode, input, now);
      }
      throw error;
    }
  }

  /** The customer's confirmation: shared by the hosted page and the sandbox test helper. */
  async function confirmIn(tx: Executor, payoutPageId: string, destination: PayoutDestination, now: Date): Promise<PayoutPageRow> {
    const page = await act(tx, () => repository.findById(tx, payoutPageId), 'confirm', {
      actor: 'customer',
      now,
      check: (current) => {
        if (current.status === 'CREATED' && current.expiresAt.getTime() <= now.getTime()) {
          throw new AppError('INVALID_STATE', `Payout page ${current.id} expired at ${current.expiresAt.toISOString()}`);
        }
      },
      kycStatus: async (current) => {
        const customer = await repository.lockCustomer(tx, current.customerId);
        if (!customer) {
          throw notFound('customer', current.customerId);
        }
        const supported = (customer.supportedPayoutMethods ?? ['BANK_TRANSFER', 'CRYPTO_WALLET']) as PayoutMethodType[];
        if (!supported.includes(destination.type)) {
          throw wrongParameter('payoutMethod.type', `must be one of ${supported.join(', ')} for this customer`);
        }
        return customer.kycStatus;
      },
      set: (current) => ({ customerConfirmedAt: now, payoutMethod: maskDestination(destination), destination: sealDestination(current, destination) }),
    });
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }

  /** The hosted KYC form (and the helper's `kyc`): completes the customer's identity data and starts KYC. */
  async function submitKycIn(tx: Executor, page: PayoutPageRow, input: KycInput, now: Date): Promise<PayoutPageRow> {
    if (page.status !== 'PENDING' || page.subStatus !== 'KYC_REQUIRED') {
      throw invalidState(page, 'kycSubmitted');
    }
    const customer = await customers.completeIdentity(tx, page.merchantId, page.customerId, input, now);
    if (customer.kycStatus === 'NOT_STARTED') {
      const missing = missingKycFields(await customers.readKycData(tx, page.customerId));
      throw wrongParameter(`kyc.${missing[0] ?? 'firstName'}`, 'is required to verify the identity');
    }
    const action: PayoutPageAction = customer.kycStatus === 'PENDING' ? 'kycSubmitted' : actionForKycDecision(customer.kycStatus === 'APPROVED' ? 'APPROVED' : 'REJECTED');
    const moved = await act(tx, () => repository.findById(tx, page.id), action, { actor: 'customer', now });
    if (!moved) {
      throw notFound('payout page', page.id);
    }
    return moved;
  }

  async function requirePage(executor: Executor, payoutPageId: string): Promise<PayoutPageRow> {
    const page = await repository.findById(executor, payoutPageId);
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }

  async function requireScoped(executor: Executor, merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageRow> {
    const page = await repository.findScoped(executor, merchant.id, livemode, payoutPageId);
    if (!page) {
      throw notFound('payout page', payoutPageId);
    }
    return page;
  }

  const access = createPayoutPageAccess({
    database,
    clock,
    keyRing,
    emailCode: async (tx, payoutPageId, code, now) => {
      const page = await requirePage(tx, payoutPageId);
      const context = await emailContext(tx, page);
      await sendEmail(tx, page, verificationCodeEmail({ merchantName: context.merchantName, firstName: context.firstName, code, minutes: 10 }), now);
    },
  });

  return {
    toResponse,
    railFor,
    access,

    async createPayoutPage(merchant: Merchant, livemode: boolean, input: PayoutPageCreateInput): Promise<PayoutPageResponse> {
      const now = clock.now();
      if (!Number.isSafeInteger(input.amount) || input.amount < 1 || input.amount > maxPayoutAmount) {
        throw wrongParameter('amount', `must be an integer between 1 and ${maxPayoutAmount}`);
      }
      const email = normalizeEmail('customer.email', input.customer.email);
      const successReturnUrl = validateReturnUrl('successReturnUrl', input.successReturnUrl);
      const failureReturnUrl = validateReturnUrl('failureReturnUrl', input.failureReturnUrl);
      const expiresAt = new Date(input.expiresAt ?? now.getTime() + defaultPageLifetimeMs);
      if (expiresAt.getTime() <= now.getTime() || expiresAt.getTime() > now.getTime() + maxPageLifetimeMs) {
        throw wrongParameter('expiresAt', 'must be in the future and at most 30 days from now (epoch milliseconds)');
      }
      const metadata = validateMetadata(input.metadata);
      const id = newId('payoutPage', now.getTime());
      return database.transaction(async (tx) => {
        const customer = await customerFor(tx, merchant.id, livemode, { referenceId: input.customer.referenceId, email }, now);
        let page: PayoutPageRow;
        try {
          page = await repository.insert(tx, {
            id,
            merchantId: merchant.id,
            livemode,
            customerId: customer.id,
            customerReferenceId: customer.referenceId,
            customerEmailCiphertext: sealFields(keyRing, location({ merchantId: merchant.id, id }), { 'customer.email': email })['customer.email'] ?? '',
            clientReferenceId: input.clientReferenceId,
            amount: input.amount,
            fundingCurrency: input.fundingCurrency,
            releaseMethod: input.releaseMethod,
            status: initialState.status,
            subStatus: initialState.subStatus,
            successReturnUrl,
            failureReturnUrl,
            metadata,
            expiresAt,
            createdAt: now,
            updatedAt: now,
          });
        } catch (error) {
          if (isUniqueViolation(error, 'payout_pages_client_reference_unique')) {
            throw new AppError('DUPLICATE_CLIENT_REFERENCE_ID', `A payout page with clientReferenceId '${input.clientReferenceId.slice(0, 255)}' already exists in this mode`);
          }
          throw error;
        }
        await repository.insertHistory(tx, {
          payoutPageId: id,
          merchantId: merchant.id,
          livemode,
          fromStatus: null,
          fromSubStatus: null,
          toStatus: initialState.status,
          toSubStatus: initialState.subStatus,
          action: 'create',
          actor: 'merchant',
          reason: null,
          eventId: null,
          createdAt: now,
        });
        await enqueueJob(tx, now, payoutExpireQueue, { payoutPageId: id }, { runAt: expiresAt, dedupeKey: `${payoutExpireQueue}:${id}` });
        await sendEmail(tx, page, pageCreatedEmail(await emailContext(tx, page, merchant.name)), now);
        // The reservation comes last: the balance row is the merchant's hot spot, and its lock is
        // held from this UPDATE to the commit, so nothing else should run in between.
        try {
          await moveMoney(tx, page, 'reserve', now);
        } catch (error) {
          if (error instanceof InsufficientFundsError) {
            throw new AppError('INSUFFICIENT_FUNDS', `The available ${input.fundingCurrency} balance cannot cover this payout page (amount ${input.amount})`);
          }
          throw error;
        }
        return toResponse(page);
      });
    },

    async getPayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      return toResponse(await requireScoped(database.db, merchant, livemode, payoutPageId));
    },

    /** MANUAL pages in AWAITING_RELEASE → PROCESSING (the ledger moves reserved → in flight). */
    async releasePayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const now = clock.now();
      const page = await database.transaction((tx) =>
        act(tx, () => requireScoped(tx, merchant, livemode, payoutPageId), 'release', {
          actor: 'merchant',
          now,
          check: (current) => {
            if (current.releaseMethod !== 'MANUAL') {
              throw new AppError('INVALID_STATE', `Payout page ${current.id} has releaseMethod AUTOMATIC: it is released as soon as the customer is verified`);
            }
            if (current.status === 'PENDING' && current.subStatus === 'AWAITING_RELEASE' && !railFor(current.livemode)) {
              throw new AppError('INVALID_STATE', noLiveRailReason);
            }
          },
        }),
      );
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    async cancelPayoutPage(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => requireScoped(tx, merchant, livemode, payoutPageId), 'cancel', { actor: 'merchant', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    /** Status history (oldest first), for the dashboard. */
    async history(merchant: Merchant, payoutPageId: string) {
      await requireScoped(database.db, merchant, undefined, payoutPageId);
      return repository.history(database.db, payoutPageId);
    },

    // ---- the customer's side: hosted page and sandbox test helpers ----

    async findForCustomer(payoutPageId: string): Promise<{ page: PayoutPageRow; merchantName: string; supportedMethods: PayoutMethodType[] } | null> {
      const page = await repository.findById(database.db, payoutPageId);
      if (!page) {
        return null;
      }
      const supported = ((await repository.customerPayoutMethods(database.db, page.customerId)) ?? ['BANK_TRANSFER', 'CRYPTO_WALLET']) as PayoutMethodType[];
      return { page, merchantName: await repository.merchantName(database.db, page.merchantId), supportedMethods: supported };
    },

    /** Validates a destination without storing it (the hosted page's review step). */
    validateDestination(input: PayoutMethodInput): PayoutDestination {
      return validateDestination(input);
    },

    async confirm(payoutPageId: string, method: PayoutMethodInput): Promise<PayoutPageRow> {
      const destination = validateDestination(method);
      const now = clock.now();
      return database.transaction((tx) => confirmIn(tx, payoutPageId, destination, now));
    },

    async submitKyc(payoutPageId: string, input: KycInput): Promise<PayoutPageRow> {
      const now = clock.now();
      return database.transaction(async (tx) => submitKycIn(tx, await requirePage(tx, payoutPageId), input, now));
    },

    async decline(payoutPageId: string): Promise<PayoutPageRow> {
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => repository.findById(tx, payoutPageId), 'decline', { actor: 'customer', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return page;
    },

    /** The customer's identity data, to pre-fill the hosted KYC form (only after the code was verified). */
    async kycPrefill(payoutPageId: string): Promise<{ data: KycData; firstName: string | null }> {
      const page = await requirePage(database.db, payoutPageId);
      const data = await customers.readKycData(database.db, page.customerId);
      return { data, firstName: data.firstName ?? null };
    },

    /** Sandbox test helper: what the customer does on the page, through the same code, in one transaction. */
    async confirmAsTestHelper(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string, input: { payoutMethod: PayoutMethodInput; kyc?: KycInput }): Promise<PayoutPageResponse> {
      const destination = validateDestination(input.payoutMethod);
      const now = clock.now();
      const page = await database.transaction(async (tx) => {
        const scoped = await requireScoped(tx, merchant, livemode, payoutPageId);
        if (scoped.livemode) {
          throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this payout page is live');
        }
        const confirmed = await confirmIn(tx, scoped.id, destination, now);
        if (input.kyc && confirmed.status === 'PENDING' && confirmed.subStatus === 'KYC_REQUIRED') {
          return submitKycIn(tx, confirmed, input.kyc, now);
        }
        return confirmed;
      });
      return toResponse(page);
    },

    async declineAsTestHelper(merchant: Merchant, livemode: boolean | undefined, payoutPageId: string): Promise<PayoutPageResponse> {
      const scoped = await requireScoped(database.db, merchant, livemode, payoutPageId);
      if (scoped.livemode) {
        throw new AppError('FORBIDDEN', 'Test helpers work in sandbox only; this payout page is live');
      }
      const now = clock.now();
      const page = await database.transaction((tx) => act(tx, () => repository.findById(tx, scoped.id), 'decline', { actor: 'customer', now }));
      if (!page) {
        throw notFound('payout page', payoutPageId);
      }
      return toResponse(page);
    },

    /** kyc.onDecision: moves the customer's pages waiting on KYC, in the decision's transaction. */
    async onKycDecision(tx: Executor, decision: { customerId: string; status: 'APPROVED' | 'REJECTED' }, now: Date): Promise<void> {
      for (const waiting of await repository.waitingOnKyc(tx, decision.customerId)) {
        await act(tx, () => repository.findById(tx, waiting.id), actionForKycDecision(decision.status), { actor: 'kyc', now });
      }
    },

    /** Unconfirmed at expiresAt → EXPIRED (the reservation is released). */
    expireJob(): JobDefinition<{ payoutPageId: string }> {
      return {
        queue: payoutExpireQueue,
        maxAttempts: 20,
        handle: async ({ payoutPageId }, context) => {
          await context.transaction(async (tx) => {
            const now = clock.now();
            await act(
              tx,
              async () => {
                const page = await repository.findById(tx, payoutPageId);
                return page && page.expiresAt.getTime() <= now.getTime() ? page : null;
              },
              'expire',
              { actor: 'system', now },
            );
          });
        },
      };
    },

    /**
     * Hands a PROCESSING payout to its rail. The rail call happens outside the transaction and is
     * idempotent by payout id, so a retry after a crash re-submits the same payout, never a second.
     */
    submitJob(): JobDefinition<{ payoutPageId: string }> {
      return {
        queue: payoutSubmitQueue,
        maxAttempts: 20,
        handle: async ({ payoutPageId }, context) => {
          const page = await repository.findById(database.db, payoutPageId);
          if (!page || page.status !== 'PROCESSING') {
            return;
          }
          const rail = railFor(page.livemode);
          const destination = destinationOf(page);
          if (!rail || !destination) {
            throw new Error(`payout page ${page.id} cannot be submitted: ${rail ? 'no destination' : 'no rail'}`);
          }
          const { reference } =
            page.railReference !== null ? { reference: page.railReference } : await rail.submit({ payoutId: page.id, livemode: page.livemode, amount: page.amount, currency: page.fundingCurrency, destination });
          await context.transaction(async (tx) => {
            const now = clock.now();
            await repository.recordRailSubmission(tx, page.id, rail.name, reference, now);
            await enqueueJob(tx, now, payoutSettleQueue, { payoutPageId: page.id }, { runAt: new Date(now.getTime() + rail.pollIntervalMs), dedupeKey: `${payoutSettleQueue}:${page.id}`, maxAttempts: 50 });
          });
        },
      };
    },

    /** Polls the rail; PAID settles (in flight → external), REJECTED returns the funds (in flight → available). */
    settleJob(): JobDefinition<{ payoutPageId: string }> {
      return {
        queue: payoutSettleQueue,
        maxAttempts: 50,
        handle: async ({ payoutPageId }, context) => {
          const page = await repository.findById(database.db, payoutPageId);
          if (!page || page.status !== 'PROCESSING' || page.railReference === null) {
            return;
          }
          const rail = railFor(page.livemode);
          if (!rail) {
            throw new Error(`payout page ${page.id} has no rail`);
          }
          const outcome = await rail.fetchStatus(page.railReference);
          if (outcome.status === 'PENDING') {
            return { rescheduleAt: new Date(clock.now().getTime() + rail.pollIntervalMs) };
          }
          await context.transaction(async (tx) => {
            await act(tx, () => repository.findById(tx, page.id), outcome.status === 'PAID' ? 'railPaid' : 'railRejected', {
              actor: 'rail',
              now: clock.now(),
              ...(outcome.status === 'REJECTED' ? { reason: outcome.reason } : {}),
            });
          });
          return;
        },
      };
    },

    /**
     * Key-ring rotation: re-seals each page's customer e-mail and payout destination under the
     * active key, with the same associated data. Each UPDATE is conditional on the ciphertext read:
     * a concurrent write wins (it seals under the active key anyway). `onProgress`: rows examined of all.
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealInBatches({
        ...options,
        count: async () => (await database.db.select({ total: count() }).from(payoutPages))[0]?.total ?? 0,
        readBatch: (after: string | undefined, limit: number) =>
          database.db
            .select({ id: payoutPages.id, merchantId: payoutPages.merchantId, customerEmailCiphertext: payoutPages.customerEmailCiphertext, destination: payoutPages.destination })
            .from(payoutPages)
            .where(after === undefined ? undefined : gt(payoutPages.id, after))
            .orderBy(asc(payoutPages.id))
            .limit(limit),
        cursorOf: (row) => row.id,
        reseal: async (row) => {
          const email = resealFields(keyRing, location(row), { 'customer.email': row.customerEmailCiphertext })?.['customer.email'];
          const destination = row.destination ? resealFields(keyRing, location(row), row.destination) : null;
          if (email === undefined && destination === null) {
            return false;
          }
          const updated = await database.db
            .update(payoutPages)
            .set({ ...(email === undefined ? {} : { customerEmailCiphertext: email }), ...(destination === null ? {} : { destination }) })
            .where(
              and(
                eq(payoutPages.id, row.id),
                ...(email === undefined ? [] : [eq(payoutPages.customerEmailCiphertext, row.customerEmailCiphertext)]),
                ...(destination === null ? [] : [sql`${payoutPages.destination} = ${JSON.stringify(row.destination)}::jsonb`]),
              ),
            )
            .returning({ id: payoutPages.id });
          return updated.length > 0;
        },
      });
    },
  };
}

export type PayoutPagesService = ReturnType<typeof createPayoutPagesService>;
