import { and, desc, eq, not, sql, type SQL } from 'drizzle-orm';
import type { Database } from '../../../db/client.ts';
import { customers, entitlements, invoices, subscriptionStatuses, subscriptions, type SubscriptionStatus } from '../../../db/schema/index.ts';
import type { Merchant } from '../../merchants/index.ts';
import type { SubscriptionsService } from '../../subscriptions/index.ts';
import { createdWithin, everyRow, readPage, type CreatedRange, type PageOf } from './pagination.ts';

export interface SubscriptionRowView {
  id: string;
  productId: string;
  customerId: string;
  customerReferenceId: string;
  status: SubscriptionStatus;
  cancelAtPeriodEnd: boolean;
  amount: number;
  currency: string;
  interval: string;
  intervalCount: number;
  currentPeriodEnd: Date;
  createdAt: Date;
}

export interface EntitlementRowView {
  id: string;
  productId: string;
  subscriptionId: string;
  customerId: string;
  customerReferenceId: string | null;
  startPeriod: Date;
  endPeriod: Date;
  /** Whether it grants access now: startPeriod ≤ now < endPeriod (docs/API.md §11). */
  active: boolean;
  createdAt: Date;
}

export interface EntitlementFilters {
  subscriptionId?: string;
  customerId?: string;
  isActive?: boolean;
}

/** An invoice as the subscription's screen lists it (and its CSV holds it). */
export interface InvoiceRowView {
  id: string;
  periodNumber: number;
  amount: number;
  currency: string;
  periodStart: Date;
  periodEnd: Date;
  paidAt: Date;
  paymentId: string;
  createdAt: Date;
}

export function parseSubscriptionStatus(raw: unknown): SubscriptionStatus | undefined {
  return typeof raw === 'string' && (subscriptionStatuses as readonly string[]).includes(raw) ? (raw as SubscriptionStatus) : undefined;
}

