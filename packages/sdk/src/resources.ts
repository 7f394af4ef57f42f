import type { Customer, Dispute, ErasedCustomer, Event, FraudReport, PaymentPage, PayoutPage, Refund, WebhookDelivery } from './generated/openapi.ts';
import type { OperationKey, Operations } from './types.ts';
import { paginate } from './paging.ts';
import type { RequestOptions, Result, Transport } from './transport.ts';

/** Request body of an operation, as the OpenAPI document types it. */
export type Body<K extends OperationKey> = NonNullable<Operations[K]['body']>;
/** Query of an operation, bracket names (`pagination[offset]`) as nested objects (`{ pagination: { offset } }`). */
export type Query<K extends OperationKey> = Operations[K]['query'];

export type Entitlement = Result<'GET /v1/entitlements'>['entitlements'][number];
export type Subscription = Result<'GET /v1/subscriptions/{subscriptionId}'>;


abstract class Resource {
  // A plain field rather than a parameter property, so the package also runs under Node's type stripping.
  protected readonly transport: Transport;

  constructor(transport: Transport) {
    this.transport = transport;
  }
}

/** `/v1/customers` (PII fields come back as JWE: see `pii.decrypt`). */
export class Customers extends Resource {
  create(body: Body<'POST /v1/customers'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/customers', { body }, options);
  }

  retrieve(customerId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/customers/{customerId}', { pathParams: { customerId } }, options);
  }

  /** Newest first; filters `referenceId`, `kycStatus`, `createdFrom`/`createdTo`, `livemode` (omitted: both modes). */
  list(query?: Query<'GET /v1/customers'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/customers', { query }, options);
  }

  /** Every matching customer, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/customers'> = {}, options?: RequestOptions): AsyncGenerator<Customer | ErasedCustomer, void, undefined> {
    return paginate<Result<'GET /v1/customers'>, Customer | ErasedCustomer, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.customers, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.customers.at(-1)?.id } : undefined }),
    );
  }

  /** `email`, `address` (merged field by field) and `supportedPaymentMethods` while unset. */
  update(customerId: string, body: Body<'POST /v1/customers/{customerId}'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/customers/{customerId}', { pathParams: { customerId }, body }, options);
  }

  /** Everything Paysail holds about the customer, in one document (personal data as JWE: see `pii.decrypt`). */
  export(customerId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/customers/{customerId}/export', { pathParams: { customerId } }, options);
  }

  /** Erases the customer's personal data irreversibly; answers what remains (`erasedAt` set). Retried safely with an idempotency key. */
  erase(customerId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/customers/{customerId}/erase', { pathParams: { customerId } }, options);
  }

  /** Decides a verification in review (`APPROVED` or `REJECTED`, with the reason kept in the audit record). */
  decideKycReview(customerId: string, body: Body<'POST /v1/customers/{customerId}/kyc_review'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/customers/{customerId}/kyc_review', { pathParams: { customerId }, body }, options);
  }
}

/** `/v1/kyc_reviews`: identity verifications waiting for the merchant's decision. */
export class KycReviews extends Resource {
  list(query?: Query<'GET /v1/kyc_reviews'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/kyc_reviews', { query }, options);
  }
}

/** `/v1/balance`: one entry per funding currency. */
export class BalanceResource extends Resource {
  retrieve(options?: RequestOptions) {
    return this.transport.call('GET /v1/balance', {}, options);
  }
}

/** `/v1/payout_pages`. */
export class PayoutPages extends Resource {
  create(body: Body<'POST /v1/payout_pages'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/payout_pages', { body }, options);
  }

  retrieve(payoutPageId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/payout_pages/{payoutPageId}', { pathParams: { payoutPageId } }, options);
  }

  /** Newest first; filters `clientReferenceId`, `customerId`, `status`, `createdFrom`/`createdTo`, `livemode` (omitted: both modes). */
  list(query?: Query<'GET /v1/payout_pages'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/payout_pages', { query }, options);
  }

  /** Every matching payout page, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/payout_pages'> = {}, options?: RequestOptions): AsyncGenerator<PayoutPage, void, undefined> {
    return paginate<Result<'GET /v1/payout_pages'>, PayoutPage, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.payoutPages, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.payoutPages.at(-1)?.id } : undefined }),
    );
  }

  /** MANUAL pages in `AWAITING_RELEASE` → PROCESSING. */
  release(payoutPageId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/payout_pages/{payoutPageId}/release', { pathParams: { payoutPageId } }, options);
  }

