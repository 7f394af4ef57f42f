import type { Logger } from 'pino';
import { and, inArray, lt } from 'drizzle-orm';
import type { Config } from './config/index.ts';
import type { Database } from './db/client.ts';
import { jobs } from './db/schema/index.ts';
import type { KeyRing } from './crypto/keyring.ts';
import { JobRegistry, Worker, systemClock, type Clock } from './jobs/worker.ts';
import { enqueueJob } from './jobs/queue.ts';
import { createMetrics, registerAwaitingFundingGauges, type Metrics } from './http/observability.ts';
import { createMerchantsService, type MerchantsService } from './modules/merchants/service.ts';
import { createBrandingService, type BrandingService } from './modules/merchants/branding.ts';
import { createCustomersService, type CustomersService } from './modules/customers/service.ts';
import { createEmailLookupBackfill } from './modules/customers/sealing.ts';
import { createErasureService, type ErasureService } from './modules/data-rights/service.ts';
import { createCustomerExport, type CustomerExportService } from './modules/data-rights/export.ts';
import { createKycService, type KycService } from './modules/kyc/service.ts';
import { createSandboxKycProvider } from './modules/kyc/providers/sandbox.ts';
import { createOnfido } from './modules/kyc/onfido/index.ts';
import { ensureAdminKey, type AdminKey } from './auth/admin-key.ts';
import { reencryptStoredResponses } from './http/idempotency.ts';
import { reencryptEverything, sealedValueStatus, type ReencryptResult, type ReencryptStep, type SealedValueStatus } from './crypto/rotation.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { createEventsService, scheduleEventRetention, type EventsService } from './modules/events/service.ts';
import { createWebhooksService, type WebhooksService } from './modules/webhooks/service.ts';
import { defaultFairnessLimits } from './modules/webhooks/fairness.ts';
import { createEmailService, type EmailService } from './modules/email/service.ts';
import { createRetentionService, scheduleRetention, type RetentionService } from './modules/retention/service.ts';
import { createAuditLog, type AuditLog } from './modules/audit/index.ts';
import { createSandboxCardProcessor, sandboxCardProcessorName } from './modules/card-processor/sandbox.ts';
import { createProcessorsByMode, type ProcessorsByMode } from './modules/card-processor/by-mode.ts';
import { createPaymentPagesService, type PaymentPagesService } from './modules/payment-pages/service.ts';
import {
  createPaymentCreditBackfill,
  createPaymentsService,
  createStripeWebhooks,
  perStripeAccount,
  stripeEventJob,
  stripeProviderCheck,
  type PaymentCreditBackfill,
  type PaymentsService,
  type StripeAccount,
} from './modules/payments/index.ts';
import { createStripeCardProcessor, createStripeClient } from './modules/card-processor/stripe.ts';
import { createRefundsService, stripeRefundEventJob, type RefundsService } from './modules/refunds/index.ts';
import { createFraudReportsService, type FraudReportsService } from './modules/fraud-reports/service.ts';
import { stripeFraudWarningEvents, stripeFraudWarningJob, stripeFraudWarningQueue } from './modules/fraud-reports/stripe-warnings.ts';
import { createDisputesService, stripeDisputeEventQueue, stripeDisputeEvents, stripeDisputeJob, type DisputesService } from './modules/disputes/index.ts';
import { createEntitlementsService, type EntitlementsService } from './modules/entitlements/service.ts';
import { createSubscriptionsService, type SubscriptionsService } from './modules/subscriptions/service.ts';
import { createLedgerService, type LedgerService } from './modules/ledger/service.ts';
import { createPayoutPagesService, type PayoutPagesService } from './modules/payout-pages/service.ts';
import { createSandboxPayoutRail } from './modules/payout-pages/rails/sandbox.ts';
import { createIncreasePayouts } from './modules/payout-pages/rails/increase/index.ts';
import { createCirclePayouts } from './modules/payout-pages/rails/circle/index.ts';
import type { ProviderCheck, ProviderWebhookHandler } from './modules/providers/index.ts';

