import { and, desc, eq, like, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { customers, kycStatuses, kycVerifications, type KycStatus } from '../../../db/schema/index.ts';
import type { CustomersService } from '../../customers/service.ts';
import { readPage, type PageOf } from './pagination.ts';

export interface CustomerFilters {
  /** Prefix of the referenceId (case-sensitive, as referenceIds are). */
  reference?: string;
  kycStatus?: KycStatus;
}

export interface CustomerRowView {
  id: string;
  referenceId: string;
  kycStatus: KycStatus;
  createdAt: Date;
}

export interface CustomerDetailView extends CustomerRowView {
  email: string | null;
  /** Set once the customer was erased: nothing personal is left to show. */
  erasedAt: Date | null;
  signupAt: Date;
  supportedPaymentMethods: string[] | null;
  supportedPayoutMethods: string[] | null;
  verifications: Array<{ id: string; provider: string; status: string; reason: string | null; createdAt: Date; decidedAt: Date | null }>;
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

  return {
    async list(merchantId: string, livemode: boolean, filters: CustomerFilters, page: number): Promise<PageOf<CustomerRowView>> {
      const conditions: SQL[] = [eq(customers.merchantId, merchantId), eq(customers.livemode, livemode)];
      if (filters.reference) {
        conditions.push(like(customers.referenceId, `${escapeLike(filters.reference)}%`));
      }
      if (filters.kycStatus) {
        conditions.push(eq(customers.kycStatus, filters.kycStatus));
      }
      return readPage(page, (limit, offset) =>
        database.db
          .select({ id: customers.id, referenceId: customers.referenceId, kycStatus: customers.kycStatus, createdAt: customers.createdAt })
          .from(customers)
          .where(and(...conditions))
          .orderBy(desc(customers.createdAt), desc(customers.id))
          .limit(limit)
          .offset(offset),
      );
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
      };
    },
  };
}

export type CustomersPresenter = ReturnType<typeof createCustomersPresenter>;
