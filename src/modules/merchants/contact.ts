import { eq, sql, type Column, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { merchants } from '../../db/schema/index.ts';

/** The merchant's display name and account address (where notices to the merchant go), read in the caller's transaction. */
export async function merchantContact(executor: Executor, merchantId: string): Promise<{ name: string; email: string }> {
  const [row] = await executor.select({ name: merchants.name, email: merchants.email }).from(merchants).where(eq(merchants.id, merchantId));
  if (!row) {
    throw new Error(`merchant ${merchantId} not found`);
  }
  return row;
}

/** The merchant's display name, read inside the caller's transaction (e-mails, hosted pages); 'The merchant' when there is none. */
export async function merchantName(executor: Executor, merchantId: string): Promise<string> {
  const [row] = await executor.select({ name: merchants.name }).from(merchants).where(eq(merchants.id, merchantId));
  return row?.name ?? 'The merchant';
}

/** The display name of the merchant whose id is `merchantId` (a column of the caller's query), as a column of that query. */
export function merchantNameOf(merchantId: Column | SQL): SQL<string> {
  return sql<string>`(select m.name from merchants m where m.id = ${merchantId})`;
}
