import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import { systemClock, type Clock } from '../../clock.ts';
import { createDeliveryJobs } from './delivery.ts';
import { createDeliveryLog } from './delivery-log.ts';
import { createEndpointOperations } from './endpoints.ts';
import { createWebhookHttpClient, type WebhookHttpClient } from './http-client.ts';
import type { FairnessLimits } from './fairness.ts';
import { createRedelivery } from './redelivery.ts';

export interface WebhooksServiceDeps {
  database: Database;
  clock: Clock;
  keyRing: KeyRing;
  logger: Logger;
  publicUrl: string;
  allowPrivateTargets: boolean;
  timeoutMs: number;
  /** Real time for signatures (default the system clock); `clock` schedules. */
  wallClock?: Clock;
  /** A client of one's own (tests); default node:http(s) with the SSRF guard. */
  client?: WebhookHttpClient;
  /** In-flight caps per process (fairness.ts); default `defaultFairnessLimits`. */
  fairness?: FairnessLimits;
  random?: () => number;
}
/**
 * Webhook endpoints (per merchant and mode, endpoints.ts), the delivery log (delivery-log.ts),
 * redelivery and test events (redelivery.ts), and the delivery jobs. Delivery itself lives in
 * delivery.ts; the HTTP client and SSRF guard in http-client.ts / ssrf.ts.
 */
export function createWebhooksService(deps: WebhooksServiceDeps) {
  const { database, clock, keyRing } = deps;
  const client = deps.client ?? createWebhookHttpClient({ timeoutMs: deps.timeoutMs, allowPrivateTargets: deps.allowPrivateTargets });
  const jobs = createDeliveryJobs({
    database,
    clock,
    wallClock: deps.wallClock ?? systemClock,
    keyRing,
    logger: deps.logger.child({ component: 'webhooks' }),
    client,
    publicUrl: deps.publicUrl,
    timeoutMs: deps.timeoutMs,
    ...(deps.fairness ? { fairness: deps.fairness } : {}),
    ...(deps.random ? { random: deps.random } : {}),
  });

  return {
    jobs(): JobDefinition[] {
      return [jobs.fanout as JobDefinition, jobs.deliver as JobDefinition, jobs.unpark as JobDefinition];
    },

    ...createEndpointOperations({ database, clock, keyRing, allowPrivateTargets: deps.allowPrivateTargets }),
    ...createDeliveryLog({ database, keyRing }),
    ...createRedelivery({ database, clock, publicUrl: deps.publicUrl }),

    close(): void {
      client.close();
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
