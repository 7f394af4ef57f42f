import { boolean, index, integer, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

const timestamptz = (name: string) => timestamp(name, { withTimezone: true, mode: 'date' });

/** Who acted: an API key (`key_…`), a dashboard user (`usr_…`) or the operator (`operator`). */
export const auditActorTypes = ['api_key', 'dashboard_user', 'operator'] as const;
export type AuditActorType = (typeof auditActorTypes)[number];

export const auditOutcomes = ['SUCCEEDED', 'FAILED'] as const;
export type AuditOutcome = (typeof auditOutcomes)[number];

/**
 * The audit log (issue 18 item 13; decision 0028): one row per state-changing request of a dashboard
 * user, an API key or the operator, written after the answer. Append-only: a trigger refuses UPDATE,
 * DELETE and TRUNCATE (migration 0024). Only ids are kept, never a request or response body.
 * `merchant_id` is null for operator actions on no merchant; `livemode` is null when the request did
 * not name a mode (operator actions, API actions by id without `livemode`). Owned by the audit module.
 */
export const auditEvents = pgTable(
  'audit_events',
  {
    id: text('id').primaryKey(),
    merchantId: text('merchant_id'),
    livemode: boolean('livemode'),
    actorType: text('actor_type').$type<AuditActorType>().notNull(),
    actorId: text('actor_id').notNull(),
    action: text('action').notNull(),
    target: text('target'),
    address: text('address').notNull(),
    outcome: text('outcome').$type<AuditOutcome>().notNull(),
    statusCode: integer('status_code').notNull(),
    errorCode: text('error_code'),
    requestId: text('request_id').notNull(),
    createdAt: timestamptz('created_at').notNull(),
  },
  (table) => [index('audit_events_merchant_created').on(table.merchantId, table.createdAt, table.id), index('audit_events_created').on(table.createdAt, table.id)],
);
