import { and, eq, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { paymentPages } from '../../db/schema/index.ts';

/** The payment pages' part of erasing a customer, in the erase transaction: the sealed customer e-mail goes. Returns the pages' ids. */
export async function erasePaymentPageData(tx: Executor, merchantId: string, customerId: string): Promise<string[]> {
  const erased = await tx
    .update(paymentPages)
    .set({ customerEmailCiphertext: '' })
    .where(and(eq(paymentPages.merchantId, merchantId), eq(paymentPages.customerId, customerId)))
    .returning({ id: paymentPages.id });
  return erased.map((row) => row.id);
}

/** True while the customer (`customerId`, SQL) has a payment page changed since `since` (retention of KYC details, kyc/retention.ts). */
export function paymentPageActivity(customerId: SQL, since: SQL): SQL {
  return sql`exists (select 1 from payment_pages p where p.customer_id = ${customerId} and p.updated_at >= ${since})`;
}
