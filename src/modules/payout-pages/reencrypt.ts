import { and, asc, count, eq, gt, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { payoutPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealFields } from '../../crypto/pii.ts';
import { resealInBatches, type ReencryptOptions } from '../../crypto/rotation.ts';
import { location } from './present.ts';

/**
 * Key-ring rotation: re-seals each page's customer e-mail and payout destination under the
 * active key, with the same associated data. Each UPDATE is conditional on the ciphertext read:
 * a concurrent write wins (it seals under the active key anyway). `onProgress`: rows examined of all.
 */
export async function reencryptPayoutPages(database: Database, keyRing: KeyRing, options: ReencryptOptions = {}): Promise<number> {
  return resealInBatches({
    ...options,
    count: async () => (await database.db.select({ total: count() }).from(payoutPages))[0]?.total ?? 0,
    readBatch: (after: string | undefined, limit: number) =>
      database.db
        .select({ id: payoutPages.id, merchantId: payoutPages.merchantId, customerEmailCiphertext: payoutPages.customerEmailCiphertext, destination: payoutPages.destination })
        .from(payoutPages)
        .where(after === undefined ? undefined : gt(payoutPages.id, after))
        .orderBy(asc(payoutPages.id))
        .limit(limit),
    cursorOf: (row) => row.id,
    reseal: async (row) => {
      const email = resealFields(keyRing, location(row), { 'customer.email': row.customerEmailCiphertext })?.['customer.email'];
      const destination = row.destination ? resealFields(keyRing, location(row), row.destination) : null;
      if (email === undefined && destination === null) {
        return false;
      }
      const updated = await database.db
        .update(payoutPages)
        .set({ ...(email === undefined ? {} : { customerEmailCiphertext: email }), ...(destination === null ? {} : { destination }) })
        .where(
          and(
            eq(payoutPages.id, row.id),
            ...(email === undefined ? [] : [eq(payoutPages.customerEmailCiphertext, row.customerEmailCiphertext)]),
            ...(destination === null ? [] : [sql`${payoutPages.destination} = ${JSON.stringify(row.destination)}::jsonb`]),
          ),
        )
        .returning({ id: payoutPages.id });
      return updated.length > 0;
    },
  });
}
