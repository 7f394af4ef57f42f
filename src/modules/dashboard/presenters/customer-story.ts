import { and, desc, eq, type SQL } from 'drizzle-orm';
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

/**
 * Read model of a customer's lists (payout pages, payments, subscriptions, refunds, identity
 * verifications): one query per list, scoped by merchant, mode and customer, the creation period
 * applied, newest first; the screen reads the latest `storyLimit` of each, the CSV every row in
 * keyset batches. The caller has found the customer in this merchant and mode.
 */
export function createCustomerStory(database: Database) {
  const readers = {
    'payout-pages': (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) =>
      database.db
        .select({ id: payoutPages.id, clientReferenceId: payoutPages.clientReferenceId, amount: payoutPages.amount, currency: payoutPages.fundingCurrency, status: payoutPages.status, subStatus: payoutPages.subStatus, createdAt: payoutPages.createdAt })
        .from(payoutPages)
        .where(and(eq(payoutPages.customerId, customerId), eq(payoutPages.merchantId, merchantId), eq(payoutPages.livemode, livemode), ...createdWithin(payoutPages.createdAt, period), ...after))
        .orderBy(desc(payoutPages.createdAt), desc(payoutPages.id))
        .limit(limit),
    'payment-pages': (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) =>
      database.db
        .select({ id: paymentPages.id, clientReferenceId: paymentPages.clientReferenceId, amount: paymentPages.amount, currency: paymentPages.currency, status: paymentPages.status, createdAt: paymentPages.createdAt })
        .from(paymentPages)
        .where(and(eq(paymentPages.customerId, customerId), eq(paymentPages.merchantId, merchantId), eq(paymentPages.livemode, livemode), ...createdWithin(paymentPages.createdAt, period), ...after))
        .orderBy(desc(paymentPages.createdAt), desc(paymentPages.id))
        .limit(limit),
    subscriptions: (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) =>
      database.db
        .select({ id: subscriptions.id, productId: subscriptions.productId, amount: subscriptions.amount, currency: subscriptions.currency, status: subscriptions.status, createdAt: subscriptions.createdAt })
        .from(subscriptions)
        .where(and(eq(subscriptions.customerId, customerId), eq(subscriptions.merchantId, merchantId), eq(subscriptions.livemode, livemode), ...createdWithin(subscriptions.createdAt, period), ...after))
        .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
        .limit(limit),
    refunds: (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) =>
      database.db
        .select({ id: refunds.id, paymentPageId: refunds.paymentPageId, amount: refunds.amount, currency: refunds.currency, status: refunds.status, createdAt: refunds.createdAt })
        .from(refunds)
        .innerJoin(paymentPages, eq(paymentPages.id, refunds.paymentPageId))
        .where(and(eq(paymentPages.customerId, customerId), eq(refunds.merchantId, merchantId), eq(refunds.livemode, livemode), ...createdWithin(refunds.createdAt, period), ...after))
        .orderBy(desc(refunds.createdAt), desc(refunds.id))
        .limit(limit),
    verifications: (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number): Promise<VerificationRowView[]> =>
      database.db
        .select({ id: kycVerifications.id, provider: kycVerifications.provider, status: kycVerifications.status, reason: kycVerifications.reason, createdAt: kycVerifications.createdAt, decidedAt: kycVerifications.decidedAt })
        .from(kycVerifications)
        .where(and(eq(kycVerifications.customerId, customerId), eq(kycVerifications.merchantId, merchantId), eq(kycVerifications.livemode, livemode), ...createdWithin(kycVerifications.createdAt, period), ...after))
        .orderBy(desc(kycVerifications.createdAt), desc(kycVerifications.id))
        .limit(limit),
  } satisfies Record<StoryList, (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) => Promise<StoryRow[]>>;

  const columnsOf = {
    'payout-pages': { createdAt: payoutPages.createdAt, id: payoutPages.id },
    'payment-pages': { createdAt: paymentPages.createdAt, id: paymentPages.id },
    subscriptions: { createdAt: subscriptions.createdAt, id: subscriptions.id },
    refunds: { createdAt: refunds.createdAt, id: refunds.id },
    verifications: { createdAt: kycVerifications.createdAt, id: kycVerifications.id },
  } as const;

  return {
    /** The latest `storyLimit` of each kind created in `period`, and every identity verification in it (a customer has a handful). */
    async latest(merchantId: string, livemode: boolean, customerId: string, period: CreatedRange): Promise<CustomerStoryView & { verifications: VerificationRowView[] }> {
      const read = <K extends StoryList>(list: K, limit = storyLimit) => readers[list](merchantId, livemode, customerId, period, [], limit) as ReturnType<(typeof readers)[K]>;
      const [payouts, payments, subscribed, refunded, verifications] = await Promise.all([read('payout-pages'), read('payment-pages'), read('subscriptions'), read('refunds'), read('verifications', 1_000)]);
      return { payoutPages: payouts, paymentPages: payments, subscriptions: subscribed, refunds: refunded, verifications };
    },

    /** Every row of one of the customer's lists created in `period`, newest first (its CSV). */
    every(list: StoryList, merchantId: string, livemode: boolean, customerId: string, period: CreatedRange): AsyncGenerator<StoryRow> {
      const read = readers[list] as (merchantId: string, livemode: boolean, customerId: string, period: CreatedRange, after: SQL[], limit: number) => Promise<StoryRow[]>;
      return everyRow(columnsOf[list], (after, limit) => read(merchantId, livemode, customerId, period, after, limit));
    },
  };
}