  /** Before PROCESSING; releases the reserved amount. */
  cancel(payoutPageId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/payout_pages/{payoutPageId}/cancel', { pathParams: { payoutPageId } }, options);
  }

  /** A page locked by too many wrong codes (`lockedAt`) → unlocked, with fresh codes e-mailed to the customer. */
  reissue(payoutPageId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/payout_pages/{payoutPageId}/reissue', { pathParams: { payoutPageId } }, options);
  }
}

/** `/v1/payment_pages`. */
export class PaymentPages extends Resource {
  create(body: Body<'POST /v1/payment_pages'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/payment_pages', { body }, options);
  }

  retrieve(pageId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/payment_pages/{pageId}', { pathParams: { pageId } }, options);
  }

  /** Newest first; filters `clientReferenceId`, `customerId`, `status`, `createdFrom`/`createdTo`, `livemode` (omitted: both modes). */
  list(query?: Query<'GET /v1/payment_pages'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/payment_pages', { query }, options);
  }

  /** Every matching payment page, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/payment_pages'> = {}, options?: RequestOptions): AsyncGenerator<PaymentPage, void, undefined> {
    return paginate<Result<'GET /v1/payment_pages'>, PaymentPage, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.paymentPages, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.paymentPages.at(-1)?.id } : undefined }),
    );
  }

  /** CREATED → EXPIRED (a PAID page answers `WRONG_PARAMETER`). */
  expire(pageId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/payment_pages/{pageId}/expire', { pathParams: { pageId } }, options);
  }
}

/** `/v1/refunds`: refunds of PAID payment pages; newest first, cursor paging like `/v1/events`. */
export class Refunds extends Resource {
  /** A PENDING refund of `amount` (default: all that is left) of the page's payment; send an Idempotency-Key to retry safely. */
  create(body: Body<'POST /v1/refunds'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/refunds', { body }, options);
  }

  retrieve(refundId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/refunds/{refundId}', { pathParams: { refundId } }, options);
  }

  list(query?: Query<'GET /v1/refunds'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/refunds', { query }, options);
  }

  /** Every matching refund (e.g. `{ paymentPageId }`), newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/refunds'> = {}, options?: RequestOptions): AsyncGenerator<Refund, void, undefined> {
    return paginate<Result<'GET /v1/refunds'>, Refund, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.refunds, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.refunds.at(-1)?.id } : undefined }),
    );
  }
}

/** `/v1/fraud_reports`: offset paging, newest `fraudIssueDate` first. */
export class FraudReports extends Resource {
  list(query?: Query<'GET /v1/fraud_reports'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/fraud_reports', { query }, options);
  }

  /**
   * Every matching report, fetching pages of `pagination.limit` (default 100) from
   * `pagination.offset` (default 0). Offsets shift when reports arrive during the walk: a report can
   * then be seen twice or missed; filter by `fraudIssueDateRange` for a stable window.
   */
  iterate(query: Query<'GET /v1/fraud_reports'> = {}, options?: RequestOptions): AsyncGenerator<FraudReport, void, undefined> {
    const limit = query.pagination?.limit ?? 100;
    return paginate(
      query.pagination?.offset ?? 0,
      (offset) => this.list({ ...query, pagination: { offset, limit } }, options),
      (page, offset) => ({ items: page.checkoutFraudReports, next: page.hasMore ? offset + page.checkoutFraudReports.length : undefined }),
    );
  }

  retrieve(id: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/fraud_reports/{id}', { pathParams: { id } }, options);
  }
}

/** `/v1/entitlements`: cursor paging (`nextPageToken` → `cursorToken`); the only answer without an envelope. */
export class Entitlements extends Resource {
  list(query?: Query<'GET /v1/entitlements'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/entitlements', { query }, options);
  }

