import { and, asc, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Database, Executor } from '../../db/client.ts';
import { webhookDeliveries, webhookDeliveryAttempts } from '../../db/schema/index.ts';
import { isId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { notFound, wrongParameter } from '../../http/errors.ts';
import type { Merchant } from '../merchants/index.ts';
import { createCursorCodec, olderThan, pageOf, type PagePosition } from '../../http/paging.ts';
import type { DeliveryListInput, WebhookDeliveryView } from './schemas.ts';

export type DeliveryRow = typeof webhookDeliveries.$inferSelect;
type AttemptRow = typeof webhookDeliveryAttempts.$inferSelect;

const millis = (date: Date | null) => (date ? date.getTime() : null);

export function deliveryView(row: DeliveryRow, attempts: AttemptRow[]): WebhookDeliveryView {
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

async function attemptsOf(executor: Executor, deliveryIds: string[]): Promise<Map<string, AttemptRow[]>> {
  const byDelivery = new Map<string, AttemptRow[]>();
  if (deliveryIds.length === 0) {
    return byDelivery;
  }
  const rows = await executor
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

/** The deliveries as the API shows them, each with its attempts. */
export async function deliveryViews(executor: Executor, rows: DeliveryRow[]): Promise<WebhookDeliveryView[]> {
  const attempts = await attemptsOf(executor, rows.map((row) => row.id));
  return rows.map((row) => deliveryView(row, attempts.get(row.id) ?? []));
}

/** The delivery log: a merchant's deliveries with their attempts, listed newest first or read one by one. */
export function createDeliveryLog(deps: { database: Database; keyRing: KeyRing }) {
  const { database, keyRing } = deps;
  const deliveryCursors = createCursorCodec(keyRing, 'webhook_deliveries');

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
      return { deliveries: await deliveryViews(database.db, page.items), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },

    async getDelivery(merchant: Merchant, livemode: boolean | undefined, deliveryId: string): Promise<WebhookDeliveryView> {
      const [row] = await database.db
        .select()
        .from(webhookDeliveries)
        .where(and(eq(webhookDeliveries.merchantId, merchant.id), eq(webhookDeliveries.id, deliveryId), ...(livemode === undefined ? [] : [eq(webhookDeliveries.livemode, livemode)])));
      if (!row) {
        throw notFound('webhook delivery', deliveryId);
      }
      const [view] = await deliveryViews(database.db, [row]);
      if (!view) {
        throw notFound('webhook delivery', deliveryId);
      }
      return view;
    },
  };
}
