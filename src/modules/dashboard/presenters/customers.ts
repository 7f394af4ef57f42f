import { and, desc, eq, inArray, like, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { customers, kycStatuses, type KycStatus } from '../../../db/schema/index.ts';
import type { CustomersService } from '../../customers/index.ts';
import { createdWithin, everyRow, exportBatch, readPage, type CreatedRange, type PageOf } from './pagination.ts';
import { createCustomerStory, type CustomerStoryView, type StoryList, type StoryRow, type VerificationRowView } from './customer-story.ts';

export { storyLimit, type CustomerStoryView } from './customer-story.ts';

export interface CustomerFilters {
  /** Prefix of the referenceId (case-sensitive, as referenceIds are), or a customer id (`cus_…`) exactly. */
  reference?: string;
  /** The exact e-mail address, matched through the keyed lookup hash (never the plain address). */
  email?: string;
  kycStatus?: KycStatus;
}

export interface CustomerRowView {
  id: string;
  referenceId: string;
  kycStatus: KycStatus;
  createdAt: Date;
}

/** A list row with the name and e-mail, decrypted for display on this page only. */
export interface CustomerListRowView extends CustomerRowView {
  name: string | null;
  email: string | null;
}

export interface CustomerDetailView extends CustomerRowView {
  email: string | null;
  /** Set once the customer was erased: nothing personal is left to show. */
  erasedAt: Date | null;
  signupAt: Date;
  supportedPaymentMethods: string[] | null;
  supportedPayoutMethods: string[] | null;
  /** The identity verifications created in the screen's period, newest first. */
  verifications: VerificationRowView[];
  /** The latest of each kind created in the screen's period. */
  story: CustomerStoryView;
}

export function parseKycStatus(raw: unknown): KycStatus | undefined {
  return typeof raw === 'string' && (kycStatuses as readonly string[]).includes(raw) ? (raw as KycStatus) : undefined;
}

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (character) => `\\${character}`);
}

/** Read model of the customers screens; every query is scoped by merchant and mode. */
export function createCustomersPresenter(deps: { database: Database; customers: CustomersService }) {
  const { database } = deps;
  const story = createCustomerStory(database);

  type CustomerRow = { id: string; referenceId: string; kycStatus: CustomerListRowView['kycStatus']; createdAt: Date };

  function customerRows(merchantId: string, livemode: boolean, filters: CustomerFilters, period: CreatedRange, after: SQL[], limit: number, offset: number): Promise<CustomerRow[]> {
    const conditions: SQL[] = [eq(customers.merchantId, merchantId), eq(customers.livemode, livemode), ...createdWithin(customers.createdAt, period), ...after];
    if (filters.reference) {
      const byReference = like(customers.referenceId, `${escapeLike(filters.reference)}%`);
      conditions.push(filters.reference.startsWith('cus_') ? (or(byReference, eq(customers.id, filters.reference)) as SQL) : byReference);
    }
    if (filters.email !== undefined) {
      const lookups = deps.customers.emailLookupsFor(merchantId, filters.email);
      conditions.push(lookups.length > 0 ? inArray(customers.emailLookup, lookups) : sql`false`);
    }
    if (filters.kycStatus) {
      conditions.push(eq(customers.kycStatus, filters.kycStatus));
    }
    return database.db
      .select({ id: customers.id, referenceId: customers.referenceId, kycStatus: customers.kycStatus, createdAt: customers.createdAt })
      .from(customers)
      .where(and(...conditions))
      .orderBy(desc(customers.createdAt), desc(customers.id))
      .limit(limit)
      .offset(offset);
  }

  /** The rows with the name and e-mail decrypted for them only (one read of their sealed records). */
  async function withContacts(merchantId: string, rows: CustomerRow[]): Promise<CustomerListRowView[]> {
    if (rows.length === 0) {
      return [];
    }
    const contacts = await deps.customers.displayContacts(database.db, merchantId, rows.map((row) => row.id));
    return rows.map((row) => ({ ...row, name: contacts.get(row.id)?.name ?? null, email: contacts.get(row.id)?.email ?? null }));
  }

  /** Whether the customer is the merchant's, in this mode. */
  async function exists(merchantId: string, livemode: boolean, customerId: string): Promise<boolean> {
    const [row] = await database.db
      .select({ id: customers.id })
      .from(customers)
      .where(and(eq(customers.id, customerId), eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)));
    return row !== undefined;
  }

  const exportStory: StoryExport = async (list, merchantId, livemode, customerId, period) => ((await exists(merchantId, livemode, customerId)) ? story.every(list, merchantId, livemode, customerId, period) : null);

  return {
    exportStory,

    async list(merchantId: string, livemode: boolean, filters: CustomerFilters, page: number, period: CreatedRange = {}): Promise<PageOf<CustomerListRowView>> {
      const rows = await readPage(page, (limit, offset) => customerRows(merchantId, livemode, filters, period, [], limit, offset));
      return { ...rows, items: await withContacts(merchantId, rows.items) };
    },

    /** Every customer the filters select, newest first, with the name and e-mail the list shows (decrypted a batch at a time): the CSV export. */
    async *exportRows(merchantId: string, livemode: boolean, filters: CustomerFilters, period: CreatedRange): AsyncGenerator<CustomerListRowView> {
      let batch: CustomerRow[] = [];
      for await (const row of everyRow({ createdAt: customers.createdAt, id: customers.id }, (after, limit) => customerRows(merchantId, livemode, filters, period, after, limit, 0))) {
        batch.push(row);
        if (batch.length === exportBatch) {
          yield* await withContacts(merchantId, batch);
          batch = [];
        }
      }
      yield* await withContacts(merchantId, batch);
    },

    /** The customer with the latest of each of their lists created in `period`; null outside the merchant and mode. */
    async detail(merchantId: string, livemode: boolean, customerId: string, period: CreatedRange = {}): Promise<CustomerDetailView | null> {
      const [row] = await database.db
        .select()
        .from(customers)
        .where(and(eq(customers.id, customerId), eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)));
      if (!row) {
        return null;
      }
      const { verifications, ...latest } = await story.latest(merchantId, livemode, row.id, period);
      const contact = await deps.customers.contactOf(database.db, row.id);
      return {
        id: row.id,
        referenceId: row.referenceId,
        kycStatus: row.kycStatus,
        createdAt: row.createdAt,
        signupAt: row.signupAt,
        email: contact.email,
        erasedAt: row.erasedAt,
        supportedPaymentMethods: row.supportedPaymentMethods,
        supportedPayoutMethods: row.supportedPayoutMethods,
        verifications,
        story: latest,
      };
    },
  };
}

/** Every row of one of the customer's lists created in `period`, newest first (its CSV); null when the customer is not the merchant's in this mode. */
export type StoryExport = (list: StoryList, merchantId: string, livemode: boolean, customerId: string, period: CreatedRange) => Promise<AsyncGenerator<StoryRow> | null>;

export type CustomersPresenter = ReturnType<typeof createCustomersPresenter>;
