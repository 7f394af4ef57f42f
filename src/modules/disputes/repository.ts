import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { disputes } from '../../db/schema/index.ts';
import { olderThan, type PagePosition } from '../../http/paging.ts';

export type DisputeRow = typeof disputes.$inferSelect;
export type NewDisputeRow = typeof disputes.$inferInsert;

/** Every read is scoped by merchant, and by mode when one is given. */
function scope(merchantId: string, livemode: boolean | undefined, ...extra: SQL[]): SQL | undefined {
  return and(eq(disputes.merchantId, merchantId), ...(livemode === undefined ? [] : [eq(disputes.livemode, livemode)]), ...extra);
}

export async function findDispute(executor: Executor, merchantId: string, livemode: boolean | undefined, disputeId: string): Promise<DisputeRow | null> {
  const [row] = await executor.select().from(disputes).where(scope(merchantId, livemode, eq(disputes.id, disputeId)));
  return row ?? null;
}

/** Inserts the dispute unless the processor's dispute is already recorded; true when inserted. */
export async function insertDispute(tx: Executor, row: NewDisputeRow): Promise<boolean> {
  const inserted = await tx.insert(disputes).values(row).onConflictDoNothing({ target: [disputes.processor, disputes.processorReference] }).returning({ id: disputes.id });
  return inserted.length === 1;
}

/** The processor's dispute, row-locked for this transaction (its transitions are serialized on it). */
export async function lockDisputeByReference(tx: Executor, processor: string, processorReference: string): Promise<DisputeRow | null> {
  const [row] = await tx
    .select()
    .from(disputes)
    .where(and(eq(disputes.processor, processor), eq(disputes.processorReference, processorReference)))
    .for('update');
  return row ?? null;
}

/** A transition as a conditional update: applied only when the row still has `from`. */
export async function updateDisputeStatus(
  tx: Executor,
  disputeId: string,
  from: DisputeRow['status'],
  changes: Pick<DisputeRow, 'status' | 'evidenceDueBy' | 'updatedAt'> & { closedAt?: Date },
): Promise<DisputeRow | null> {
  const [row] = await tx
    .update(disputes)
    .set(changes)
    .where(and(eq(disputes.id, disputeId), eq(disputes.status, from)))
    .returning();
  return row ?? null;
}

export async function listDisputes(
  executor: Executor,
  merchantId: string,
  livemode: boolean | undefined,
  filter: { pageId?: string; paymentId?: string; after?: PagePosition; limit: number },
): Promise<DisputeRow[]> {
  const conditions: SQL[] = [];
  if (filter.pageId !== undefined) {
    conditions.push(eq(disputes.pageId, filter.pageId));
  }
  if (filter.paymentId !== undefined) {
    conditions.push(eq(disputes.paymentId, filter.paymentId));
  }
  if (filter.after) {
    conditions.push(olderThan(disputes.createdAt, disputes.id, filter.after));
  }
  return executor
    .select()
    .from(disputes)
    .where(scope(merchantId, livemode, ...conditions))
    .orderBy(desc(disputes.createdAt), desc(disputes.id))
    .limit(filter.limit);
}
