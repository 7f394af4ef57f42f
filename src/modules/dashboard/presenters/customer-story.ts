import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { AnyPgColumn, PgSelect } from 'drizzle-orm/pg-core';
import type { Database } from '../../../db/client.ts';
import { kycVerifications, paymentPages, payoutPages, refunds, subscriptions } from '../../../db/schema/index.ts';
import { createdWithin, everyRow, type CreatedRange } from './pagination.ts';

/** Everything the customer did with the merchant in this mode, newest first (the latest of each kind). */
export interface CustomerStoryView {
  payoutPages: Array<{ id: string; clientReferenceId: string; amount: number; currency: string; status: string; subStatus: string; createdAt: Date }>;
  paymentPages: Array<{ id: string; clientReferenceId: string; amount: number; currency: string; status: string; createdAt: Date }>;
  subscriptions: Array<{ id: string; productId: string; amount: number; currency: string; status: string; createdAt: Date }>;
  refunds: Array<{ id: string; paymentPageId: string; amount: number; currency: string; status: string; createdAt: Date }>;
}

export type VerificationRowView = { id: string; provider: string; status: string; reason: string | null; createdAt: Date; decidedAt: Date | null };

/** How many of each kind the customer screen shows (the CSV of each kind holds them all). */
export const storyLimit = 25;

/** The lists of a customer's screen, as their CSV addresses name them (`/customers/:id/<list>/export.csv`). */
export const storyLists = ['payout-pages', 'payment-pages', 'subscriptions', 'refunds', 'verifications'] as const;
export type StoryList = (typeof storyLists)[number];

/** Each list's CSV columns: the columns its table on the customer screen shows, with the ids its links carry. */
export const storyCsvColumns = {
  'payout-pages': ['id', 'clientReferenceId', 'amount', 'currency', 'status', 'subStatus', 'createdAt'],
  'payment-pages': ['id', 'clientReferenceId', 'amount', 'currency', 'status', 'createdAt'],
  subscriptions: ['id', 'productId', 'amount', 'currency', 'status', 'createdAt'],
  refunds: ['id', 'paymentPageId', 'amount', 'currency', 'status', 'createdAt'],
  verifications: ['id', 'provider', 'status', 'reason', 'createdAt', 'decidedAt'],
} as const satisfies Record<StoryList, readonly string[]>;

/** A row of any of the lists (its CSV names the columns). */
export type StoryRow = { id: string; createdAt: Date } & Record<string, unknown>;

/** What one read of a customer's list asks: whose rows, which period, after which row, how many. */
interface StoryQuery {
  merchantId: string;
  livemode: boolean;
  customerId: string;
  period: CreatedRange;
  /** The keyset position of the next batch (`everyRow`), or nothing for the newest rows. */
  after: SQL[];
  limit: number;
}

/** The columns that scope a list to one customer of one merchant in one mode and order it. */
interface StoryColumns {
  customerId: AnyPgColumn;
  merchantId: AnyPgColumn;
  livemode: AnyPgColumn;
  createdAt: AnyPgColumn;
  id: AnyPgColumn;
}

/** A list's rows of the customer in the period, after the keyset position, newest first. */
function newestOfCustomer<Select extends PgSelect>(select: Select, columns: StoryColumns, query: StoryQuery) {
  return select
    .where(and(eq(columns.customerId, query.customerId), eq(columns.merchantId, query.merchantId), eq(columns.livemode, query.livemode), ...createdWithin(columns.createdAt, query.period), ...query.after))
    .orderBy(desc(columns.createdAt), desc(columns.id))
    .limit(query.limit);
}

/**
 * Read model of a customer's lists (payout pages, payments, subscriptions, refunds, identity
 * verifications): one query per list, scoped by merchant, mode and customer, the creation period
 * applied, newest first; the screen reads the latest `storyLimit` of each, the CSV every row in
 * keyset batches. The caller has found the customer in this merchant and mode.
 */
