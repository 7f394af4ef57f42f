import type { Logger } from 'pino';
import { and, inArray, lt } from 'drizzle-orm';
import type { Config } from './config/index.ts';
import type { Database } from './db/client.ts';
import { jobs } from './db/schema/index.ts';
import type { KeyRing } from './crypto/keyring.ts';
import { JobRegistry, Worker, type JobDefinition } from './jobs/worker.ts';
import { systemClock, type Clock } from './clock.ts';
import { enqueueJob } from './jobs/queue.ts';
import { createMetrics, jobMetricsRecorder, registerAwaitingFundingGauges, type Metrics } from './http/observability.ts';
import { createBrandingService, createMerchantsService, type BrandingService, type MerchantsService } from './modules/merchants/index.ts';
import { createCustomersService, type CustomersService } from './modules/customers/index.ts';
import { createCustomerExport, createErasureService, type CustomerExportService, type ErasureService } from './modules/data-rights/index.ts';
import { createKycService, createOnfido, createSandboxKycProvider, type KycService } from './modules/kyc/index.ts';
import { ensureAdminKey, type AdminKey } from './auth/admin-key.ts';
import { reencryptStoredResponses } from './http/idempotency.ts';
import { reencryptTwoFactorSecrets } from './modules/dashboard/index.ts';
import { reencryptEverything, sealedValueStatus, type ReencryptResult, type ReencryptStep, type SealedValueStatus } from './crypto/rotation.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limit.ts';
import { createEventsService, scheduleEventRetention, type EventsService } from './modules/events/index.ts';
import { createWebhooksService, defaultFairnessLimits, type WebhooksService } from './modules/webhooks/index.ts';
import { createEmailService, type EmailService } from './modules/email/index.ts';
import { createRetentionService, scheduleRetention, type RetentionService } from './modules/retention/index.ts';
import { createAuditLog, type AuditLog } from './modules/audit/index.ts';
import { createProcessorsByMode, createSandboxCardProcessor, createStripeCardProcessor, createStripeClient, sandboxCardProcessorName, type ProcessorsByMode } from './modules/card-processor/index.ts';
import { clientReferenceIdOfPage, createPaymentPagesService, type PaymentPagesService } from './modules/payment-pages/index.ts';
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
import { createRefundsService, stripeRefundEventJob, type RefundsService } from './modules/refunds/index.ts';
import { createFraudReportsService, stripeFraudWarningEvents, stripeFraudWarningJob, stripeFraudWarningQueue, type FraudReportsService } from './modules/fraud-reports/index.ts';
import { createDisputesService, stripeDisputeEventQueue, stripeDisputeEvents, stripeDisputeJob, type DisputesService } from './modules/disputes/index.ts';
import { createEntitlementsService, type EntitlementsService } from './modules/entitlements/index.ts';
import { createSubscriptionsService, type SubscriptionsService } from './modules/subscriptions/index.ts';
import { createLedgerService, type LedgerService } from './modules/ledger/index.ts';
import { createCirclePayouts, createIncreasePayouts, createPayoutPagesService, createSandboxPayoutRail, type PayoutPagesService } from './modules/payout-pages/index.ts';
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
  const providerJobs: JobDefinition[] = [];

  const merchants = createMerchantsService({ database, clock, keyRing });
  const branding = createBrandingService({ database, clock });
  // KYC reads identity data through customers; customers start verifications through their KYC port,
  // which the kyc service fills (`useKyc`), so neither module imports the other.
  // Onfido when configured (live; and sandbox mode through Onfido's sandbox with ONFIDO_TEST_*).
  const customers = createCustomersService({ database, clock, keyRing, merchants });
  const onfido = createOnfido({ settings: config.onfido, logger, publicUrl: config.publicUrl });
  const kyc = createKycService({
    database,
    clock,
    sandboxProvider: onfido.test ?? createSandboxKycProvider({ database, clock, delayMs: config.sandboxKycDelayMs }),
    liveProvider: onfido.live,
    readKycData: (executor, customerId) => customers.readKycData(executor, customerId),
  });
  customers.useKyc(kyc);
  const erasure = createErasureService({ database, clock, keyRing, customers, kyc });
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
  const onfidoInbound = onfido.inbound({ database, clock, refresh: (verificationId) => kyc.refresh(verificationId) });
  providerChecks.push(...onfido.checks);
  providerWebhooks.push(...onfidoInbound.webhooks);
  providerJobs.push(...onfidoInbound.jobs);

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
  for (const payouts of [increase, increaseSandbox]) {
    if (payouts) {
      const connected = payouts.connect({ database, clock, updates: payoutPages });
      providerWebhooks.push(connected.webhook);
      providerChecks.push(connected.check);
      providerJobs.push(connected.job);
    }
  }
  for (const payouts of [circle, circleTest]) {
    if (payouts) {
      const connected = payouts.connect({ database, clock, updates: payoutPages });
      providerWebhooks.push(connected.webhook);
      providerChecks.push(connected.check);
      providerJobs.push(connected.job);
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
  const payments = createPaymentsService({ database, clock, keyRing, customers, cardProcessor, ledger, logger: logger.child({ component: 'payments' }), clientReferenceIdOfPage });
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
  const paymentCredits = createPaymentCreditBackfill({ database, clock, ledger });
  const refunds = createRefundsService({ database, clock, keyRing, ledger, payments, sandboxDelayMs: config.sandboxPayoutDelayMs });
  refunds.onSucceeded((tx, refund, now) => paymentPages.sendRefundNotice(tx, refund, now));
  if (stripeAccounts.length > 0) {
    providerChecks.push(...stripeAccounts.map((account) => stripeProviderCheck(account.stripe, account.environment)));
    const routes = [
      { types: stripeDisputeEvents, queue: stripeDisputeEventQueue },
      { types: stripeFraudWarningEvents, queue: stripeFraudWarningQueue },
    ];
    // One webhook URL for every account; each event's job asks the account that signed it.
    providerWebhooks.push(createStripeWebhooks({ database, clock, accounts: stripeAccounts, routes }));
    providerJobs.push(
      perStripeAccount(stripeAccounts, (client) => stripeEventJob({ stripe: client, payments })),
      perStripeAccount(stripeAccounts, (client, livemode) => stripeDisputeJob({ stripe: client, livemode, disputes, payments })),
      perStripeAccount(stripeAccounts, (client, livemode) => stripeFraudWarningJob({ stripe: client, livemode, fraudReports, payments })),
      perStripeAccount(stripeAccounts, (client) => stripeRefundEventJob({ stripe: client, refunds })),
    );
  }

  const entitlements = createEntitlementsService({ database, clock, keyRing });
  const subscriptions = createSubscriptionsService({ database, keyRing, clock, entitlements, savedCards: payments, renewalPages: paymentPages.renewalPages });
  paymentPages.onPaid((tx, paid, now) => subscriptions.startFromPayment(tx, paid, now));

  const email = createEmailService({ database, clock, keyRing, smtpUrl: config.smtpUrl, mailFrom: config.mailFrom, logger: logger.child({ component: 'email' }) });
  const events = createEventsService({ database, clock, keyRing });
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

  const retention = createRetentionService({ database, clock, keyRing, defaults: config.retention });

  // Every module's jobs, then the platform's own and the configured providers': one list, one loop.
  const allJobs: JobDefinition[] = [
    ...customers.jobs(),
    ...kyc.jobs(),
    ...payoutPages.jobs(),
    ...sandboxCardProcessor.jobs(),
    ...paymentPages.jobs(),
    ...payments.jobs(),
    paymentCredits.job(),
    ...refunds.jobs(),
    ...subscriptions.jobs(),
    ...email.jobs(),
    ...events.jobs(),
    ...webhooks.jobs(),
    ...retention.jobs(),
    maintenanceJob(database, clock),
    ...providerJobs,
  ];
  for (const job of allJobs) {
    registry.register(job);
  }

  const worker = new Worker({
    database,
    registry,
    clock,
    logger: logger.child({ component: 'worker' }),
    concurrency: config.workerConcurrency,
    pollIntervalMs: config.jobPollIntervalMs,
    leaseMs: config.jobLeaseMs,
    onJobFinished: jobMetricsRecorder(metrics),
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

/** Deletes succeeded jobs a week after they finished, hourly; idempotency records leave through retention (RETENTION_IDEMPOTENCY_HOURS). */
function maintenanceJob(database: Database, clock: Clock): JobDefinition<Record<string, never>> {
  return {
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
    { label: 'authenticator secrets', run: (options) => reencryptTwoFactorSecrets(platform, options) },
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