  /** Every matching entitlement, in `sort` order, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/entitlements'> = {}, options?: RequestOptions): AsyncGenerator<Entitlement, void, undefined> {
    return paginate<Result<'GET /v1/entitlements'>, Entitlement, { cursorToken?: string }>(
      query.cursorToken === undefined ? {} : { cursorToken: query.cursorToken },
      (cursor) => this.list({ ...query, ...cursor }, options),
      (page) => ({ items: page.entitlements, next: page.hasMore && page.nextPageToken !== undefined ? { cursorToken: page.nextPageToken } : undefined }),
    );
  }
}

/** `/v1/subscriptions` (created by paying a payment page that has `subscription`). */
export class Subscriptions extends Resource {
  retrieve(subscriptionId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/subscriptions/{subscriptionId}', { pathParams: { subscriptionId } }, options);
  }

  /** Newest first; filters `customerId`, `status`, `livemode` (omitted: both modes). */
  list(query?: Query<'GET /v1/subscriptions'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/subscriptions', { query }, options);
  }

  /** Every matching subscription, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/subscriptions'> = {}, options?: RequestOptions): AsyncGenerator<Subscription, void, undefined> {
    return paginate<Result<'GET /v1/subscriptions'>, Subscription, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.subscriptions, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.subscriptions.at(-1)?.id } : undefined }),
    );
  }

  /** Ends the subscription at the end of its current period. */
  cancel(subscriptionId: string, options?: RequestOptions) {
    return this.transport.call('POST /v1/subscriptions/{subscriptionId}/cancel', { pathParams: { subscriptionId } }, options);
  }
}

/** `/v1/events`: newest first, cursor paging (`nextCursor` → `startingAfter`). */
export class Events extends Resource {
  list(query?: Query<'GET /v1/events'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/events', { query }, options);
  }

  /** Every matching event, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/events'> = {}, options?: RequestOptions): AsyncGenerator<Event, void, undefined> {
    return paginate<Result<'GET /v1/events'>, Event, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.events, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.events.at(-1)?.id } : undefined }),
    );
  }

  retrieve(eventId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/events/{eventId}', { pathParams: { eventId } }, options);
  }

  /** Delivers the event again to every subscribed endpoint, or to `endpointId` only. */
  redeliver(eventId: string, body?: Body<'POST /v1/events/{eventId}/redeliver'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/events/{eventId}/redeliver', { pathParams: { eventId }, body }, options);
  }
}

/** `/v1/disputes`: chargebacks of card payments, newest first, cursor paging like events. */
export class Disputes extends Resource {
  list(query?: Query<'GET /v1/disputes'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/disputes', { query }, options);
  }

  /** Every matching dispute, newest first, pages of `limit` (default 100). */
  iterate(query: Query<'GET /v1/disputes'> = {}, options?: RequestOptions): AsyncGenerator<Dispute, void, undefined> {
    return paginate<Result<'GET /v1/disputes'>, Dispute, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.disputes, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.disputes.at(-1)?.id } : undefined }),
    );
  }

  retrieve(disputeId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/disputes/{disputeId}', { pathParams: { disputeId } }, options);
  }
}

/** `/v1/webhook_endpoints` (the secret is shown on create and rotate only). */
export class WebhookEndpoints extends Resource {
  create(body: Body<'POST /v1/webhook_endpoints'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/webhook_endpoints', { body }, options);
  }

  list(options?: RequestOptions) {
    return this.transport.call('GET /v1/webhook_endpoints', {}, options);
  }

  retrieve(endpointId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/webhook_endpoints/{endpointId}', { pathParams: { endpointId } }, options);
  }

  update(endpointId: string, body: Body<'POST /v1/webhook_endpoints/{endpointId}'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/webhook_endpoints/{endpointId}', { pathParams: { endpointId }, body }, options);
  }

  delete(endpointId: string, options?: RequestOptions) {
    return this.transport.call('DELETE /v1/webhook_endpoints/{endpointId}', { pathParams: { endpointId } }, options);
  }

  /** A new secret; the previous one keeps signing for `gracePeriodSeconds` (default 24 h). */
  rotateSecret(endpointId: string, body?: Body<'POST /v1/webhook_endpoints/{endpointId}/rotate_secret'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/webhook_endpoints/{endpointId}/rotate_secret', { pathParams: { endpointId }, body }, options);
  }

  /** Sends an example event of `eventType` to this endpoint now. */
  sendTestEvent(endpointId: string, body: Body<'POST /v1/webhook_endpoints/{endpointId}/test'>, options?: RequestOptions) {
    return this.transport.call('POST /v1/webhook_endpoints/{endpointId}/test', { pathParams: { endpointId }, body }, options);
  }
}

