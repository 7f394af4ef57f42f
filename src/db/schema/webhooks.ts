import { sql } from 'drizzle-orm';
import { boolean, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { merchants } from './merchants.ts';
import { events } from './platform.ts';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/**
 * Where a merchant receives events, per mode. The signing secret is sealed with the key ring (it is
 * needed in clear to sign). After a rotation the previous secret keeps signing until
 * `previous_secret_expires_at` (docs/guides/webhooks.md). Deleting an endpoint only marks it deleted, so its
 * delivery history stays readable.
 */
export const webhookEndpoints = pgTable(
  'webhook_endpoints',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id')
      .notNull()
      .references(() => merchants.id),
    livemode: boolean('livemode').notNull(),
    url: text('url').notNull(),
    description: text('description'),
    /** Event types, or `['*']` for every type (including types added later). */
    enabledEvents: jsonb('enabled_events').$type<string[]>().notNull(),
    status: text('status', { enum: ['ENABLED', 'DISABLED'] }).notNull(),
    disabledReason: text('disabled_reason', { enum: ['GONE', 'FAILING', 'MANUAL'] }),
    disabledAt: timestamptz('disabled_at'),
    secretCiphertext: text('secret_ciphertext').notNull(),
    previousSecretCiphertext: text('previous_secret_ciphertext'),
    previousSecretExpiresAt: timestamptz('previous_secret_expires_at'),
    /** First failed attempt since the last success; null while healthy. Drives the 3-day warning and 5-day disable. */
    failingSince: timestamptz('failing_since'),
    failureWarningSentAt: timestamptz('failure_warning_sent_at'),
    /**
     * The circuit breaker (decision 0027): attempts in a row that got no answer in time, and, once
     * there were enough, until when no attempt is made (deliveries wait, then one probe goes).
     * Shared by every worker, so all of them stop sending to a receiver that keeps timing out.
     */
    consecutiveTimeouts: integer('consecutive_timeouts').notNull().default(0),
    circuitOpenUntil: timestamptz('circuit_open_until'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    deletedAt: timestamptz('deleted_at'),
  },
  (table) => [index('webhook_endpoints_merchant').on(table.merchantId, table.livemode, table.createdAt, table.id)],
);

/**
 * One event to one endpoint. Unique per (event, endpoint): a fan-out that runs twice creates nothing
 * new, and a redelivery reuses the row with a new `generation` (jobs of an older generation are
 * ignored). Deleted with its event (30-day retention).
 */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: text('id').primaryKey(),
    eventId: text('event_id')
      .notNull()
      .references(() => events.id, { onDelete: 'cascade' }),
    endpointId: text('endpoint_id')
      .notNull()
      .references(() => webhookEndpoints.id),
    merchantId: text('merchant_id').notNull(),
    livemode: boolean('livemode').notNull(),
    eventType: text('event_type').notNull(),
    status: text('status', { enum: ['PENDING', 'SUCCEEDED', 'FAILED'] }).notNull(),
    generation: integer('generation').notNull().default(1),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamptz('next_attempt_at'),
    lastAttemptAt: timestamptz('last_attempt_at'),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamptz('created_at').notNull(),
    updatedAt: timestamptz('updated_at').notNull(),
    completedAt: timestamptz('completed_at'),
    /**
     * Set while a first attempt waits for its endpoint (circuit open, or too many slow attempts;
     * decision 0027): no job of its own; the endpoint's `webhooks.unpark` job hands it back.
     */
    parkedAt: timestamptz('parked_at'),
  },
  (table) => [
    uniqueIndex('webhook_deliveries_event_endpoint_unique').on(table.eventId, table.endpointId),
    index('webhook_deliveries_parked').on(table.endpointId, table.createdAt).where(sql`parked_at is not null`),
    index('webhook_deliveries_merchant_created').on(table.merchantId, table.livemode, table.createdAt, table.id),
    index('webhook_deliveries_endpoint_created').on(table.endpointId, table.createdAt, table.id),
    index('webhook_deliveries_pending').on(table.nextAttemptAt).where(sql`status = 'PENDING'`),
  ],
);

/** Every HTTP attempt of a delivery: outcome, status code, latency, the first 1 KiB of the answer. */
export const webhookDeliveryAttempts = pgTable(
  'webhook_delivery_attempts',
  {
    deliveryId: text('delivery_id')
      .notNull()
      .references(() => webhookDeliveries.id, { onDelete: 'cascade' }),
    /** 1, 2, … across every generation of the delivery. */
    number: integer('number').notNull(),
    generation: integer('generation').notNull(),
    url: text('url').notNull(),
    outcome: text('outcome', { enum: ['SUCCEEDED', 'FAILED'] }).notNull(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms').notNull(),
    responseBody: text('response_body'),
    error: text('error'),
    attemptedAt: timestamptz('attempted_at').notNull(),
  },
  (table) => [primaryKey({ columns: [table.deliveryId, table.number] }), index('webhook_delivery_attempts_attempted_at').on(table.attemptedAt)],
);
