import { and, eq, inArray, sql, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payoutPages } from '../../db/schema/index.ts';
import { AppError } from '../../http/errors.ts';

/** Statuses in which a payout page still needs its customer's data: the customer is on it, or the money is on its way. */
const openStatuses = ['CREATED', 'PENDING', 'PROCESSING'] as const;

/**
 * The payout pages' part of erasing a customer, in the erase transaction: refused (409 INVALID_STATE
 * naming the page) while one of the customer's pages is open; otherwise every page's sealed customer
 * e-mail and sealed destination (holder name, full account and routing numbers, wallet) are removed.
 * What stays is money and public data: amounts, statuses, ids, the masked payout method (bank last
 * 4 and routing number, the wallet's network and address, public on chain). Returns the pages' ids.
 */
export async function erasePayoutPageData(tx: Executor, merchantId: string, customerId: string): Promise<string[]> {
  const [open] = await tx
    .select({ id: payoutPages.id, status: payoutPages.status })
    .from(payoutPages)
    .where(and(eq(payoutPages.merchantId, merchantId), eq(payoutPages.customerId, customerId), inArray(payoutPages.status, [...openStatuses])))
    .limit(1)
    .for('update');
  if (open) {
    throw new AppError('INVALID_STATE', `The customer cannot be erased while payout page ${open.id} is ${open.status}: cancel it or wait until it is final`);
  }
  const erased = await tx
    .update(payoutPages)
    .set({ customerEmailCiphertext: '', destination: null })
    .where(and(eq(payoutPages.merchantId, merchantId), eq(payoutPages.customerId, customerId)))
    .returning({ id: payoutPages.id });
  return erased.map((row) => row.id);
}

/**
 * True while the customer (`customerId`, SQL) has an open payout page or one changed since `since`:
 * their KYC details are still needed (retention of KYC details, kyc/retention.ts).
 */
export function payoutPageActivity(customerId: SQL, since: SQL): SQL {
  return sql`exists (select 1 from payout_pages p where p.customer_id = ${customerId} and (p.status in (${sql.join(openStatuses.map((status) => sql`${status}`), sql`, `)}) or p.updated_at >= ${since}))`;
}
