import { and, desc, eq, inArray, lt, sql, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { events } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { isId } from '../../crypto/ids.ts';
import { notFound } from '../../http/errors.ts';
import { enqueueJob } from '../../jobs/queue.ts';
import type { JobDefinition } from '../../jobs/worker.ts';
import type { Clock } from '../../clock.ts';
import type { Merchant } from '../merchants/index.ts';
import type { EventRow, EventType } from './record.ts';
import type { EventListInput, EventView } from './schemas.ts';
import { createCursorCodec, olderThan, pageOf, startingAfterPosition, type PagePosition } from '../../http/paging.ts';

export type { EventRow };

/** Events are kept 30 days; their deliveries and delivery attempts go with them. */
export const eventRetentionMs = 30 * 24 * 60 * 60 * 1000;
export const eventRetentionQueue = 'events.retention';
const retentionIntervalMs = 60 * 60 * 1000;
const retentionBatch = 2_000;

export function eventView(row: EventRow): EventView {
  return { id: row.id, type: row.type as EventType, createdAt: row.createdAt.getTime(), livemode: row.livemode, data: row.data as Record<string, unknown> };
}

/** The next hourly retention run, enqueued exactly once per hour (dedupe key). */
export async function scheduleEventRetention(executor: Executor, now: Date): Promise<void> {
  const next = new Date(Math.floor(now.getTime() / retentionIntervalMs + 1) * retentionIntervalMs);
  await enqueueJob(executor, now, eventRetentionQueue, {}, { runAt: next, dedupeKey: `${eventRetentionQueue}:${next.toISOString()}` });
}

export function createEventsService(deps: { database: Database; clock: Clock; keyRing: KeyRing }) {
  const { database, clock } = deps;
  const cursors = createCursorCodec(deps.keyRing, 'events');

  function scope(merchantId: string, livemode: boolean | undefined, ...extra: SQL[]): SQL | undefined {
    return and(eq(events.merchantId, merchantId), ...(livemode === undefined ? [] : [eq(events.livemode, livemode)]), ...extra);
  }

  function position(merchantId: string, startingAfter: string): Promise<PagePosition> {
    return startingAfterPosition(startingAfter, {
      codec: cursors,
      isOwnId: (value) => isId('event', value),
      find: async (id) => (await database.db.select({ createdAt: events.createdAt, id: events.id }).from(events).where(scope(merchantId, undefined, eq(events.id, id))))[0],
      expected: 'the nextCursor of a previous page or the id of one of your events',
    });
  }

  const retentionJob: JobDefinition<Record<string, never>> = {
    queue: eventRetentionQueue,
    maxAttempts: 5,
    async handle(_payload, context) {
      const cutoff = new Date(context.now.getTime() - eventRetentionMs);
      // Small batches keep each delete (and its cascade to deliveries and attempts) short.
      for (;;) {
        const deleted = await database.db
          .delete(events)
          .where(inArray(events.id, database.db.select({ id: events.id }).from(events).where(lt(events.createdAt, cutoff)).limit(retentionBatch)))
          .returning({ id: events.id });
        if (deleted.length < retentionBatch) {
          break;
        }
      }
      await context.transaction(async (tx) => scheduleEventRetention(tx, clock.now()));
    },
  };

  return {
    /** Every job queue of this module, registered by platform.ts in one loop. */
    jobs(): JobDefinition[] {
      return [this.retentionJob()];
    },

    retentionJob(): JobDefinition<Record<string, never>> {
      return retentionJob;
    },

    async listEvents(merchant: Merchant, livemode: boolean | undefined, input: EventListInput): Promise<{ events: EventView[]; hasMore: boolean; nextCursor?: string }> {
      const limit = input.limit ?? 20;
      // Test events (`evt_test_…`, sent to one endpoint by webhooks.sendTestEvent) are not business events: not listed, readable by id.
      const conditions: SQL[] = [sql`not starts_with(${events.id}, 'evt_test_')`];
      if (input.type !== undefined) {
        conditions.push(eq(events.type, input.type));
      }
      if (input.startingAfter !== undefined) {
        conditions.push(olderThan(events.createdAt, events.id, await position(merchant.id, input.startingAfter)));
      }
      const rows = await database.db
        .select()
        .from(events)
        .where(scope(merchant.id, livemode, ...conditions))
        .orderBy(desc(events.createdAt), desc(events.id))
        .limit(limit + 1);
      const page = pageOf(rows, limit, cursors);
      return { events: page.items.map(eventView), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    async getEvent(merchant: Merchant, livemode: boolean | undefined, eventId: string): Promise<EventView> {
      const [row] = await database.db.select().from(events).where(scope(merchant.id, livemode, eq(events.id, eventId)));
      if (!row) {
        throw notFound('event', eventId);
      }
      return eventView(row);
    },
  };
}

export type EventsService = ReturnType<typeof createEventsService>;
