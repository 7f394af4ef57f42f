import { and, eq, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { payoutPages } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { resealFields } from '../../crypto/pii.ts';
import { resealTable, type ReencryptOptions } from '../../crypto/rotation.ts';
import { location } from './present.ts';

/**
 * Key-ring rotation: re-seals each page's customer e-mail and payout destination under the
 * active key, with the same associated data. Each UPDATE is conditional on the ciphertext read:
 * a concurrent write wins (it seals under the active key anyway). `onProgress`: rows examined of all.
 */
export async function reencryptPayoutPages(database: Database, keyRing: KeyRing, options: ReencryptOptions = {}): Promise<number> {
  return resealTable(database, {
    ...options,
    table: payoutPages,
    columns: { id: payoutPages.id, merchantId: payoutPages.merchantId, customerEmailCiphertext: payoutPages.customerEmailCiphertext, destination: payoutPages.destination },
    key: 'id',
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