export interface Services {
  merchants: MerchantsService;
  branding: BrandingService;
  customers: CustomersService;
  /** Erasing a customer's personal data across every module (`POST /v1/customers/:id/erase`). */
  erasure: ErasureService;
  /** Everything held about one customer, in one document (`GET /v1/customers/:id/export`). */
  customerExport: CustomerExportService;
  kyc: KycService;
  events: EventsService;
  webhooks: WebhooksService;
  email: EmailService;
  /** Routes sandbox payments to the sandbox processor and live ones to the live adapter (Stripe, when configured). */
  cardProcessor: ProcessorsByMode;
  /** Card payments (attempts, settlement, saved cards, renewals) behind the card-processor port. */
  payments: PaymentsService;
  /** Credits for card payments settled before they were posted to the ledger (`paysail balance backfill-payments`, and the job migration 0016 enqueues). */
  paymentCredits: PaymentCreditBackfill;
  paymentPages: PaymentPagesService;
  /** Refunds of paid payment pages (through the payments module's processor calls). */
  refunds: RefundsService;
  fraudReports: FraudReportsService;
  /** Chargebacks of card payments, with their ledger movements. */
  disputes: DisputesService;
  subscriptions: SubscriptionsService;
  entitlements: EntitlementsService;
  ledger: LedgerService;
  payoutPages: PayoutPagesService;
  /** Retention settings and the purge of what is past its time (KYC details, e-mail bodies, webhook logs, idempotency records). */
  retention: RetentionService;
  /** The append-only record of who changed what (written by the HTTP layer after each answer). */
  audit: AuditLog;
}

export interface Platform {
  readonly config: Config;
  readonly database: Database;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly keyRing: KeyRing;
  readonly metrics: Metrics;
  readonly jobs: JobRegistry;
  readonly worker: Worker;
  readonly services: Services;
  readonly adminKey: AdminKey;
  readonly rateLimiter: RateLimiter;
  /** Every configured live provider's credentials check (`paysail providers check`); empty when none is configured. */
  readonly providerChecks: readonly ProviderCheck[];
  /** Every configured provider's inbound webhook endpoint (`POST /providers/<provider>/webhooks`). */
  readonly providerWebhooks: readonly ProviderWebhookHandler[];
  close(): Promise<void>;
}

const maintenanceQueue = 'maintenance.cleanup';
const maintenanceIntervalMs = 60 * 60 * 1000;
const finishedJobRetentionMs = 7 * 24 * 60 * 60 * 1000;

/**
 * The composition root's core: services built with their dependencies passed in, jobs registered,
 * one worker. The HTTP app (app.ts) and the worker process both start from here.
 */
