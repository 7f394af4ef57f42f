import { and, eq, inArray, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { Executor } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { openRecord } from '../../crypto/pii.ts';
import { notFound } from '../../http/errors.ts';
import { location } from './identity.ts';
import type { CustomerRow } from './insert.ts';
import { isEmailAddress, normalizeEmail, type KycData } from './rules.ts';
import { emailLookupCandidates } from './sealing.ts';

/** A merchant's customers (in `livemode` when given), narrowed by `extra`. */
export function scope(merchantId: string, livemode: boolean | undefined, extra: SQL): SQL {
  const conditions = [eq(customers.merchantId, merchantId), extra];
  if (livemode !== undefined) {
    conditions.push(eq(customers.livemode, livemode));
  }
  return and(...conditions) as SQL;
}

/**
 * The customer's referenceId as a scalar subquery on `customerId` (a column of the caller's table),
 * so another module's read of its own rows gets the reference in the same statement.
 */
export function customerReferenceIdOf(customerId: AnyColumn): SQL<string> {
  return sql<string>`(select ${customers.referenceId} from ${customers} where ${customers.id} = ${customerId})`;
}

/**
 * What other modules read of a customer, in their own transactions: the row, the identity data
 * for KYC, the contact for e-mails, display names for the dashboard, the e-mail search hashes.
 */
export function createCustomerReads(deps: { keyRing: KeyRing }) {
  const { keyRing } = deps;
  return {
    async findById(executor: Executor, merchantId: string, livemode: boolean | undefined, customerId: string): Promise<CustomerRow | null> {
      const [row] = await executor.select().from(customers).where(scope(merchantId, livemode, eq(customers.id, customerId)));
      return row ?? null;
    },

    /** The customer's identity data in plaintext, for the KYC provider and the pre-filled form only. */
    async readKycData(executor: Executor, customerId: string): Promise<KycData> {
      const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
      if (!row) {
        throw notFound('customer', customerId);
      }
      const { email: _email, ...identity } = openRecord(keyRing, location(row), row.pii);
      return identity as KycData;
    },

    /**
     * The keyed hashes an exact e-mail search matches, as `GET /v1/customers?email=` computes them
     * (every key of the ring); none for something that is not an e-mail address.
     */
    emailLookupsFor(merchantId: string, email: string): string[] {
      const trimmed = email.trim();
      return trimmed.length <= 254 && isEmailAddress(trimmed) ? emailLookupCandidates(keyRing, merchantId, normalizeEmail('email', trimmed)) : [];
    },

    /** Names and e-mail addresses of some of a merchant's customers, decrypted for display on one dashboard list page only. */
    async displayContacts(executor: Executor, merchantId: string, customerIds: readonly string[]): Promise<Map<string, { name: string | null; email: string | null }>> {
      const contacts = new Map<string, { name: string | null; email: string | null }>();
      if (customerIds.length === 0) {
        return contacts;
      }
      const rows = await executor.select().from(customers).where(and(eq(customers.merchantId, merchantId), inArray(customers.id, [...customerIds])));
      for (const row of rows) {
        const plain = openRecord(keyRing, location(row), row.pii);
        const name = [plain.firstName, plain.middleName, plain.lastName].filter((part) => part !== undefined && part !== '').join(' ');
        contacts.set(row.id, { name: name === '' ? null : name, email: plain.email ?? null });
      }
      return contacts;
    },

    /** The customer's plaintext e-mail address and first name, for e-mails only. */
    async contactOf(executor: Executor, customerId: string): Promise<{ email: string | null; firstName: string | null }> {
      const [row] = await executor.select().from(customers).where(eq(customers.id, customerId));
      if (!row) {
        return { email: null, firstName: null };
      }
      const plain = openRecord(keyRing, location(row), row.pii);
      return { email: plain.email ?? null, firstName: plain.firstName ?? null };
    },
  };
}
