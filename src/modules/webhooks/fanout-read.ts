import { getTableColumns, sql } from 'drizzle-orm';
import { queryNamedRows, type Executor } from '../../db/client.ts';
import { webhookEndpoints } from '../../db/schema/index.ts';
import { textArray } from '../../jobs/queue.ts';
import { deliveryEventOf, deliveryEventsFrom, type DeliveryEventRow } from '../events/index.ts';
import { fraudReportWebhooksEnabledOf, merchantEmailOf } from '../merchants/index.ts';
import type { EndpointRow, EventRow } from './attempt-log.ts';

/** One event with one candidate endpoint of its merchant and mode (none: `endpoint` null). */
export interface FanoutRow {
  event: EventRow;
  fraudEnabled: boolean;
  merchantEmail: string;
  endpoint: EndpointRow | null;
}

const endpointColumns = Object.entries(getTableColumns(webhookEndpoints));
const endpointSelect = sql.join(
  endpointColumns.map(([key, column]) => sql`${column} as ${sql.identifier(`endpoint_${key}`)}`),
  sql`, `,
);

/**
 * The fan-out's read of a batch of events: each event (the events module's fragment) with its
 * merchant's address and FRAUD_REPORTED setting (the merchants module's scalar subqueries) and every
 * enabled endpoint of its merchant and mode that existed when it was recorded (an endpoint added
 * later does not receive older events: a backlog would otherwise leak them). One named statement
 * whatever the batch's size (the ids are one array parameter), so PostgreSQL parses it once per
 * connection and drizzle renders it only on its first calls (decision 0065); its rows are mapped
 * here, not by drizzle's generic row mapping, each endpoint once per batch through its columns' own
 * decoders (the same values as a drizzle select of the table).
 */
export async function readFanoutRows(executor: Executor, eventIds: readonly string[]): Promise<FanoutRow[]> {
  const rows = await queryNamedRows<DeliveryEventRow & { fraud_enabled: boolean; merchant_email: string } & Record<string, unknown>>(
    executor,
    'webhooks_fanout_read',
    sql`select delivery_events.*,
          ${fraudReportWebhooksEnabledOf(sql`delivery_events.merchant_id`)} as fraud_enabled,
          ${merchantEmailOf(sql`delivery_events.merchant_id`)} as merchant_email,
          ${endpointSelect}
        from ${deliveryEventsFrom}
        left join ${webhookEndpoints} on ${webhookEndpoints.merchantId} = delivery_events.merchant_id
          and ${webhookEndpoints.livemode} = delivery_events.livemode
          and ${webhookEndpoints.status} = 'ENABLED'
          and ${webhookEndpoints.deletedAt} is null
          and ${webhookEndpoints.createdAt} <= delivery_events.created_at
        where delivery_events.id = any(${textArray(eventIds)}::text[])`,
  );
  const events = new Map<string, EventRow>();
  const endpoints = new Map<string, EndpointRow>();
  return rows.map((row) => {
    const event = events.get(row.id) ?? deliveryEventOf(row);
    events.set(row.id, event);
    const endpointId = row.endpoint_id as string | null;
    let endpoint: EndpointRow | null = null;
    if (endpointId !== null) {
      endpoint = endpoints.get(endpointId) ?? endpointOf(row);
      endpoints.set(endpointId, endpoint);
    }
    return { event, fraudEnabled: row.fraud_enabled, merchantEmail: row.merchant_email, endpoint };
  });
}

function endpointOf(row: Record<string, unknown>): EndpointRow {
  const endpoint: Record<string, unknown> = {};
  for (const [key, column] of endpointColumns) {
    const value = row[`endpoint_${key}`];
    endpoint[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return endpoint as EndpointRow;
}
