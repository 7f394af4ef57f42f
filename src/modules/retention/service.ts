import { inArray, sql } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { retentionSettings } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { retentionCategories, retentionRules, retentionUnitMs, type RetentionCategory, type RetentionDefaults } from '../../config/retention.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import { idempotencyRetention } from '../../http/idempotency-retention.ts';
import { emailBodyRetention } from '../email/index.ts';
import { createKycDetailsRetention } from '../kyc/index.ts';
import { paymentPageActivity } from '../payment-pages/index.ts';
import { payoutPageActivity } from '../payout-pages/index.ts';
import { subscriptionActivity } from '../subscriptions/index.ts';
import { webhookDeliveryLogRetention } from '../webhooks/index.ts';
import type { RetentionPurge } from '../../db/retention-purge.ts';

export const retentionQueue = 'retention.purge';
const retentionIntervalMs = 60 * 60 * 1000;
/** Rows per statement: each batch is short, so a purge never holds locks long or grows one transaction without bound. */
export const retentionBatchSize = 500;

export interface RetentionSetting {
  category: RetentionCategory;
  /** The admin API field and its unit: `kycDetailsDays`, … */
  field: string;
  unit: 'days' | 'hours';
  /** What applies now: the override when there is one, else the environment default. */
  value: number;
  /** The environment's value (RETENTION_*, or the built-in default). */
  defaultValue: number;
  source: 'environment' | 'override';
}

export interface RetentionStatusEntry extends RetentionSetting {
  /** Rows older than this are due. */
  cutoff: Date;
  due: number;
}

export type RetentionSettingsUpdate = Partial<Record<RetentionCategory, number | null>>;

/** The next hourly run (on the half hour, apart from the other hourly jobs), enqueued once (dedupe key). */
export async function scheduleRetention(executor: Executor, now: Date): Promise<void> {
  const next = new Date((Math.floor((now.getTime() - retentionIntervalMs / 2) / retentionIntervalMs) + 1) * retentionIntervalMs + retentionIntervalMs / 2);
  await enqueueJob(executor, now, retentionQueue, {}, { runAt: next, dedupeKey: `${retentionQueue}:${next.toISOString()}` });
}

/**
 * Retention (issue 21 item 3): the settings (environment defaults, operator overrides in
 * `retention_settings`; an override wins), what is due per category, and the purge, which asks each
 * owning module to purge its rows in batches of 500 until none is left. Run hourly by the
 * `retention.purge` job, and on demand by `paysail retention run`.
 */
export function createRetentionService(deps: { database: Database; clock: Clock; keyRing: KeyRing; defaults: RetentionDefaults }) {
  const { database, clock, defaults } = deps;
  const purges: Record<RetentionCategory, RetentionPurge> = {
    kycDetails: createKycDetailsRetention({ keyRing: deps.keyRing, activity: [payoutPageActivity, paymentPageActivity, subscriptionActivity] }),
    emailBodies: emailBodyRetention,
    webhookDeliveryLogs: webhookDeliveryLogRetention,
    idempotencyRecords: idempotencyRetention,
  };

  async function getSettings(executor: Executor = database.db): Promise<RetentionSetting[]> {
    const overrides = new Map((await executor.select().from(retentionSettings)).map((row) => [row.category, row.value]));
    return retentionCategories.map((category) => {
      const rule = retentionRules[category];
      const override = overrides.get(category);
      // An override outside today's bounds (they may have narrowed since) gives way to the default.
      const usable = override !== undefined && override >= rule.minimum && override <= rule.maximum;
      return { category, field: rule.field, unit: rule.unit, value: usable ? override : defaults[category], defaultValue: defaults[category], source: usable ? 'override' : 'environment' };
    });
  }

  function cutoffOf(setting: RetentionSetting, now: Date): Date {
    return new Date(now.getTime() - setting.value * retentionUnitMs[setting.unit]);
  }

  async function purgeAll(now: Date): Promise<Array<{ category: RetentionCategory; cutoff: Date; purged: number }>> {
    const results: Array<{ category: RetentionCategory; cutoff: Date; purged: number }> = [];
    for (const setting of await getSettings()) {
      const cutoff = cutoffOf(setting, now);
      let purged = 0;
      for (;;) {
        const batch = await purges[setting.category].purgeBatch(database, cutoff, now, retentionBatchSize);
        purged += batch;
        if (batch < retentionBatchSize) {
          break;
        }
      }
      results.push({ category: setting.category, cutoff, purged });
    }
    return results;
  }

  const job: JobDefinition<Record<string, never>> = {
    queue: retentionQueue,
    maxAttempts: 5,
    async handle(_payload, context) {
      await purgeAll(context.now);
      await context.transaction(async (tx) => scheduleRetention(tx, clock.now()));
    },
  };

  return {
    getSettings: () => getSettings(),

    /** Sets (a number) or clears (`null`: back to the environment default) overrides; what is left out is unchanged. */
    async updateSettings(update: RetentionSettingsUpdate): Promise<RetentionSetting[]> {
      const now = clock.now();
      return database.transaction(async (tx) => {
        const cleared = retentionCategories.filter((category) => update[category] === null);
        if (cleared.length > 0) {
          await tx.delete(retentionSettings).where(inArray(retentionSettings.category, cleared));
        }
        for (const category of retentionCategories) {
          const value = update[category];
          if (typeof value === 'number') {
            await tx
              .insert(retentionSettings)
              .values({ category, value, updatedAt: now })
              .onConflictDoUpdate({ target: retentionSettings.category, set: { value: sql`excluded.value`, updatedAt: now } });
          }
        }
        return getSettings(tx);
      });
    },

    /** Per category: the setting, the cutoff now, and how many rows are due (read-only). */
    async status(): Promise<RetentionStatusEntry[]> {
      const now = clock.now();
      const entries: RetentionStatusEntry[] = [];
      for (const setting of await getSettings()) {
        const cutoff = cutoffOf(setting, now);
        entries.push({ ...setting, cutoff, due: await purges[setting.category].countDue(database.db, cutoff) });
      }
      return entries;
    },

    /** Purges everything due now; returns how many rows each category purged. */
    purgeNow: () => purgeAll(clock.now()),

    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.job()];
    },

    job(): JobDefinition<Record<string, never>> {
      return job;
    },
  };
}

export type RetentionService = ReturnType<typeof createRetentionService>;
