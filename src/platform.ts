import type { Logger } from 'pino';
import { and, inArray, lt } from 'drizzle-orm';
import type { Config } from './config/index.ts';
import type { Database } from './db/client.ts';
import { idempotencyKeys, jobs } from './db/schema/index.ts';
import type { KeyRing } from './crypto/keyring.ts';
import { JobRegistry, Worker, systemClock, type Clock } from './jobs/worker.ts';
import { enqueueJob } from './jobs/queue.ts';
import { createMetrics, type Metrics } from './http/observability.ts';
import { createMerchantsService, type MerchantsService } from './modules/merchants/service.ts';
import { createCustomersService, type CustomersService } from './modules/customers/service.ts';
import { createKycService, type KycService } from './modules/kyc/service.ts';
import { createSandboxKycProvider } from './modules/kyc/providers/sandbox.ts';
import { ensureAdminKey, type AdminKey } from './auth/admin-key.ts';
import { idempotencyWindowMs } from './http/idempotency.ts';
import { createMemoryRateLimiter, createRedisRateLimiter, type RateLimiter } from './http/rate-limit.ts';

export interface Services {
  merchants: MerchantsService;
  customers: CustomersService;
  kyc: KycService;
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

  const merchants = createMerchantsService({ database, clock, keyRing });
  let kyc: KycService | undefined;
  const customers = createCustomersService({
    database,
    clock,
    keyRing,
    merchants,
    kyc: () => {
      if (!kyc) {
        throw new Error('kyc service not ready');
      }
      return kyc;
    },
  });
  kyc = createKycService({
    database,
    clock,
    sandboxProvider: createSandboxKycProvider({ database, clock, delayMs: config.sandboxKycDelayMs }),
    liveProvider: null,
    readKycData: (executor, customerId) => customers.readKycData(executor, customerId),
  });
  registry.register(kyc.verifyJob());

  registry.register<Record<string, never>>({
    queue: maintenanceQueue,
    maxAttempts: 3,
    handle: async (_payload, context) => {
      const now = clock.now();
      await database.db.delete(idempotencyKeys).where(lt(idempotencyKeys.createdAt, new Date(now.getTime() - idempotencyWindowMs)));
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
    onJobFinished: (queue, outcome, durationMs) => {
      metrics.jobs.inc({ queue, outcome });
      metrics.jobDuration.observe({ queue }, durationMs / 1000);
    },
  });

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
    services: { merchants, customers, kyc },
    adminKey,
    rateLimiter,
    async close() {
      await worker.stop();
      await rateLimiter.close();
    },
  };
}

/** Schedules the hourly maintenance job once (a unique key makes repeats no-ops). */
export async function scheduleMaintenance(platform: Platform): Promise<void> {
  const now = platform.clock.now();
  await platform.database.transaction(async (tx) => {
    const next = new Date(Math.floor(now.getTime() / maintenanceIntervalMs + 1) * maintenanceIntervalMs);
    await enqueueJob(tx, now, maintenanceQueue, {}, { runAt: next, dedupeKey: `${maintenanceQueue}:${next.toISOString()}` });
  });
}
