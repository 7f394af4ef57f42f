import { and, asc, eq, gt, isNull, sql } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openRecord, resealRecord } from '../../crypto/pii.ts';
import { resealTable, type ReencryptOptions } from '../../crypto/rotation.ts';
import type { JobDefinition } from '../../jobs/worker.ts';

/**
 * The e-mail lookup of `GET /v1/customers?email=`: a keyed hash of the merchant's id and the address
 * exactly as stored (trimmed, case kept), so the filter is an index lookup and the database never
 * holds the plain address. Under the ring's active key; a key rotation re-computes it with the
 * row's re-encryption, and a lookup matches the hash under every key in the ring meanwhile.
 */
const purpose = 'customer-email';

export function emailLookupOf(keyRing: KeyRing, merchantId: string, email: string | undefined): string | null {
  return email === undefined ? null : keyRing.lookupHash(purpose, `${merchantId}\n${email}`);
}

/** What a stored `email_lookup` may hold for this address while the ring has several keys. */
export function emailLookupCandidates(keyRing: KeyRing, merchantId: string, email: string): string[] {
  return keyRing.lookupHashes(purpose, `${merchantId}\n${email}`);
}

/** The queue of the one-time backfill job (migration 0019 enqueues it on databases that hold customers). */
export const emailLookupBackfillQueue = 'customers.backfill-email-lookup';

/**
 * Customers written before migration 0019 have no lookup hash: this computes it from the sealed PII,
 * in id order, one batch at a time. The UPDATE is conditional on the PII it read and on the hash
 * still being unset, so a concurrent update (which writes its own hash) wins. Rows without an e-mail
 * stay null; one pass visits each row once, so running it again changes nothing more.
 */
export function createEmailLookupBackfill(deps: { database: Database; keyRing: KeyRing }) {
  const { database, keyRing } = deps;

  async function run(options: { batchSize?: number } = {}): Promise<{ filled: number }> {
    const batchSize = options.batchSize ?? 500;
    let filled = 0;
    let after = '';
    for (;;) {
      const rows = await database.db
        .select({ id: customers.id, merchantId: customers.merchantId, pii: customers.pii })
        .from(customers)
        .where(and(isNull(customers.emailLookup), gt(customers.id, after)))
        .orderBy(asc(customers.id))
        .limit(batchSize);
      for (const row of rows) {
        const { email } = openRecord(keyRing, { merchantId: row.merchantId, table: 'customers', rowId: row.id }, row.pii);
        const lookup = emailLookupOf(keyRing, row.merchantId, email);
        if (lookup !== null) {
          const updated = await database.db
            .update(customers)
            .set({ emailLookup: lookup })
            .where(and(eq(customers.id, row.id), isNull(customers.emailLookup), sql`${customers.pii} = ${JSON.stringify(row.pii)}::jsonb`))
            .returning({ id: customers.id });
          filled += updated.length;
        }
      }
      const last = rows.at(-1);
      if (!last || rows.length < batchSize) {
        return { filled };
      }
      after = last.id;
    }
  }

  function job(): JobDefinition<Record<string, never>> {
    return {
      queue: emailLookupBackfillQueue,
      maxAttempts: 20,
      handle: async () => {
        await run();
      },
    };
  }

  return { run, job };
}

/**
 * Key-ring rotation: re-seals every customer's PII under the active key, with its e-mail lookup
 * hash re-computed under that key too (`onProgress`: rows examined of all).
 */
export function createCustomerReencryption(deps: { database: Database; keyRing: KeyRing }) {
  const { database, keyRing } = deps;
  return {
    reencryptAll(options: ReencryptOptions = {}): Promise<number> {
      return resealTable(database, {
        ...options,
        table: customers,
        columns: { id: customers.id, merchantId: customers.merchantId, pii: customers.pii, emailLookup: customers.emailLookup },
        key: 'id',
        reseal: async (row) => {
          const location = { merchantId: row.merchantId, table: 'customers', rowId: row.id };
          const resealed = resealRecord(keyRing, location, row.pii);
          const staleLookup = row.emailLookup !== null && keyRing.keyIdOf(row.emailLookup) !== keyRing.activeKeyId;
          if (!resealed && !staleLookup) {
            return false;
          }
          const emailLookup = emailLookupOf(keyRing, row.merchantId, openRecord(keyRing, location, row.pii).email);
          // Conditional on the ciphertext read: a concurrent update wins and is re-sealed next run.
          const updated = await database.db
            .update(customers)
            .set({ pii: resealed ?? row.pii, emailLookup })
            .where(and(eq(customers.id, row.id), sql`${customers.pii} = ${JSON.stringify(row.pii)}::jsonb`))
            .returning({ id: customers.id });
          return updated.length > 0;
        },
      });
    },
  };
}
