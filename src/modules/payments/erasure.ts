import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { payments } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openFields } from '../../crypto/pii.ts';
import { payinDetailsOf } from './card.ts';
import { paymentLocation } from './repository.ts';
import type { PayinDetailsResponse } from './schemas.ts';

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

/** A customer's card payments for their data export (`GET /v1/customers/:id/export`): money facts, the masked card, and the cardholder name in plaintext for the caller to answer as JWE. */
export async function customerPaymentsForExport(
  executor: Executor,
  keyRing: KeyRing,
  merchantId: string,
  customerId: string,
): Promise<Array<{ id: string; pageId: string | null; kind: string; status: string; amount: number; currency: string; card: PayinDetailsResponse | null; cardholderName: string | null; createdAt: Date }>> {
  const rows = await executor.select().from(payments).where(and(eq(payments.merchantId, merchantId), eq(payments.customerId, customerId))).orderBy(asc(payments.createdAt), asc(payments.id));
  return rows.map((row) => ({
    id: row.id,
    pageId: row.pageId,
    kind: row.kind,
    status: row.status,
    amount: row.amount,
    currency: row.currency,
    card: row.last4 ? payinDetailsOf(row) : null,
    cardholderName: row.cardholderNameCiphertext ? (openFields(keyRing, paymentLocation(row), { cardholderName: row.cardholderNameCiphertext }).cardholderName ?? null) : null,
    createdAt: row.createdAt,
  }));
}