export async function createPlatform(options: { config: Config; database: Database; keyRing: KeyRing; logger: Logger; clock?: Clock }): Promise<Platform> {
  const { config, database, keyRing, logger } = options;
  const clock = options.clock ?? systemClock;
  const metrics = createMetrics();
  const registry = new JobRegistry();
  // Each configured provider adapter adds its credentials check and its webhook endpoint here.
  const providerChecks: ProviderCheck[] = [];
  const providerWebhooks: ProviderWebhookHandler[] = [];

  const merchants = createMerchantsService({ database, clock, keyRing });
  const branding = createBrandingService({ database, clock });
  // KYC reads identity data through customers, and customers start KYC: each refers to the other
  // through a closure that runs only after both exist.
  // Onfido when configured (live; and sandbox mode through Onfido's sandbox with ONFIDO_TEST_*).
  const onfido = createOnfido({ settings: config.onfido, logger, publicUrl: config.publicUrl });
  const kyc: KycService = createKycService({
    database,
    clock,
    sandboxProvider: onfido.test ?? createSandboxKycProvider({ database, clock, delayMs: config.sandboxKycDelayMs }),
    liveProvider: onfido.live,
    readKycData: (executor, customerId) => customers.readKycData(executor, customerId),
  });
  const customers = createCustomersService({ database, clock, keyRing, merchants, kyc: () => kyc });
  const erasure = createErasureService({ database, clock, keyRing, customers, kyc: () => kyc });
  const customerExport = createCustomerExport({
    database,
    clock,
    keyRing,
    merchants,
    customers,
    payoutPages: () => payoutPages,
    paymentPages: () => paymentPages,
    subscriptions: () => subscriptions,
  });
  registry.register(kyc.verifyJob());
  registry.register(kyc.applicantDeletionJob());
  registry.register(createEmailLookupBackfill({ database, keyRing }).job());
  const onfidoInbound = onfido.inbound({ database, clock, refresh: (verificationId) => kyc.refresh(verificationId) });
  providerChecks.push(...onfido.checks);
  providerWebhooks.push(...onfidoInbound.webhooks);
  for (const job of onfidoInbound.jobs) {
    registry.register(job);
  }

  // Balances (sandbox opens funded) and payout pages; KYC decisions move the pages waiting on them.
  const ledger = createLedgerService({ database, clock });
  merchants.onMerchantCreated((tx, merchant, now) => ledger.openSandboxBalances(tx, merchant.id, now));
  const increase = config.increase ? createIncreasePayouts(config.increase) : null;
  // Sandbox bank payouts through Increase's sandbox when the operator set INCREASE_SANDBOX_*.
  const increaseSandbox = config.increaseSandbox ? createIncreasePayouts({ ...config.increaseSandbox, environment: 'test' }) : null;
  const circle = config.circle ? createCirclePayouts(config.circle) : null;
  // Sandbox USDC payouts through Circle's testnets when the operator set CIRCLE_TEST_*.
  const circleTest = config.circleTest ? createCirclePayouts({ ...config.circleTest, backsSandbox: true }) : null;
  const payoutPages = createPayoutPagesService({
    database,
    clock,
    keyRing,
    publicUrl: config.publicUrl,
    ledger,
    customers,
    rails: {
      sandbox: createSandboxPayoutRail({ database, clock, delayMs: config.sandboxPayoutDelayMs }),
      test: { BANK_TRANSFER: increaseSandbox?.rail ?? null, CRYPTO_WALLET: circleTest?.rail ?? null },
      live: { BANK_TRANSFER: increase?.rail ?? null, CRYPTO_WALLET: circle?.rail ?? null },
    },
    reconcileAfterMs: config.payoutReconcileAfterMs,
  });
  kyc.onDecision((tx, decision, now) => payoutPages.onKycDecision(tx, decision, now));
  kyc.onReverification((tx, { customerId }, now) => payoutPages.onKycRestarted(tx, customerId, now));
  registerAwaitingFundingGauges(metrics, () => payoutPages.awaitingFundingTotals());
  registry.register(payoutPages.expireJob());
  registry.register(payoutPages.submitJob());
  registry.register(payoutPages.settleJob());
  registry.register(payoutPages.reconcileJob());
  for (const payouts of [increase, increaseSandbox]) {
    if (payouts) {
      const connected = payouts.connect({ database, clock, updates: payoutPages });
      providerWebhooks.push(connected.webhook);
      providerChecks.push(connected.check);
      registry.register(connected.job);
    }
  }
  for (const payouts of [circle, circleTest]) {
    if (payouts) {
      const connected = payouts.connect({ database, clock, updates: payoutPages });
      providerWebhooks.push(connected.webhook);
      providerChecks.push(connected.check);
      registry.register(connected.job);
    }
  }

  const sandboxCardProcessor = createSandboxCardProcessor({ database, clock, refundDelayMs: config.sandboxPayoutDelayMs, disputeDelayMs: config.sandboxPayoutDelayMs });
  // Live card payments through Stripe when its keys are configured (decision 0013); sandbox card
  // payments through a Stripe test account instead of the built-in sandbox with STRIPE_TEST_*.
  const stripeAccounts: StripeAccount[] = [];
  for (const [environment, settings] of [['live', config.stripe], ['test', config.stripeTest]] as const) {
    if (settings) {
      stripeAccounts.push({ environment, stripe: createStripeClient({ secretKey: settings.secretKey, apiUrl: settings.apiUrl }), webhookSecret: settings.webhookSecret });
    }
  }
  const stripeOf = (environment: 'live' | 'test') => stripeAccounts.find((account) => account.environment === environment)?.stripe ?? null;
  const stripe = stripeOf('live');
  const stripeTest = stripeOf('test');
  const cardProcessor = createProcessorsByMode({ sandbox: stripeTest ? createStripeCardProcessor(stripeTest) : sandboxCardProcessor, live: stripe ? createStripeCardProcessor(stripe) : null });
  const payments = createPaymentsService({ database, clock, keyRing, customers, cardProcessor, ledger, logger: logger.child({ component: 'payments' }) });
  const paymentPages = createPaymentPagesService({ database, clock, keyRing, publicUrl: config.publicUrl, customers, payments });
  const fraudReports = createFraudReportsService({ database, clock, keyRing, payments });
  sandboxCardProcessor.onFraudSignal((tx, signal, now) => fraudReports.recordNetworkSignal(tx, signal, now));
  const disputes = createDisputesService({
    database,
    clock,
    keyRing,
    ledger,
    payments,
    requirePage: (merchant, livemode, pageId) => paymentPages.getPage(merchant, livemode, pageId),
    sandbox: { processorName: sandboxCardProcessorName, closeDispute: (reference, outcome) => sandboxCardProcessor.closeDispute(reference, outcome) },
  });
  sandboxCardProcessor.onDispute(async (tx, dispute, now) => {
    await disputes.applyProcessorDispute(tx, dispute, now);
  });
  registry.register(sandboxCardProcessor.disputeJob());
  registry.register(paymentPages.expireJob());
  registry.register(payments.resolveAttemptJob());
  const paymentCredits = createPaymentCreditBackfill({ database, clock, ledger });
  registry.register(paymentCredits.job());
  const refunds = createRefundsService({ database, clock, keyRing, ledger, payments, sandboxDelayMs: config.sandboxPayoutDelayMs });
  registry.register(refunds.processJob());
  refunds.onSucceeded((tx, refund, now) => paymentPages.sendRefundNotice(tx, refund, now));
  if (stripeAccounts.length > 0) {
    providerChecks.push(...stripeAccounts.map((account) => stripeProviderCheck(account.stripe, account.environment)));
    const routes = [
      { types: stripeDisputeEvents, queue: stripeDisputeEventQueue },
      { types: stripeFraudWarningEvents, queue: stripeFraudWarningQueue },
    ];
    // One webhook URL for every account; each event's job asks the account that signed it.
    providerWebhooks.push(createStripeWebhooks({ database, clock, accounts: stripeAccounts, routes }));
    registry.register(perStripeAccount(stripeAccounts, (client) => stripeEventJob({ stripe: client, payments })));
    registry.register(perStripeAccount(stripeAccounts, (client, livemode) => stripeDisputeJob({ stripe: client, livemode, disputes, payments })));
    registry.register(perStripeAccount(stripeAccounts, (client, livemode) => stripeFraudWarningJob({ stripe: client, livemode, fraudReports, payments })));
    registry.register(perStripeAccount(stripeAccounts, (client) => stripeRefundEventJob({ stripe: client, refunds })));
  }
  registry.register(sandboxCardProcessor.fraudSignalJob());

  const entitlements = createEntitlementsService({ database, clock, keyRing });
  const subscriptions = createSubscriptionsService({ database, keyRing, clock, entitlements, savedCards: payments, renewalPages: paymentPages.renewalPages });
  paymentPages.onPaid((tx, paid, now) => subscriptions.startFromPayment(tx, paid, now));
  registry.register(subscriptions.renewalJob());

  const email = createEmailService({ database, clock, keyRing, smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, logger: logger.child({ component: 'email' }) });
  registry.register(email.sendJob());
  const events = createEventsService({ database, clock, keyRing });
  registry.register(events.retentionJob());
  const webhooks = createWebhooksService({
    database,
    clock,
    keyRing,
    logger,
    publicUrl: config.publicUrl,
    allowPrivateTargets: config.webhookAllowPrivateTargets,
    timeoutMs: config.webhookTimeoutMs,
    fairness: { ...defaultFairnessLimits, slowAfterMs: config.webhookSlowAttemptMs },
  });
  for (const job of webhooks.jobs()) {
    registry.register(job);
  }

  const retention = createRetentionService({ database, clock, keyRing, defaults: config.retention });
  registry.register(retention.job());

  // Idempotency records leave through retention (RETENTION_IDEMPOTENCY_HOURS), not here.
  registry.register<Record<string, never>>({
    queue: maintenanceQueue,
    maxAttempts: 3,
    handle: async (_payload, context) => {
      const now = clock.now();
      await database.db.delete(jobs).where(and(inArray(jobs.status, ['succeeded']), lt(jobs.finishedAt, new Date(now.getTime() - finishedJobRetentionMs))));
      await context.transaction(async (tx) => {
        const next = new Date(Math.floor(now.getTime() / maintenanceIntervalMs + 1) * maintenanceIntervalMs);
        await enqueueJob(tx, now, maintenanceQueue, {}, { runAt: next, dedupeKey: `${maintenanceQueue}:${next.toISOString()}` });
      });
    },
  });

  const worker = new Worker({
    database,
    registry,
    clock,
    logger: logger.child({ component: 'worker' }),
    concurrency: config.workerConcurrency,
    pollIntervalMs: config.jobPollIntervalMs,
    leaseMs: config.jobLeaseMs,
    onJobFinished: (queue, outcome, durationMs) => {
      metrics.jobs.inc({ queue, outcome });
      metrics.jobDuration.observe({ queue }, durationMs / 1000);
    },
  });

  const audit = createAuditLog({ database, clock, keyRing, logger: logger.child({ component: 'audit' }) });

  const adminKey = await ensureAdminKey(database, config.adminApiKey, clock.now());
  const rateLimiter = config.redisUrl
    ? createRedisRateLimiter(config.redisUrl, config.rateLimitPerSecond, config.rateLimitBurst)
    : createMemoryRateLimiter(config.rateLimitPerSecond, config.rateLimitBurst);

  return {
    config,
    database,
    clock,
    logger,
    keyRing,
    metrics,
    jobs: registry,
    worker,
    services: { merchants, branding, customers, erasure, customerExport, kyc, events, webhooks, email, cardProcessor, payments, paymentCredits, paymentPages, refunds, fraudReports, disputes, subscriptions, entitlements, ledger, payoutPages, retention, audit },
    adminKey,
    rateLimiter,
    providerChecks,
    providerWebhooks,
    async close() {
      await worker.stop();
      webhooks.close();
      email.close();
      await rateLimiter.close();
      await audit.flush();
    },
  };
}

