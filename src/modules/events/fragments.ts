import { sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { events } from '../../db/schema/index.ts';

/**
 * The events as a subquery another module joins in its own statement (decision 0049): webhook
 * delivery reads an event with its delivery (a retry) in one round trip, without naming this
 * module's table. The columns are those a delivery uses; PostgreSQL pulls the subquery up into the
 * caller's join, so the plan is the plain join's.
 */
export const deliveryEvents = new QueryBuilder()
  .select({ id: events.id, merchantId: events.merchantId, livemode: events.livemode, type: events.type, createdAt: events.createdAt, data: events.data })
  .from(events)
  .as('delivery_events');

/**
 * The same columns as a raw fragment (`id, merchant_id, livemode, type, created_at, data`, aliased
 * `delivery_events`) for a named statement whose rows skip drizzle's mapping (decision 0065): the
 * fan-out of a batch of events. `deliveryEventOf` turns one such row into what `deliveryEvents` gives.
 */
export const deliveryEventsFrom = sql`(select id, merchant_id, livemode, type, created_at, data from ${events}) as delivery_events`;

/** A raw row of `deliveryEventsFrom` (the driver's values: `created_at` as text, `data` parsed). */
export interface DeliveryEventRow {
  id: string;
  merchant_id: string;
  livemode: boolean;
  type: string;
  created_at: string;
  data: unknown;
}

/** One `deliveryEventsFrom` row as the columns' own decoders read it (the same values as `deliveryEvents`). */
export function deliveryEventOf(row: DeliveryEventRow): { id: string; merchantId: string; livemode: boolean; type: string; createdAt: Date; data: unknown } {
  return {
    id: row.id,
    merchantId: row.merchant_id,
    livemode: row.livemode,
    type: row.type,
    createdAt: events.createdAt.mapFromDriverValue(row.created_at) as Date,
    data: events.data.mapFromDriverValue(row.data),
  };
}
