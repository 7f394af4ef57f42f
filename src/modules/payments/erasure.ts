import { and, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';

/**
 * The payments' part of erasing a customer, in the erase transaction: the sealed cardholder name
 * goes. Amounts, statuses, processor references and the card's BIN, last 4, scheme, type and issuer
 * stay (money records; not PII by our rules). Returns the customer's payment ids.
 */
export async function erasePaymentData(tx: Executor, merchantId: string, customerId: string): Promise<string[]> {
  const erased = await tx
    .update(payments)
    .set({ cardholderNameCiphertext: null })
    .where(and(eq(payments.merchantId, merchantId), eq(payments.customerId, customerId)))
    .returning({ id: payments.id });
  return erased.map((row) => row.id);
}