export function createCustomerStory(database: Database) {
  const columnsOf = {
    'payout-pages': payoutPages,
    'payment-pages': paymentPages,
    subscriptions,
    // A refund belongs to the customer of its payment page.
    refunds: { customerId: paymentPages.customerId, merchantId: refunds.merchantId, livemode: refunds.livemode, createdAt: refunds.createdAt, id: refunds.id },
    verifications: kycVerifications,
  } as const satisfies Record<StoryList, StoryColumns>;

  const readers = {
    'payout-pages': (query: StoryQuery) =>
      newestOfCustomer(
        database.db
          .select({ id: payoutPages.id, clientReferenceId: payoutPages.clientReferenceId, amount: payoutPages.amount, currency: payoutPages.fundingCurrency, status: payoutPages.status, subStatus: payoutPages.subStatus, createdAt: payoutPages.createdAt })
          .from(payoutPages)
          .$dynamic(),
        columnsOf['payout-pages'],
        query,
      ),
    'payment-pages': (query: StoryQuery) =>
      newestOfCustomer(
        database.db
          .select({ id: paymentPages.id, clientReferenceId: paymentPages.clientReferenceId, amount: paymentPages.amount, currency: paymentPages.currency, status: paymentPages.status, createdAt: paymentPages.createdAt })
          .from(paymentPages)
          .$dynamic(),
        columnsOf['payment-pages'],
        query,
      ),
    subscriptions: (query: StoryQuery) =>
      newestOfCustomer(
        database.db
          .select({ id: subscriptions.id, productId: subscriptions.productId, amount: subscriptions.amount, currency: subscriptions.currency, status: subscriptions.status, createdAt: subscriptions.createdAt })
          .from(subscriptions)
          .$dynamic(),
        columnsOf.subscriptions,
        query,
      ),
    refunds: (query: StoryQuery) =>
      newestOfCustomer(
        database.db
          .select({ id: refunds.id, paymentPageId: refunds.paymentPageId, amount: refunds.amount, currency: refunds.currency, status: refunds.status, createdAt: refunds.createdAt })
          .from(refunds)
          .innerJoin(paymentPages, eq(paymentPages.id, refunds.paymentPageId))
          .$dynamic(),
        columnsOf.refunds,
        query,
      ),
    verifications: (query: StoryQuery): Promise<VerificationRowView[]> =>
      newestOfCustomer(
        database.db
          .select({ id: kycVerifications.id, provider: kycVerifications.provider, status: kycVerifications.status, reason: kycVerifications.reason, createdAt: kycVerifications.createdAt, decidedAt: kycVerifications.decidedAt })
          .from(kycVerifications)
          .$dynamic(),
        columnsOf.verifications,
        query,
      ),
  } satisfies Record<StoryList, (query: StoryQuery) => Promise<StoryRow[]>>;

  return {
    /** The latest `storyLimit` of each kind created in `period`, and every identity verification in it (a customer has a handful). */
    async latest(merchantId: string, livemode: boolean, customerId: string, period: CreatedRange): Promise<CustomerStoryView & { verifications: VerificationRowView[] }> {
      const read = <K extends StoryList>(list: K, limit = storyLimit) => readers[list]({ merchantId, livemode, customerId, period, after: [], limit }) as ReturnType<(typeof readers)[K]>;
      const [payouts, payments, subscribed, refunded, verifications] = await Promise.all([read('payout-pages'), read('payment-pages'), read('subscriptions'), read('refunds'), read('verifications', 1_000)]);
      return { payoutPages: payouts, paymentPages: payments, subscriptions: subscribed, refunds: refunded, verifications };
    },

    /** Every row of one of the customer's lists created in `period`, newest first (its CSV). */
    every(list: StoryList, merchantId: string, livemode: boolean, customerId: string, period: CreatedRange): AsyncGenerator<StoryRow> {
      const read = readers[list] as (query: StoryQuery) => Promise<StoryRow[]>;
      return everyRow(columnsOf[list], (after, limit) => read({ merchantId, livemode, customerId, period, after, limit }));
    },
  };
}
