import type { OperationKey } from './types.ts';
import { pii } from './pii.ts';
import {
  BalanceResource,
  Customers,
  Disputes,
  KycReviews,
  Entitlements,
  Events,
  FraudReports,
  PaymentPages,
  Refunds,
  PayoutPages,
  Subscriptions,
  TestHelpers,
  WebhookDeliveries,
  WebhookEndpoints,
} from './resources.ts';
import { Transport, type ApiResponse, type CallArguments, type ClientOptions, type RequestOptions, type Result } from './transport.ts';
import { webhooks } from './webhooks.ts';

/**
 * The Paysail API client: one resource per `/v1` path, sandbox helpers under `testHelpers`, and the
 * offline helpers `webhooks.verify` and `pii.decrypt`.
 *
 * ```ts
 * const paysail = new Paysail({ apiKey: process.env.PAYSAIL_API_KEY, baseUrl: 'http://localhost:4000', livemode: false });
 * const customer = await paysail.customers.create({ referenceId: 'user-42', signupAt: Date.now() });
 * ```
 */
export class Paysail {
  readonly customers: Customers;
  readonly kycReviews: KycReviews;
  readonly balance: BalanceResource;
  readonly payoutPages: PayoutPages;
  readonly paymentPages: PaymentPages;
  readonly refunds: Refunds;
  readonly fraudReports: FraudReports;
  readonly disputes: Disputes;
  readonly subscriptions: Subscriptions;
  readonly entitlements: Entitlements;
  readonly events: Events;
  readonly webhookEndpoints: WebhookEndpoints;
  readonly webhookDeliveries: WebhookDeliveries;
  readonly testHelpers: TestHelpers;
  readonly webhooks = webhooks;
  readonly pii = pii;
  private readonly transport: Transport;

  constructor(options: ClientOptions) {
    this.transport = new Transport(options);
    this.customers = new Customers(this.transport);
    this.kycReviews = new KycReviews(this.transport);
    this.balance = new BalanceResource(this.transport);
    this.payoutPages = new PayoutPages(this.transport);
    this.paymentPages = new PaymentPages(this.transport);
    this.refunds = new Refunds(this.transport);
    this.fraudReports = new FraudReports(this.transport);
    this.disputes = new Disputes(this.transport);
    this.subscriptions = new Subscriptions(this.transport);
    this.entitlements = new Entitlements(this.transport);
    this.events = new Events(this.transport);
    this.webhookEndpoints = new WebhookEndpoints(this.transport);
    this.webhookDeliveries = new WebhookDeliveries(this.transport);
    this.testHelpers = new TestHelpers(this.transport);
  }

  get baseUrl(): string {
    return this.transport.baseUrl;
  }

  get livemode(): boolean | undefined {
    return this.transport.livemode;
  }

  /** Any operation by its OpenAPI key (`'GET /v1/payout_pages/{payoutPageId}'`), typed from the document. */
  request<K extends OperationKey>(key: K, args: CallArguments<K>, options?: RequestOptions): Promise<Result<K>> {
    return this.transport.call(key, args, options);
  }

  /** As `request`, with the HTTP details: status, headers, `requestId`, `idempotentReplayed`, attempts. */
  requestWithResponse<K extends OperationKey>(key: K, args: CallArguments<K>, options?: RequestOptions): Promise<ApiResponse<Result<K>>> {
    return this.transport.callWithResponse(key, args, options);
  }
}
