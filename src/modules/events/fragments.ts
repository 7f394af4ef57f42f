import { QueryBuilder } from 'drizzle-orm/pg-core';
import { events } from '../../db/schema/index.ts';

/**
 * The events as a subquery another module joins in its own statement (decision 0049): webhook
 * delivery reads an event with its merchant's endpoints (the fan-out of a batch) or with its
 * delivery (a retry) in one round trip, without naming this module's table. The columns are those
 * a delivery uses; PostgreSQL pulls the subquery up into the caller's join, so the plan is the
 * plain join's.
 */
export const deliveryEvents = new QueryBuilder()
  .select({ id: events.id, merchantId: events.merchantId, livemode: events.livemode, type: events.type, createdAt: events.createdAt, data: events.data })
  .from(events)
  .as('delivery_events');
