import { and, desc, eq, inArray, type SQL } from 'drizzle-orm';
import type { Database } from '../../db/client.ts';
import { customers } from '../../db/schema/index.ts';
import { isId } from '../../crypto/ids.ts';
import type { KeyRing } from '../../crypto/keyring.ts';
import { createBoundCursorCodecs, createdBetween, keysetPage, olderThan } from '../../http/paging.ts';
import type { Merchant } from '../merchants/index.ts';
import { normalizeEmail } from './rules.ts';
import { emailLookupCandidates } from './sealing.ts';
import type { CustomerListInput, CustomerListView, CustomerOrErasedResponse } from './schemas.ts';

type CustomerRow = typeof customers.$inferSelect;

/** `GET /v1/customers`: newest first, keyset-paged like `GET /v1/events`, each customer as its GET answers it. */
export function createCustomerList(deps: { database: Database; keyRing: KeyRing; toResponse: (row: CustomerRow) => Promise<CustomerOrErasedResponse> }) {
  const { database, toResponse } = deps;
  const cursors = createBoundCursorCodecs(deps.keyRing, 'customers');
  return {
    async listCustomers(merchant: Merchant, livemode: boolean | undefined, input: CustomerListInput): Promise<CustomerListView> {
      const email = input.email === undefined ? undefined : normalizeEmail('email', input.email);
      const conditions: SQL[] = [
        eq(customers.merchantId, merchant.id),
        ...(email === undefined ? [] : [inArray(customers.emailLookup, emailLookupCandidates(deps.keyRing, merchant.id, email))]),
        ...(livemode === undefined ? [] : [eq(customers.livemode, livemode)]),
        ...(input.referenceId === undefined ? [] : [eq(customers.referenceId, input.referenceId)]),
        ...(input.kycStatus === undefined ? [] : [eq(customers.kycStatus, input.kycStatus)]),
        ...createdBetween(customers.createdAt, input),
      ];
      const { referenceId, kycStatus, createdFrom, createdTo } = input;
      const page = await keysetPage({
        input,
        // The e-mail binds the cursor through its MAC only (the cursor carries no part of it); absent, the
        // binding is the one cursors had before the filter existed.
        codec: cursors({ merchantId: merchant.id, livemode, referenceId, kycStatus, createdFrom, createdTo, ...(email === undefined ? {} : { email }) }),
        isOwnId: (value) => isId('customer', value),
        find: async (id) => {
          const [row] = await database.db
            .select({ createdAt: customers.createdAt, id: customers.id })
            .from(customers)
            .where(and(...conditions, eq(customers.id, id)));
          return row ?? null;
        },
        fetch: (after, count) =>
          database.db
            .select()
            .from(customers)
            .where(and(...conditions, ...(after ? [olderThan(customers.createdAt, customers.id, after)] : [])))
            .orderBy(desc(customers.createdAt), desc(customers.id))
            .limit(count),
      });
      return { customers: await Promise.all(page.items.map(toResponse)), hasMore: page.hasMore, ...(page.nextCursor ? { nextCursor: page.nextCursor } : {}) };
    },
  };
}