/** `/v1/webhook_deliveries`: every delivery with its attempts; cursor paging. */
export class WebhookDeliveries extends Resource {
  list(query?: Query<'GET /v1/webhook_deliveries'>, options?: RequestOptions) {
    return this.transport.call('GET /v1/webhook_deliveries', { query }, options);
  }

  iterate(query: Query<'GET /v1/webhook_deliveries'> = {}, options?: RequestOptions): AsyncGenerator<WebhookDelivery, void, undefined> {
    return paginate<Result<'GET /v1/webhook_deliveries'>, WebhookDelivery, { startingAfter?: string }>(
      query.startingAfter === undefined ? {} : { startingAfter: query.startingAfter },
      (cursor) => this.list({ limit: 100, ...query, ...cursor }, options),
      (page) => ({ items: page.deliveries, next: page.hasMore ? { startingAfter: page.nextCursor ?? page.deliveries.at(-1)?.id } : undefined }),
    );
  }

  retrieve(deliveryId: string, options?: RequestOptions) {
    return this.transport.call('GET /v1/webhook_deliveries/{deliveryId}', { pathParams: { deliveryId } }, options);
  }
}

/**
 * `/v1/test_helpers/*`: sandbox only (live answers `403 FORBIDDEN`). They do what a customer,
 * a card network or time would do, through the same code paths, so a merchant's CI can walk every
 * flow without a browser.
 */
export class TestHelpers {
  readonly payoutPages: {
    /** What the customer does on the hosted payout page: choose and confirm the method (and complete KYC data). */
    confirm: (payoutPageId: string, body: Body<'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm'>, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm'>>;
    decline: (payoutPageId: string, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/payout_pages/{payoutPageId}/decline'>>;
  };
  readonly paymentPages: {
    /** Pays by card; a declined card throws `PaysailCardError`. */
    pay: (pageId: string, body: Body<'POST /v1/test_helpers/payment_pages/{pageId}/pay'>, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/payment_pages/{pageId}/pay'>>;
  };
  readonly fraudReports: {
    create: (body: Body<'POST /v1/test_helpers/fraud_reports'>, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/fraud_reports'>>;
  };
  readonly disputes: {
    /** The card network decides a sandbox dispute: WON returns the amount, LOST keeps it taken. */
    close: (disputeId: string, body: Body<'POST /v1/test_helpers/disputes/{disputeId}/close'>, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/disputes/{disputeId}/close'>>;
  };
  readonly balance: {
    fund: (body: Body<'POST /v1/test_helpers/balance/fund'>, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/balance/fund'>>;
  };
  readonly subscriptions: {
    /** Ends the current period now and runs the renewal at once. */
    renew: (subscriptionId: string, options?: RequestOptions) => Promise<Result<'POST /v1/test_helpers/subscriptions/{subscriptionId}/renew'>>;
  };

  constructor(transport: Transport) {
    this.payoutPages = {
      confirm: (payoutPageId, body, options) => transport.call('POST /v1/test_helpers/payout_pages/{payoutPageId}/confirm', { pathParams: { payoutPageId }, body }, options),
      decline: (payoutPageId, options) => transport.call('POST /v1/test_helpers/payout_pages/{payoutPageId}/decline', { pathParams: { payoutPageId } }, options),
    };
    this.paymentPages = {
      pay: (pageId, body, options) => transport.call('POST /v1/test_helpers/payment_pages/{pageId}/pay', { pathParams: { pageId }, body }, options),
    };
    this.fraudReports = {
      create: (body, options) => transport.call('POST /v1/test_helpers/fraud_reports', { body }, options),
    };
    this.disputes = {
      close: (disputeId, body, options) => transport.call('POST /v1/test_helpers/disputes/{disputeId}/close', { pathParams: { disputeId }, body }, options),
    };
    this.balance = {
      fund: (body, options) => transport.call('POST /v1/test_helpers/balance/fund', { body }, options),
    };
    this.subscriptions = {
      renew: (subscriptionId, options) => transport.call('POST /v1/test_helpers/subscriptions/{subscriptionId}/renew', { pathParams: { subscriptionId } }, options),
    };
  }
}