/** Schedules the hourly maintenance job once (a unique key makes repeats no-ops). */
export async function scheduleMaintenance(platform: Platform): Promise<void> {
  const now = platform.clock.now();
  await platform.database.transaction(async (tx) => {
    const next = new Date(Math.floor(now.getTime() / maintenanceIntervalMs + 1) * maintenanceIntervalMs);
    await enqueueJob(tx, now, maintenanceQueue, {}, { runAt: next, dedupeKey: `${maintenanceQueue}:${next.toISOString()}` });
    await scheduleEventRetention(tx, now);
    await scheduleRetention(tx, now);
    await platform.services.payoutPages.scheduleReconcile(tx, now);
  });
}

/**
 * Key-ring rotation, every sealed column (src/crypto/rotation.ts lists them): one step per table,
 * each re-sealing what is not under the active key yet. Merchant PII keys go last.
 */
export function reencryptSteps(platform: Pick<Platform, 'database' | 'keyRing' | 'services'>): ReencryptStep[] {
  const { services } = platform;
  return [
    { label: 'customers', run: (options) => services.customers.reencryptAll(options) },
    { label: 'e-mails', run: (options) => services.email.reencryptAll(options) },
    { label: 'payout pages', run: (options) => services.payoutPages.reencryptAll(options) },
    { label: 'payment pages', run: (options) => services.paymentPages.reencryptAll(options) },
    { label: 'payments', run: (options) => services.payments.reencryptPayments(options) },
    { label: 'fraud reports', run: (options) => services.fraudReports.reencryptAll(options) },
    { label: 'webhook endpoints', run: (options) => services.webhooks.reencryptAll(options) },
    { label: 'idempotent responses', run: (options) => reencryptStoredResponses(platform, options) },
    { label: 'merchant PII keys', run: (options) => services.merchants.reencryptPiiKeys(options) },
  ];
}

/**
 * Re-seals every sealed value under the key ring's active key; returns the rows changed per step.
 * Idempotent and resumable. `progressFor(label)`: a progress callback per step (the CLI's bars).
 */
export function reencryptAll(
  platform: Pick<Platform, 'database' | 'keyRing' | 'services'>,
  progressFor?: (label: string) => { onProgress(done: number, total: number): void; finish(): void },
): Promise<ReencryptResult[]> {
  return reencryptEverything(reencryptSteps(platform), progressFor);
}

/** How many sealed values are under each key (`crypto status`): an old key may go when `stale` is 0. */
export function keyRingStatus(platform: Pick<Platform, 'database' | 'keyRing'>): Promise<SealedValueStatus> {
  return sealedValueStatus(platform.database, platform.keyRing);
}
