import { eq, sql, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchants } from '../../db/schema/index.ts';

/**
 * Reads of the merchants table that other modules make inside their own transactions (decision
 * 0042: a module's tables are read only through its index.ts).
 */

/** Locks the merchant's row for `tx`: serialises one merchant's writes that check a per-merchant limit. */
export async function lockMerchantRow(tx: Executor, merchantId: string): Promise<void> {
  await tx.select({ id: merchants.id }).from(merchants).where(eq(merchants.id, merchantId)).for('update');
}

/** Whether the operator enabled FRAUD_REPORTED webhooks for this merchant (false for an unknown merchant). */
export async function fraudReportWebhooksEnabled(executor: Executor, merchantId: string): Promise<boolean> {
  const [row] = await executor.select({ enabled: merchants.fraudReportWebhooksEnabled }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.enabled ?? false;
}

/**
 * The account address of the merchant whose id is `merchantId` (a column of the caller's query), as
 * a column of that query: webhook delivery names it in the endpoint-health notices it reads with
 * each batch.
 */
export function merchantEmailOf(merchantId: Column | SQL): SQL<string> {
  return sql<string>`(select m.email from merchants m where m.id = ${merchantId})`;
}

/** `fraudReportWebhooksEnabled` of the merchant whose id is `merchantId` (a column of the caller's query), as a column of that query (false for none). */
export function fraudReportWebhooksEnabledOf(merchantId: Column | SQL): SQL<boolean> {
  return sql<boolean>`coalesce((select m.fraud_report_webhooks_enabled from merchants m where m.id = ${merchantId}), false)`;
}
