import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { emails } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openEmailContent } from './sealing.ts';

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

/** The e-mails about these pages, opened, for a customer's data export (oldest first). */
export async function emailsAboutForExport(
  executor: Executor,
  keyRing: KeyRing,
  merchantId: string,
  relatedIds: readonly string[],
): Promise<Array<{ id: string; template: string; status: string; relatedId: string | null; to: string; subject: string; text: string; createdAt: Date; sentAt: Date | null }>> {
  if (relatedIds.length === 0) {
    return [];
  }
  const rows = await executor
    .select()
    .from(emails)
    .where(and(eq(emails.merchantId, merchantId), inArray(emails.relatedId, [...relatedIds])))
    .orderBy(asc(emails.createdAt), asc(emails.id));
  return rows.map((row) => {
    const content = openEmailContent(keyRing, merchantId, row.id, row);
    return { id: row.id, template: row.template, status: row.status, relatedId: row.relatedId, to: content.to, subject: content.subject, text: content.text, createdAt: row.createdAt, sentAt: row.sentAt };
  });
}
