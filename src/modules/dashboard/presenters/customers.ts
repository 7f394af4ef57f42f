import { and, desc, eq, inArray, like, or, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { customers, kycStatuses, kycVerifications, paymentPages, payoutPages, refunds, subscriptions, type KycStatus } from '../../../db/schema/index.ts';
import type { CustomersService } from '../../customers/index.ts';
import { readPage, type PageOf } from './pagination.ts';

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

/** Everything the customer did with the merchant in this mode, newest first (the latest of each kind). */
export interface CustomerStoryView {
  payoutPages: Array<{ id: string; clientReferenceId: string; amount: number; currency: string; status: string; subStatus: string; createdAt: Date }>;
  paymentPages: Array<{ id: string; clientReferenceId: string; amount: number; currency: string; status: string; createdAt: Date }>;
  subscriptions: Array<{ id: string; productId: string; amount: number; currency: string; status: string; createdAt: Date }>;
  refunds: Array<{ id: string; paymentPageId: string; amount: number; currency: string; status: string; createdAt: Date }>;
}

/** How many of each kind the customer screen shows. */
export const storyLimit = 25;

export interface CustomerDetailView extends CustomerRowView {
  email: string | null;
  /** Set once the customer was erased: nothing personal is left to show. */
  erasedAt: Date | null;
  signupAt: Date;
  supportedPaymentMethods: string[] | null;
  supportedPayoutMethods: string[] | null;
  verifications: Array<{ id: string; provider: string; status: string; reason: string | null; createdAt: Date; decidedAt: Date | null }>;
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

  async function storyOf(merchantId: string, livemode: boolean, customerId: string): Promise<CustomerStoryView> {
    const [payouts, payments, subscribed, refunded] = await Promise.all([
      database.db
        .select({ id: payoutPages.id, clientReferenceId: payoutPages.clientReferenceId, amount: payoutPages.amount, currency: payoutPages.fundingCurrency, status: payoutPages.status, subStatus: payoutPages.subStatus, createdAt: payoutPages.createdAt })
        .from(payoutPages)
        .where(and(eq(payoutPages.customerId, customerId), eq(payoutPages.merchantId, merchantId), eq(payoutPages.livemode, livemode)))
        .orderBy(desc(payoutPages.createdAt), desc(payoutPages.id))
        .limit(storyLimit),
      database.db
        .select({ id: paymentPages.id, clientReferenceId: paymentPages.clientReferenceId, amount: paymentPages.amount, currency: paymentPages.currency, status: paymentPages.status, createdAt: paymentPages.createdAt })
        .from(paymentPages)
        .where(and(eq(paymentPages.customerId, customerId), eq(paymentPages.merchantId, merchantId), eq(paymentPages.livemode, livemode)))
        .orderBy(desc(paymentPages.createdAt), desc(paymentPages.id))
        .limit(storyLimit),
      database.db
        .select({ id: subscriptions.id, productId: subscriptions.productId, amount: subscriptions.amount, currency: subscriptions.currency, status: subscriptions.status, createdAt: subscriptions.createdAt })
        .from(subscriptions)
        .where(and(eq(subscriptions.customerId, customerId), eq(subscriptions.merchantId, merchantId), eq(subscriptions.livemode, livemode)))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(storyLimit),
      database.db
        .select({ id: refunds.id, paymentPageId: refunds.paymentPageId, amount: refunds.amount, currency: refunds.currency, status: refunds.status, createdAt: refunds.createdAt })
        .from(refunds)
        .innerJoin(paymentPages, eq(paymentPages.id, refunds.paymentPageId))
        .where(and(eq(paymentPages.customerId, customerId), eq(refunds.merchantId, merchantId), eq(refunds.livemode, livemode)))
        .orderBy(desc(refunds.createdAt), desc(refunds.id))
        .limit(storyLimit),
    ]);
    return { payoutPages: payouts, paymentPages: payments, subscriptions: subscribed, refunds: refunded };
  }

  return {
    async list(merchantId: string, livemode: boolean, filters: CustomerFilters, page: number): Promise<PageOf<CustomerListRowView>> {
      const conditions: SQL[] = [eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)];
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
      const rows = await readPage(page, (limit, offset) =>
        database.db
          .select({ id: customers.id, referenceId: customers.referenceId, kycStatus: customers.kycStatus, createdAt: customers.createdAt })
          .from(customers)
          .where(and(...conditions))
          .orderBy(desc(customers.createdAt), desc(customers.id))
          .limit(limit)
          .offset(offset),
      );
      const contacts = await deps.customers.displayContacts(database.db, merchantId, rows.items.map((row) => row.id));
      return { ...rows, items: rows.items.map((row) => ({ ...row, name: contacts.get(row.id)?.name ?? null, email: contacts.get(row.id)?.email ?? null })) };
    },

    async detail(merchantId: string, livemode: boolean, customerId: string): Promise<CustomerDetailView | null> {
      const [row] = await database.db
        .select()
        .from(customers)
        .where(and(eq(customers.id, customerId), eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)));
      if (!row) {
        return null;
      }
      const verifications = await database.db
        .select({
          id: kycVerifications.id,
          provider: kycVerifications.provider,
          status: kycVerifications.status,
          reason: kycVerifications.reason,
          createdAt: kycVerifications.createdAt,
          decidedAt: kycVerifications.decidedAt,
        })
        .from(kycVerifications)
        .where(and(eq(kycVerifications.customerId, row.id), eq(kycVerifications.merchantId, merchantId)))
        .orderBy(desc(kycVerifications.createdAt));
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
        story: await storyOf(merchantId, livemode, row.id),
      };
    },
  };
}

export type CustomersPresenter = ReturnType<typeof createCustomersPresenter>;