/** Read model of the subscription and entitlement screens, scoped by merchant and mode. */
export function createSubscriptionsPresenter(deps: { database: Database; subscriptions: SubscriptionsService }) {
  const { database } = deps;

  /** isActive at `now`: startPeriod ≤ now < endPeriod (docs/API.md §11). */
  function activeAt(now: Date): SQL<boolean> {
    const at = now.toISOString();
    return sql<boolean>`(${entitlements.startPeriod} <= ${at}::timestamptz and ${entitlements.endPeriod} > ${at}::timestamptz)`;
  }

  function entitlementRows(conditions: SQL[], now: Date, limit: number, offset: number): Promise<EntitlementRowView[]> {
    return database.db
      .select({
        id: entitlements.id,
        productId: entitlements.productId,
        subscriptionId: entitlements.subscriptionId,
        customerId: entitlements.customerId,
        customerReferenceId: customers.referenceId,
        startPeriod: entitlements.startPeriod,
        endPeriod: entitlements.endPeriod,
        active: activeAt(now),
        createdAt: entitlements.createdAt,
      })
      .from(entitlements)
      .leftJoin(customers, eq(customers.id, entitlements.customerId))
      .where(and(...conditions))
      .orderBy(desc(entitlements.createdAt), desc(entitlements.id))
      .limit(limit)
      .offset(offset);
  }

  /** The entitlements list's conditions: merchant, mode, the filters and the creation period. */
  function entitlementConditions(merchantId: string, livemode: boolean, filters: EntitlementFilters, period: CreatedRange, now: Date): SQL[] {
    const conditions: SQL[] = [eq(entitlements.merchantId, merchantId), eq(entitlements.livemode, livemode), ...createdWithin(entitlements.createdAt, period)];
    if (filters.subscriptionId) {
      conditions.push(eq(entitlements.subscriptionId, filters.subscriptionId));
    }
    if (filters.customerId) {
      conditions.push(eq(entitlements.customerId, filters.customerId));
    }
    if (filters.isActive !== undefined) {
      conditions.push(filters.isActive ? activeAt(now) : not(activeAt(now)));
    }
    return conditions;
  }

  function rows(merchantId: string, livemode: boolean, filters: { status?: SubscriptionStatus }, period: CreatedRange, after: SQL[], limit: number, offset: number): Promise<SubscriptionRowView[]> {
    const conditions: SQL[] = [eq(subscriptions.merchantId, merchantId), eq(subscriptions.livemode, livemode), ...createdWithin(subscriptions.createdAt, period), ...after];
    if (filters.status) {
      conditions.push(eq(subscriptions.status, filters.status));
    }
    return database.db
      .select({
        id: subscriptions.id,
        productId: subscriptions.productId,
        customerId: subscriptions.customerId,
        customerReferenceId: customers.referenceId,
        status: subscriptions.status,
        cancelAtPeriodEnd: subscriptions.cancelAtPeriodEnd,
        amount: subscriptions.amount,
        currency: subscriptions.currency,
        interval: subscriptions.interval,
        intervalCount: subscriptions.intervalCount,
        currentPeriodEnd: subscriptions.currentPeriodEnd,
        createdAt: subscriptions.createdAt,
      })
      .from(subscriptions)
      .innerJoin(customers, eq(customers.id, subscriptions.customerId))
      .where(and(...conditions))
      .orderBy(desc(subscriptions.createdAt), desc(subscriptions.id))
      .limit(limit)
      .offset(offset);
  }

  /** A subscription's invoices created in `period`, newest period first on the screen, newest created first for the CSV's keyset. */
  function invoiceRows(merchantId: string, livemode: boolean, subscriptionId: string, period: CreatedRange, after: SQL[], order: 'period' | 'created', limit: number, offset: number): Promise<InvoiceRowView[]> {
    return database.db
      .select({
        id: invoices.id,
        periodNumber: invoices.periodNumber,
        amount: invoices.amount,
        currency: invoices.currency,
        periodStart: invoices.periodStart,
        periodEnd: invoices.periodEnd,
        paidAt: invoices.paidAt,
        paymentId: invoices.paymentId,
        createdAt: invoices.createdAt,
      })
      .from(invoices)
      .where(and(eq(invoices.subscriptionId, subscriptionId), eq(invoices.merchantId, merchantId), eq(invoices.livemode, livemode), ...createdWithin(invoices.createdAt, period), ...after))
      .orderBy(...(order === 'period' ? [desc(invoices.periodNumber), desc(invoices.id)] : [desc(invoices.createdAt), desc(invoices.id)]))
      .limit(limit)
      .offset(offset);
  }

  return {
    async list(merchantId: string, livemode: boolean, filters: { status?: SubscriptionStatus }, page: number, period: CreatedRange = {}): Promise<PageOf<SubscriptionRowView>> {
      return readPage(page, (limit, offset) => rows(merchantId, livemode, filters, period, [], limit, offset));
    },

    /** Every row of the list with the same filters, newest first (the CSV export). */
    exportRows(merchantId: string, livemode: boolean, filters: { status?: SubscriptionStatus }, period: CreatedRange): AsyncGenerator<SubscriptionRowView> {
      return everyRow({ createdAt: subscriptions.createdAt, id: subscriptions.id }, (after, limit) => rows(merchantId, livemode, filters, period, after, limit, 0));
    },

    /**
     * The subscription as the API reads it, with one page of its invoices (newest period first) and
     * one of its entitlements; NOT_FOUND outside the merchant and mode.
     */
    async detail(merchant: Merchant, livemode: boolean, subscriptionId: string, now: Date, pages: { invoices: number; entitlements: number } = { invoices: 1, entitlements: 1 }, period: CreatedRange = {}) {
      const subscription = await deps.subscriptions.getSubscription(merchant, livemode, subscriptionId);
      const [customer] = await database.db
        .select({ referenceId: customers.referenceId })
        .from(customers)
        .where(and(eq(customers.id, subscription.customerId), eq(customers.merchantId, merchant.id), eq(customers.livemode, livemode)));
      const invoicePage = await readPage(pages.invoices, (limit, offset) => invoiceRows(merchant.id, livemode, subscription.id, period, [], 'period', limit, offset));
      const entitlementPage = await readPage(pages.entitlements, (limit, offset) =>
        entitlementRows(entitlementConditions(merchant.id, livemode, { subscriptionId: subscription.id }, period, now), now, limit, offset),
      );
      return { subscription, customerReferenceId: customer?.referenceId ?? null, invoices: invoicePage, entitlements: entitlementPage, now };
    },

    /** Every invoice of the subscription created in `period`, newest first (its CSV); NOT_FOUND outside the merchant and mode. */
    async exportInvoices(merchant: Merchant, livemode: boolean, subscriptionId: string, period: CreatedRange): Promise<AsyncGenerator<InvoiceRowView>> {
      const subscription = await deps.subscriptions.getSubscription(merchant, livemode, subscriptionId);
      return everyRow({ createdAt: invoices.createdAt, id: invoices.id }, (after, limit) => invoiceRows(merchant.id, livemode, subscription.id, period, after, 'created', limit, 0));
    },

    /** Every entitlement of the subscription created in `period`, newest first (its CSV); NOT_FOUND outside the merchant and mode. */
    async exportSubscriptionEntitlements(merchant: Merchant, livemode: boolean, subscriptionId: string, period: CreatedRange, now: Date): Promise<AsyncGenerator<EntitlementRowView>> {
      const subscription = await deps.subscriptions.getSubscription(merchant, livemode, subscriptionId);
      const conditions = entitlementConditions(merchant.id, livemode, { subscriptionId: subscription.id }, period, now);
      return everyRow({ createdAt: entitlements.createdAt, id: entitlements.id }, (after, limit) => entitlementRows([...conditions, ...after], now, limit, 0));
    },

    entitlements(merchantId: string, livemode: boolean, filters: EntitlementFilters, page: number, now: Date, period: CreatedRange = {}): Promise<PageOf<EntitlementRowView>> {
      const conditions = entitlementConditions(merchantId, livemode, filters, period, now);
      return readPage(page, (limit, offset) => entitlementRows(conditions, now, limit, offset));
    },

    /** Every entitlement the filters select, newest first (the CSV export). */
    exportEntitlements(merchantId: string, livemode: boolean, filters: EntitlementFilters, period: CreatedRange, now: Date): AsyncGenerator<EntitlementRowView> {
      const conditions = entitlementConditions(merchantId, livemode, filters, period, now);
      return everyRow({ createdAt: entitlements.createdAt, id: entitlements.id }, (after, limit) => entitlementRows([...conditions, ...after], now, limit, 0));
    },
  };
}

export type SubscriptionsPresenter = ReturnType<typeof createSubscriptionsPresenter>;
