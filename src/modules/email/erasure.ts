import { and, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';

/**
 * The e-mails' part of erasing a customer, in the erase transaction: every e-mail about their pages
 * (`relatedId`: the payout and payment pages they received mail for) is deleted from the outbox,
 * sent or not: its sealed recipient, subject and body held their address, name and codes. Returns
 * how many went.
 */
export async function deleteEmailsAbout(tx: Executor, merchantId: string, relatedIds: readonly string[]): Promise<number> {
  if (relatedIds.length === 0) {
    return 0;
  }
  const deleted = await tx
    .delete(emails)
    .where(and(eq(emails.merchantId, merchantId), inArray(emails.relatedId, [...relatedIds])))
    .returning({ id: emails.id });
  return deleted.length;
}
