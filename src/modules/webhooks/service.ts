import { and, asc, count, desc, eq, gt, inArray, isNull, sql, type SQL } from 'drizzle-orm';
import type { Logger } from 'pino';
import type { Database } from '../../db/client.ts';
import { events, merchants, webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from '../../db/schema/index.ts';
import { isId, newId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealInBatches, resealValue, type ReencryptOptions } from '../../crypto/rotation.ts';
import { AppError, notFound, wrongParameter } from '../../http/errors.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import { systemClock, type Clock } from '../../clock.ts';
import type { Merchant } from '../merchants/index.ts';
import { createCursorCodec, olderThan, pageOf, type PagePosition } from '../../http/paging.ts';
import { eventView, type EventType, type EventView } from '../events/index.ts';
import { createDeliveryJobs, enqueueDeliveries, secretAssociatedData } from './delivery.ts';
import { createWebhookHttpClient, type WebhookHttpClient } from './http-client.ts';
import { normalizeEnabledEvents, subscribes, validateEndpointUrl } from './rules.ts';
import { generateWebhookSecret } from './signing.ts';
import type { FairnessLimits } from './fairness.ts';
import { exampleEventData, isTestEventId, newTestEventId } from './test-events.ts';
import {
  maxEndpointsPerMode,
  type DeliveryListInput,
  type WebhookDeliveryView,
  type WebhookEndpointCreateInput,
  type WebhookEndpointUpdateInput,
  type WebhookEndpointView,
  type WebhookEndpointWithSecretView,
} from './schemas.ts';

type EndpointRow = typeof webhookEndpoints.$inferSelect;
type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

/** How long the previous secret keeps signing after a rotation, unless the request says otherwise. */
export const defaultRotationGraceSeconds = 24 * 60 * 60;

function endpointView(row: EndpointRow): WebhookEndpointView {
  const view: WebhookEndpointView = {
    id: row.id,
    url: row.url,
    enabledEvents: row.enabledEvents,
    livemode: row.livemode,
    status: row.status,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
  };
  if (row.description !== null) {
    view.description = row.description;
  }
  if (row.status === 'DISABLED' && row.disabledReason !== null) {
    view.disabledReason = row.disabledReason;
  }
  if (row.failingSince !== null) {
    view.failingSince = row.failingSince.getTime();
  }
  if (row.previousSecretExpiresAt !== null && row.previousSecretCiphertext !== null) {
    view.previousSecretExpiresAt = row.previousSecretExpiresAt.getTime();
  }
  return view;
}

const millis = (date: Date | null) => (date ? date.getTime() : null);

function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryView {
  return {
    id: row.id,
    eventId: row.eventId,
    endpointId: row.endpointId,
    eventType: row.eventType,
    livemode: row.livemode,
    status: row.status,
    attemptCount: row.attemptCount,
    nextAttemptAt: row.status === 'PENDING' ? millis(row.nextAttemptAt) : null,
    lastAttemptAt: millis(row.lastAttemptAt),
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    createdAt: row.createdAt.getTime(),
    updatedAt: row.updatedAt.getTime(),
    completedAt: millis(row.completedAt),
    attempts: attempts.map((attempt) => ({
      number: attempt.number,
      attemptedAt: attempt.attemptedAt.getTime(),
      url: attempt.url,
      outcome: attempt.outcome,
      statusCode: attempt.statusCode,
      latencyMs: attempt.latencyMs,
      responseBody: attempt.responseBody,
      error: attempt.error,
    })),
  };
}

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
 * Webhook endpoints (per merchant and mode), deliveries, redelivery, and the delivery jobs.
 * Delivery itself lives in delivery.ts; the HTTP client and SSRF guard in http-client.ts / ssrf.ts.
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
  const deliveryCursors = createCursorCodec(keyRing, 'webhook_deliveries');

  function endpointScope(merchantId: string, livemode: boolean | undefined, ...extra: SQL[]): SQL | undefined {
    return and(eq(webhookEndpoints.merchantId, merchantId), isNull(webhookEndpoints.deletedAt), ...(livemode === undefined ? [] : [eq(webhookEndpoints.livemode, livemode)]), ...extra);
  }

  async function findEndpoint(merchantId: string, livemode: boolean | undefined, endpointId: string): Promise<EndpointRow> {
    const [row] = await database.db.select().from(webhookEndpoints).where(endpointScope(merchantId, livemode, eq(webhookEndpoints.id, endpointId)));
    if (!row) {
      throw notFound('webhook endpoint', endpointId);
    }
    return row;
  }

  async function attemptsOf(deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
    const byDelivery = new Map<string, AttemptRow[]>();
    if (deliveryIds.length === 0) {
      return byDelivery;
    }
    const rows = await database.db
      .select()
      .from(webhookDeliveryAttempts)
      .where(inArray(webhookDeliveryAttempts.deliveryId, deliveryIds))
      .orderBy(asc(webhookDeliveryAttempts.deliveryId), asc(webhookDeliveryAttempts.number));
    for (const row of rows) {
      const list = byDelivery.get(row.deliveryId) ?? [];
      list.push(row);
      byDelivery.set(row.deliveryId, list);
    }
    return byDelivery;
  }

  async function deliveryViews(rows: DeliveryRow[]): Promise<WebhookDeliveryView[]> {
    const attempts = await attemptsOf(rows.map((row) => row.id));
    return rows.map((row) => deliveryView(row, attempts.get(row.id) ?? []));
  }

  async function deliveryPosition(merchantId: string, startingAfter: string): Promise<PagePosition> {
    if (isId('webhookDelivery', startingAfter)) {
      const [row] = await database.db
        .select({ createdAt: webhookDeliveries.createdAt, id: webhookDeliveries.id })
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.merchantId, merchantId), eq(webhookDeliveries.id, startingAfter)));
      if (row) {
        return row;
      }
    } else {
      const decoded = deliveryCursors.decode(startingAfter);
      if (decoded) {
        return decoded;
      }
    }
    throw wrongParameter('startingAfter', 'must be the nextCursor of a previous page or the id of one of your webhook deliveries');
  }

  return {
    jobs(): JobDefinition[] {
      return [jobs.fanout as JobDefinition, jobs.deliver as JobDefinition, jobs.unpark as JobDefinition];
    },

    async createEndpoint(merchant: Merchant, livemode: boolean, input: WebhookEndpointCreateInput): Promise<WebhookEndpointWithSecretView> {
      const url = validateEndpointUrl(input.url, { livemode, allowPrivateTargets: deps.allowPrivateTargets });
      const enabledEvents = normalizeEnabledEvents(input.enabledEvents);
      const now = clock.now();
      const id = newId('webhookEndpoint', now.getTime());
      const secret = generateWebhookSecret();
      const row = await database.transaction(async (tx) => {
        // Serialises creates of one merchant so the per-mode limit holds under concurrency.
        await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchant.id)).for('update');
        const [existing] = await tx.select({ total: count() }).from(webhookEndpoints).where(endpointScope(merchant.id, livemode));
        if ((existing?.total ?? 0) >= maxEndpointsPerMode) {
          throw new AppError('INVALID_STATE', `A merchant can have at most ${maxEndpointsPerMode} webhook endpoints per mode; delete one first`);
        }
        const [inserted] = await tx
          .insert(webhookEndpoints)
          .values({
            id,
            merchantId: merchant.id,
            livemode,
            url,
            description: input.description ?? null,
            enabledEvents,
            status: 'ENABLED',
            secretCiphertext: keyRing.encrypt(secret, secretAssociatedData({ merchantId: merchant.id, id }, 'secret')),
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        return inserted;
      });
      if (!row) {
        throw new Error('webhook endpoint insert returned nothing');
      }
      return { ...endpointView(row), secret };
    },

    async listEndpoints(merchant: Merchant, livemode: boolean | undefined): Promise<WebhookEndpointView[]> {
      const rows = await database.db.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode)).orderBy(desc(webhookEndpoints.createdAt), desc(webhookEndpoints.id));
      return rows.map(endpointView);
    },

    async getEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string): Promise<WebhookEndpointView> {
      return endpointView(await findEndpoint(merchant.id, livemode, endpointId));
    },

    async updateEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string, input: WebhookEndpointUpdateInput): Promise<WebhookEndpointView> {
      const existing = await findEndpoint(merchant.id, livemode, endpointId);
      const now = clock.now();
      const changes: Partial<typeof webhookEndpoints.$inferInsert> = { updatedAt: now };
      if (input.url !== undefined) {
        changes.url = validateEndpointUrl(input.url, { livemode: existing.livemode, allowPrivateTargets: deps.allowPrivateTargets });
        // Another receiver: the circuit breaker (decision 0027) starts closed again.
        Object.assign(changes, { consecutiveTimeouts: 0, circuitOpenUntil: null });
      }
      if (input.enabledEvents !== undefined) {
        changes.enabledEvents = normalizeEnabledEvents(input.enabledEvents);
      }
      if (input.description !== undefined) {
        changes.description = input.description;
      }
      if (input.status === 'ENABLED' && existing.status === 'DISABLED') {
        Object.assign(changes, { status: 'ENABLED', disabledReason: null, disabledAt: null, failingSince: null, failureWarningSentAt: null, consecutiveTimeouts: 0, circuitOpenUntil: null });
      } else if (input.status === 'DISABLED' && existing.status === 'ENABLED') {
        Object.assign(changes, { status: 'DISABLED', disabledReason: 'MANUAL', disabledAt: now });
      }
      const [row] = await database.db.update(webhookEndpoints).set(changes).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).returning();
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return endpointView(row);
    },

    /** Deleting keeps the row (marked deleted) so past deliveries stay readable; pending ones stop. */
    async deleteEndpoint(merchant: Merchant, livemode: boolean | undefined, endpointId: string): Promise<{ id: string; deleted: true }> {
      const now = clock.now();
      const [row] = await database.db
        .update(webhookEndpoints)
        .set({ deletedAt: now, updatedAt: now })
        .where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId)))
        .returning({ id: webhookEndpoints.id });
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return { id: row.id, deleted: true };
    },

    /**
     * A new secret. For `gracePeriodSeconds` (default 24 h) the previous secret keeps signing too
     * (docs/guides/webhooks.md); rotating again within the grace period drops the oldest secret.
     */
    async rotateSecret(merchant: Merchant, livemode: boolean | undefined, endpointId: string, gracePeriodSeconds: number = defaultRotationGraceSeconds): Promise<WebhookEndpointWithSecretView> {
      const secret = generateWebhookSecret();
      const now = clock.now();
      const row = await database.transaction(async (tx) => {
        const [current] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).for('update');
        if (!current) {
          throw notFound('webhook endpoint', endpointId);
        }
        const previous = gracePeriodSeconds > 0 ? keyRing.decrypt(current.secretCiphertext, secretAssociatedData(current, 'secret')) : null;
        const [updated] = await tx
          .update(webhookEndpoints)
          .set({
            secretCiphertext: keyRing.encrypt(secret, secretAssociatedData(current, 'secret')),
            previousSecretCiphertext: previous === null ? null : keyRing.encrypt(previous, secretAssociatedData(current, 'previous_secret')),
            previousSecretExpiresAt: previous === null ? null : new Date(now.getTime() + gracePeriodSeconds * 1000),
            updatedAt: now,
          })
          .where(eq(webhookEndpoints.id, current.id))
          .returning();
        return updated;
      });
      if (!row) {
        throw notFound('webhook endpoint', endpointId);
      }
      return { ...endpointView(row), secret };
    },

    async listDeliveries(merchant: Merchant, livemode: boolean | undefined, input: DeliveryListInput): Promise<{ deliveries: WebhookDeliveryView[]; hasMore: boolean; nextCursor?: string }> {
      const limit = input.limit ?? 20;
      const conditions: SQL[] = [eq(webhookDeliveries.merchantId, merchant.id)];
      if (livemode !== undefined) {
        conditions.push(eq(webhookDeliveries.livemode, livemode));
      }
      if (input.eventId !== undefined) {
        conditions.push(eq(webhookDeliveries.eventId, input.eventId));
      }
      if (input.endpointId !== undefined) {
        conditions.push(eq(webhookDeliveries.endpointId, input.endpointId));
      }
      if (input.status !== undefined) {
        conditions.push(eq(webhookDeliveries.status, input.status));
      }
      if (input.startingAfter !== undefined) {
        conditions.push(olderThan(webhookDeliveries.createdAt, webhookDeliveries.id, await deliveryPosition(merchant.id, input.startingAfter)));
      }
      const rows = await database.db
        .select()
        .from(webhookDeliveries)
        .where(and(...conditions))
        .orderBy(desc(webhookDeliveries.createdAt), desc(webhookDeliveries.id))
        .limit(limit + 1);
      const page = pageOf(rows, limit, deliveryCursors);
      return { deliveries: await deliveryViews(page.items), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    async getDelivery(merchant: Merchant, livemode: boolean | undefined, deliveryId: string): Promise<WebhookDeliveryView> {
      const [row] = await database.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.merchantId, merchant.id), eq(webhookDeliveries.id, deliveryId), ...(livemode === undefined ? [] : [eq(webhookDeliveries.livemode, livemode)])));
      if (!row) {
        throw notFound('webhook delivery', deliveryId);
      }
      const [view] = await deliveryViews([row]);
      if (!view) {
        throw notFound('webhook delivery', deliveryId);
      }
      return view;
    },

    /**
     * Sends an event again: to one endpoint, or to every enabled endpoint of its mode that subscribes
     * to its type. Each gets a fresh run of the retry schedule; an attempt chain of an earlier run
     * stops (its jobs carry an older generation). The `webhook-id` stays the event id.
     */
    async redeliver(merchant: Merchant, livemode: boolean | undefined, eventId: string, endpointId: string | undefined): Promise<{ deliveries: WebhookDeliveryView[] }> {
      const now = clock.now();
      const rows = await database.transaction(async (tx) => {
        const [event] = await tx
          .select()
          .from(events)
          .where(and(eq(events.merchantId, merchant.id), eq(events.id, eventId), ...(livemode === undefined ? [] : [eq(events.livemode, livemode)])));
        if (!event) {
          throw notFound('event', eventId);
        }
        const [owner] = await tx.select({ fraudEnabled: merchants.fraudReportWebhooksEnabled }).from(merchants).where(eq(merchants.id, merchant.id));
        const fraudBlocked = event.type === 'FRAUD_REPORTED' && !owner?.fraudEnabled;
        // A test event belongs to the one endpoint it was sent to (sendTestEvent): redelivery never fans it out.
        const testEndpointIds = isTestEventId(event.id)
          ? new Set((await tx.select({ endpointId: webhookDeliveries.endpointId }).from(webhookDeliveries).where(eq(webhookDeliveries.eventId, event.id))).map((row) => row.endpointId))
          : null;
        if (testEndpointIds && endpointId !== undefined && !testEndpointIds.has(endpointId)) {
          throw new AppError('INVALID_STATE', `Test event ${event.id} was sent to another endpoint; send a new test event to ${endpointId} instead`);
        }
        let targets: EndpointRow[];
        if (endpointId !== undefined) {
          const [endpoint] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, event.livemode, eq(webhookEndpoints.id, endpointId)));
          if (!endpoint) {
            throw notFound('webhook endpoint', endpointId);
          }
          if (endpoint.status !== 'ENABLED') {
            throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} is disabled; enable it first`);
          }
          if (!subscribes(endpoint.enabledEvents, event.type)) {
            throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} does not subscribe to ${event.type} events`);
          }
          if (fraudBlocked) {
            throw new AppError('INVALID_STATE', 'FRAUD_REPORTED webhooks are not enabled for this merchant; ask the operator to enable them');
          }
          targets = [endpoint];
        } else {
          targets = fraudBlocked
            ? []
            : (await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, event.livemode, eq(webhookEndpoints.status, 'ENABLED')))).filter(
                (endpoint) => subscribes(endpoint.enabledEvents, event.type) && (testEndpointIds === null || testEndpointIds.has(endpoint.id)),
              );
        }
        const upserted: DeliveryRow[] = [];
        for (const endpoint of targets) {
          const [row] = await tx
            .insert(webhookDeliveries)
            .values({
              id: newId('webhookDelivery', now.getTime()),
              eventId: event.id,
              endpointId: endpoint.id,
              merchantId: event.merchantId,
              livemode: event.livemode,
              eventType: event.type,
              status: 'PENDING',
              generation: 1,
              attemptCount: 0,
              nextAttemptAt: now,
              createdAt: now,
              updatedAt: now,
            })
            .onConflictDoUpdate({
              target: [webhookDeliveries.eventId, webhookDeliveries.endpointId],
              set: { status: 'PENDING', generation: sql`${webhookDeliveries.generation} + 1`, nextAttemptAt: now, completedAt: null, updatedAt: now },
            })
            .returning();
          if (row) {
            upserted.push(row);
          }
        }
        await enqueueDeliveries(tx, now, upserted);
        return upserted;
      });
      return { deliveries: await deliveryViews(rows) };
    },

    /**
     * Sends an example event of `eventType` (one of the endpoint's enabled types) to this endpoint
     * only: the event (`evt_test_…`, example data with test ids, see test-events.ts) and its one
     * delivery are written in one transaction with the delivery job, and from there it goes the normal
     * way — signed, logged with every attempt, retried on failure, redeliverable to this endpoint.
     * No fan-out job is enqueued, so no other endpoint sees it; `GET /v1/events` does not list it.
     */
    async sendTestEvent(merchant: Merchant, livemode: boolean | undefined, endpointId: string, eventType: EventType): Promise<{ event: EventView; delivery: WebhookDeliveryView }> {
      const now = clock.now();
      const { event, delivery } = await database.transaction(async (tx) => {
        // Locked so a concurrent disable, delete or change of events cannot slip in between the checks and the insert.
        const [endpoint] = await tx.select().from(webhookEndpoints).where(endpointScope(merchant.id, livemode, eq(webhookEndpoints.id, endpointId))).for('update');
        if (!endpoint) {
          throw notFound('webhook endpoint', endpointId);
        }
        if (endpoint.status !== 'ENABLED') {
          throw new AppError('INVALID_STATE', `Webhook endpoint ${endpoint.id} is disabled; enable it first`);
        }
        if (!subscribes(endpoint.enabledEvents, eventType)) {
          throw wrongParameter('eventType', `must be one of the event types the endpoint receives (${endpoint.enabledEvents.join(', ')})`);
        }
        if (eventType === 'FRAUD_REPORTED') {
          const [owner] = await tx.select({ fraudEnabled: merchants.fraudReportWebhooksEnabled }).from(merchants).where(eq(merchants.id, merchant.id));
          if (!owner?.fraudEnabled) {
            throw new AppError('INVALID_STATE', 'FRAUD_REPORTED webhooks are not enabled for this merchant; ask the operator to enable them');
          }
        }
        const data = exampleEventData(eventType, { merchantId: merchant.id, livemode: endpoint.livemode, publicUrl: deps.publicUrl, now });
        const eventId = newTestEventId(now);
        const [eventRow] = await tx
          .insert(events)
          .values({ id: eventId, merchantId: merchant.id, livemode: endpoint.livemode, type: eventType, data, createdAt: now })
          .returning();
        const [deliveryRow] = await tx
          .insert(webhookDeliveries)
          .values({
            id: newId('webhookDelivery', now.getTime()),
            eventId,
            endpointId: endpoint.id,
            merchantId: merchant.id,
            livemode: endpoint.livemode,
            eventType,
            status: 'PENDING',
            generation: 1,
            attemptCount: 0,
            nextAttemptAt: now,
            createdAt: now,
            updatedAt: now,
          })
          .returning();
        if (!eventRow || !deliveryRow) {
          throw new Error('test event insert returned nothing');
        }
        await enqueueDeliveries(tx, now, [deliveryRow]);
        return { event: eventRow, delivery: deliveryRow };
      });
      return { event: eventView(event), delivery: deliveryView(delivery, []) };
    },

    /**
     * Key-ring rotation: re-seals every endpoint's signing secret and previous secret (deleted
     * endpoints too: their rows keep the ciphertext) under the active key, with the same associated
     * data. The UPDATE is conditional on the ciphertexts read: a concurrent secret rotation wins.
     * The secrets themselves do not change, so deliveries stay signed as before. `onProgress`: rows examined of all.
     */
    async reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealInBatches({
        ...options,
        count: async () => (await database.db.select({ total: count() }).from(webhookEndpoints))[0]?.total ?? 0,
        readBatch: (after: string | undefined, limit: number) =>
          database.db
            .select({ id: webhookEndpoints.id, merchantId: webhookEndpoints.merchantId, secretCiphertext: webhookEndpoints.secretCiphertext, previousSecretCiphertext: webhookEndpoints.previousSecretCiphertext })
            .from(webhookEndpoints)
            .where(after === undefined ? undefined : gt(webhookEndpoints.id, after))
            .orderBy(asc(webhookEndpoints.id))
            .limit(limit),
        cursorOf: (row) => row.id,
        reseal: async (row) => {
          const secret = resealValue(keyRing, row.secretCiphertext, secretAssociatedData(row, 'secret'));
          const previous = row.previousSecretCiphertext === null ? null : resealValue(keyRing, row.previousSecretCiphertext, secretAssociatedData(row, 'previous_secret'));
          if (secret === null && previous === null) {
            return false;
          }
          const updated = await database.db
            .update(webhookEndpoints)
            .set({ ...(secret === null ? {} : { secretCiphertext: secret }), ...(previous === null ? {} : { previousSecretCiphertext: previous }) })
            .where(
              and(
                eq(webhookEndpoints.id, row.id),
                ...(secret === null ? [] : [eq(webhookEndpoints.secretCiphertext, row.secretCiphertext)]),
                ...(previous === null || row.previousSecretCiphertext === null ? [] : [eq(webhookEndpoints.previousSecretCiphertext, row.previousSecretCiphertext)]),
              ),
            )
            .returning({ id: webhookEndpoints.id });
          return updated.length > 0;
        },
      });
    },

    close(): void {
      client.close();
    },
  };
}

export type WebhooksService = ReturnType<typeof createWebhooksService>;
