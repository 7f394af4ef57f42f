import type { Api } from '../../../http/types.ts';
import type { Clock } from '../../../clock.ts';
import type { SubscriptionsService } from '../../subscriptions/index.ts';
import { field, noticeOf, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseSubscriptionStatus, type EntitlementFilters, type SubscriptionsPresenter } from '../presenters/subscriptions.ts';
import { EntitlementsPage, SubscriptionPage, SubscriptionsPage } from '../pages/subscriptions.tsx';
import { cancelSubscriptionConfirmation } from '../pages/confirmations.tsx';
import { confirmThenRun } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';

/** The subscriptions CSV: the list's columns, amounts in minor units as the API gives them. */
export const subscriptionCsvColumns = ['id', 'productId', 'customerId', 'customerReferenceId', 'status', 'cancelAtPeriodEnd', 'amount', 'currency', 'interval', 'intervalCount', 'currentPeriodEnd', 'createdAt'] as const;

/** The entitlements CSV: the list's columns, `active` as of the download. */
export const entitlementCsvColumns = ['id', 'productId', 'subscriptionId', 'customerId', 'customerReferenceId', 'startPeriod', 'endPeriod', 'active', 'createdAt'] as const;

/** A subscription's invoices CSV: what its screen lists of each, amounts in minor units. */
export const invoiceCsvColumns = ['id', 'periodNumber', 'amount', 'currency', 'periodStart', 'periodEnd', 'paidAt', 'paymentId', 'createdAt'] as const;

export function registerSubscriptionScreens(web: Api, tools: ScreenTools, deps: { presenter: SubscriptionsPresenter; subscriptions: SubscriptionsService; clock: Clock }): void {
  const { presenter } = deps;

  web.get('/:mode/subscriptions', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parseSubscriptionStatus(field(request.query, 'status', 20));
    const period = parseListPeriod(request.query);
    const result = await presenter.list(view.session.merchant.id, view.livemode, status ? { status } : {}, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => SubscriptionsPage({ frame, status, period, result }));
  });

  web.get('/:mode/subscriptions/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parseSubscriptionStatus(field(request.query, 'status', 20));
    const rows = presenter.exportRows(view.session.merchant.id, view.livemode, status ? { status } : {}, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `subscriptions-${view.mode}.csv`, columns: subscriptionCsvColumns, rows });
  });

  web.get('/:mode/subscriptions/:subscriptionId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const pages = { invoices: parsePage(field(request.query, 'invoicesPage', 5)), entitlements: parsePage(field(request.query, 'entitlementsPage', 5)) };
    const period = parseListPeriod(request.query);
    const detail = await presenter.detail(view.session.merchant, view.livemode, param(request, 'subscriptionId'), deps.clock.now(), pages, period);
    return view.page((frame) => SubscriptionPage({ frame, ...detail, period, ...noticeOf(request) }));
  });

  web.get('/:mode/subscriptions/:subscriptionId/invoices/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await presenter.exportInvoices(view.session.merchant, view.livemode, param(request, 'subscriptionId'), parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `subscription-invoices-${view.mode}.csv`, columns: invoiceCsvColumns, rows });
  });

  web.get('/:mode/subscriptions/:subscriptionId/entitlements/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = await presenter.exportSubscriptionEntitlements(view.session.merchant, view.livemode, param(request, 'subscriptionId'), parseListPeriod(request.query), deps.clock.now());
    return sendCsv(request, reply, { filename: `subscription-entitlements-${view.mode}.csv`, columns: entitlementCsvColumns, rows });
  });

  web.post('/:mode/subscriptions/:subscriptionId/cancel', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'subscriptionId');
    const back = modePath(view.mode, `/subscriptions/${encodeURIComponent(id)}`);
    return confirmThenRun(view, request, reply, {
      section: 'subscriptions',
      back,
      confirmation: async () => {
        const detail = await deps.presenter.detail(view.session.merchant, view.livemode, id, deps.clock.now());
        return cancelSubscriptionConfirmation(detail.subscription, detail.customerReferenceId);
      },
      notice: 'subscription-canceled',
      action: () => deps.subscriptions.cancelSubscription(view.session.merchant, view.livemode, id),
    });
  });

  web.post('/:mode/subscriptions/:subscriptionId/renew', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'subscriptionId');
    return runAction(reply, modePath(view.mode, `/subscriptions/${encodeURIComponent(id)}`), 'subscription-renewed', () => deps.subscriptions.renewNow(view.session.merchant, view.livemode, id));
  });

  web.get('/:mode/entitlements', async (request, reply) => {
    const view = screen(tools, request, reply);
    const filters = entitlementFiltersOf(request.query);
    const period = parseListPeriod(request.query);
    const result = await presenter.entitlements(view.session.merchant.id, view.livemode, filters, parsePage(field(request.query, 'page', 5)), deps.clock.now(), period);
    return view.page((frame) => EntitlementsPage({ frame, filters, period, result }));
  });

  web.get('/:mode/entitlements/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const rows = presenter.exportEntitlements(view.session.merchant.id, view.livemode, entitlementFiltersOf(request.query), parseListPeriod(request.query), deps.clock.now());
    return sendCsv(request, reply, { filename: `entitlements-${view.mode}.csv`, columns: entitlementCsvColumns, rows });
  });
}

/** The entitlements list's filters from its query (ids as typed, `active` true or false; anything else is no filter). */
function entitlementFiltersOf(query: unknown): EntitlementFilters {
  const filters: EntitlementFilters = {};
  const customerId = field(query, 'customerId', 100).trim();
  const subscriptionId = field(query, 'subscriptionId', 100).trim();
  const active = field(query, 'active', 5);
  if (customerId) {
    filters.customerId = customerId;
  }
  if (subscriptionId) {
    filters.subscriptionId = subscriptionId;
  }
  if (active === 'true' || active === 'false') {
    filters.isActive = active === 'true';
  }
  return filters;
}
