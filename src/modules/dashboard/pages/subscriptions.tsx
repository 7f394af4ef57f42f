import { subscriptionStatuses, type SubscriptionStatus } from '../../../db/schema/index.ts';
import type { SubscriptionResponse } from '../../subscriptions/index.ts';
import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { EntitlementFilters, EntitlementRowView, InvoiceRowView, SubscriptionRowView } from '../presenters/subscriptions.ts';
import { ActionButton, Badge, DataTable, EmptyState, ExportLink, FilterButtons, Money, Pagination, PeriodFields, PeriodFilter, StatusFilter, Time, mayShow } from './components.tsx';
import { cancelSubscriptionConfirmation } from './confirmations.tsx';
import { statusInWords } from './status-words.ts';
import { DashboardPage, type Frame } from './layout.tsx';
import { IdRow } from './detail-rows.tsx';
import { anyTime, type ListPeriod } from '../date-range.ts';

function every(interval: string, count: number): string {
  const unit = interval.toLowerCase();
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}

export function SubscriptionsPage(props: { frame: Frame; status: SubscriptionStatus | undefined; period: ListPeriod; result: PageOf<SubscriptionRowView> }) {
  const { frame, result } = props;
  const path = modePath(frame.mode, '/subscriptions');
  return (
    <DashboardPage frame={frame} section="subscriptions" title="Subscriptions">
      <h1>Subscriptions</h1>
      <StatusFilter path={path} label="Filter subscriptions" options={subscriptionStatuses} selected={props.status} period={props.period} exportPath={`${path}/export.csv`} />
      {result.items.length === 0 ? (
        props.status ? (
          <EmptyState title={`No subscriptions with the status “${statusInWords(props.status)}”.`}>
            <p>
              <a href={path}>Show every status</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No subscriptions in ${frame.mode} yet.`}>
            <p>
              A payment page created with <code>subscription: {'{productId, interval, intervalCount}'}</code> starts one when it is paid.
            </p>
          </EmptyState>
        )
      ) : (
        <DataTable label="Subscriptions" headers={['Product', 'Customer', 'Price', 'Status', 'Current period ends', 'Created']}>
          {result.items.map((subscription) => (
            <tr>
              <td>
                <a href={modePath(frame.mode, `/subscriptions/${subscription.id}`)}>{subscription.productId}</a>
              </td>
              <td>
                <a href={modePath(frame.mode, `/customers/${subscription.customerId}`)}>{subscription.customerReferenceId}</a>
              </td>
              <td>
                <Money amount={subscription.amount} currency={subscription.currency} /> {every(subscription.interval, subscription.intervalCount)}
              </td>
              <td>
                <Badge value={subscription.status} />
                {subscription.cancelAtPeriodEnd && subscription.status !== 'CANCELED' ? <span class="muted"> ends at period end</span> : null}
              </td>
              <td>
                <Time value={subscription.currentPeriodEnd} />
              </td>
              <td>
                <Time value={subscription.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={path} query={{ status: props.status, from: props.period.from, to: props.period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

function EntitlementsTable(props: { frame: Frame; rows: EntitlementRowView[]; showSubscription: boolean }) {
  return (
    <DataTable label="Entitlements" headers={['Entitlement', 'Product', 'Customer', ...(props.showSubscription ? ['Subscription'] : []), 'From', 'Until', 'Active']}>
      {props.rows.map((row) => (
        <tr>
          <td>
            <code>{row.id}</code>
          </td>
          <td>{row.productId}</td>
          <td>
            <a href={modePath(props.frame.mode, `/customers/${row.customerId}`)}>{row.customerReferenceId ?? row.customerId}</a>
          </td>
          {props.showSubscription ? (
            <td>
              <a href={modePath(props.frame.mode, `/subscriptions/${row.subscriptionId}`)}>{row.subscriptionId}</a>
            </td>
          ) : null}
          <td>
            <Time value={row.startPeriod} />
          </td>
          <td>
            <Time value={row.endPeriod} />
          </td>
          <td>{row.active ? <Badge value="ACTIVE" /> : <span class="muted">no</span>}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function SubscriptionPage(props: {
  frame: Frame;
  subscription: SubscriptionResponse;
  customerReferenceId: string | null;
  invoices: PageOf<InvoiceRowView>;
  entitlements: PageOf<EntitlementRowView>;
  now: Date;
  /** The creation period of the invoices and entitlements listed (none on pages a form answers). */
  period?: ListPeriod;
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { frame, subscription } = props;
  const base = modePath(frame.mode, `/subscriptions/${subscription.id}`);
  const cancellable = subscription.status !== 'CANCELED' && !subscription.cancelAtPeriodEnd;
  const period = props.period ?? anyTime;
  const narrowed = Boolean(period.from || period.to);
  const periodQuery = { from: period.from, to: period.to };
  // A list with no row on screen has nothing to export (an empty later page aside, which links back).
  const exportOf = (list: 'invoices' | 'entitlements', title: string) =>
    props[list].items.length > 0 && mayShow(frame, 'GET', `${base}/${list}/export.csv`) ? <ExportLink path={`${base}/${list}/export.csv`} query={periodQuery} label={`Export CSV of the ${title}`} /> : null;
  return (
    <DashboardPage frame={frame} section="subscriptions" title={`Subscription ${subscription.id}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/subscriptions')}>← Subscriptions</a>
      </p>
      <div class="split">
        <h1>
          {subscription.productId} <Badge value={subscription.status} />
        </h1>
        <div class="toolbar">
          {cancellable ? <ActionButton action={`${base}/cancel`} frame={frame} label="Cancel at period end" tone="danger" confirm={cancelSubscriptionConfirmation(subscription, props.customerReferenceId)} /> : null}
          {frame.mode === 'sandbox' && subscription.status !== 'CANCELED' ? <ActionButton action={`${base}/renew`} frame={frame} label="Renew now (sandbox)" tone="secondary" /> : null}
        </div>
      </div>
      <div class="card">
        <dl>
          <IdRow id={subscription.id} copyLabel="Copy the subscription ID" />
          <dt>Customer</dt>
          <dd>
            <a href={modePath(frame.mode, `/customers/${subscription.customerId}`)}>{props.customerReferenceId ?? subscription.customerId}</a>
          </dd>
          <dt>Price</dt>
          <dd>
            <Money amount={subscription.amount} currency={subscription.currency} /> {every(subscription.interval, subscription.intervalCount)}
          </dd>
          <dt>Current period</dt>
          <dd>
            <Time value={new Date(subscription.currentPeriodStart)} /> – <Time value={new Date(subscription.currentPeriodEnd)} />
          </dd>
          <dt>Renewal</dt>
          <dd>
            {subscription.status === 'CANCELED'
              ? 'Ended'
              : subscription.cancelAtPeriodEnd
                ? 'Cancelled: ends at the end of the current period'
                : 'Renews automatically with the saved card'}
            {subscription.lastDeclineReason ? <span class="muted"> (last renewal declined: {subscription.lastDeclineReason})</span> : null}
          </dd>
          <dt>Started by</dt>
          <dd>
            <a href={modePath(frame.mode, `/payment-pages/${subscription.pageId}`)}>{subscription.pageId}</a>
          </dd>
        </dl>
      </div>
      <PeriodFilter path={base} label="Filter invoices and entitlements" period={period} exportPath={undefined} />
      <div class="split">
        <h2 id="invoices">Invoices</h2>
        {exportOf('invoices', 'invoices')}
      </div>
      {props.invoices.items.length === 0 ? (
        <EmptyState title={narrowed ? 'No invoice in this period.' : props.invoices.page > 1 ? 'No invoices on this page.' : 'No invoice yet.'} />
      ) : (
        <DataTable label="Invoices" headers={['Period', 'Amount', 'From', 'Until', 'Paid', 'Payment']}>
          {props.invoices.items.map((invoice) => (
            <tr>
              <td>#{invoice.periodNumber}</td>
              <td class="num">
                <Money amount={invoice.amount} currency={invoice.currency} />
              </td>
              <td>
                <Time value={invoice.periodStart} />
              </td>
              <td>
                <Time value={invoice.periodEnd} />
              </td>
              <td>
                <Time value={invoice.paidAt} />
              </td>
              <td>
                <code>{invoice.paymentId}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={base} query={{ entitlementsPage: pageQuery(props.entitlements.page), ...periodQuery }} parameter="invoicesPage" page={props.invoices.page} hasMore={props.invoices.hasMore} label="Invoice pages" fragment="invoices" />
      <div class="split">
        <h2 id="entitlements">Entitlements</h2>
        {exportOf('entitlements', 'entitlements')}
      </div>
      {props.entitlements.items.length === 0 ? (
        <EmptyState title={narrowed ? 'No entitlement in this period.' : props.entitlements.page > 1 ? 'No entitlements on this page.' : 'No entitlement yet.'} />
      ) : (
        <EntitlementsTable frame={frame} rows={props.entitlements.items} showSubscription={false} />
      )}
      <Pagination path={base} query={{ invoicesPage: pageQuery(props.invoices.page), ...periodQuery }} parameter="entitlementsPage" page={props.entitlements.page} hasMore={props.entitlements.hasMore} label="Entitlement pages" fragment="entitlements" />
    </DashboardPage>
  );
}

/** A page number for a link's query: the first page is the default, left out of the URL. */
function pageQuery(page: number): number | undefined {
  return page > 1 ? page : undefined;
}

export function EntitlementsPage(props: { frame: Frame; filters: EntitlementFilters; period: ListPeriod; result: PageOf<EntitlementRowView> }) {
  const { frame, filters, result } = props;
  const path = modePath(frame.mode, '/entitlements');
  const { period } = props;
  const filtered = Boolean(filters.customerId || filters.subscriptionId || filters.isActive !== undefined || period.from || period.to);
  const activeValue = filters.isActive === undefined ? '' : String(filters.isActive);
  const query = { customerId: filters.customerId, subscriptionId: filters.subscriptionId, active: activeValue, from: period.from, to: period.to };
  return (
    <DashboardPage frame={frame} section="entitlements" title="Entitlements">
      <h1>Entitlements</h1>
      <p class="muted">One per paid subscription period: what your customers have paid access to.</p>
      <form method="get" action={path} class="toolbar" role="search" aria-label="Filter entitlements">
        <div>
          <label for="customer-id">Customer ID</label>
          <input id="customer-id" name="customerId" value={filters.customerId ?? ''} placeholder="cus_…" autocomplete="off" />
        </div>
        <div>
          <label for="subscription-id">Subscription ID</label>
          <input id="subscription-id" name="subscriptionId" value={filters.subscriptionId ?? ''} placeholder="sub_…" autocomplete="off" />
        </div>
        <div>
          <label for="active">Active now</label>
          <select id="active" name="active">
            <option value="" selected={activeValue === ''}>
              Any
            </option>
            <option value="true" selected={activeValue === 'true'}>
              Active
            </option>
            <option value="false" selected={activeValue === 'false'}>
              Not active
            </option>
          </select>
        </div>
        <PeriodFields period={period} />
        <FilterButtons submit="Filter" path={path} filtered={filtered}>
          <ExportLink path={`${path}/export.csv`} query={query} />
        </FilterButtons>
      </form>
      {result.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No entitlement matches these filters.">
            <p>
              <a href={path}>Clear the filters</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No entitlements in ${frame.mode} yet.`}>
            <p>Each paid subscription period creates one. Pay a payment page that carries a subscription to start.</p>
          </EmptyState>
        )
      ) : (
        <EntitlementsTable frame={frame} rows={result.items} showSubscription={true} />
      )}
      <Pagination path={path} query={query} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}
