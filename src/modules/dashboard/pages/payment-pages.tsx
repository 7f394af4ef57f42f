import { paymentPageStatuses, type PaymentPageStatus } from '../../../db/schema/index.ts';
import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { PaymentAttemptView, PaymentPageDetailView, PaymentPageRowView } from '../presenters/payment-pages.ts';
import { ActionButton, ListHeading, Badge, mayShow, DataTable, EmptyState, Money, Pagination, StatusFilter, Time } from './components.tsx';
import { expirePaymentConfirmation, paidWithCard } from './confirmations.tsx';
import { statusInWords } from './status-words.ts';
import { DashboardPage, type Frame } from './layout.tsx';
import type { ListPeriod } from '../date-range.ts';
import type { DisputeRowView } from '../presenters/disputes.ts';
import { DisputesTable } from './disputes.tsx';
import { IdRow, MetadataRows, PageAddressRow, TimeRow } from './detail-rows.tsx';
import { RefundForm, RefundsTable } from './refunds.tsx';

export function PaymentPagesPage(props: { frame: Frame; status: PaymentPageStatus | undefined; period: ListPeriod; result: PageOf<PaymentPageRowView> }) {
  const { frame, result } = props;
  const path = modePath(frame.mode, '/payment-pages');
  return (
    <DashboardPage frame={frame} section="payment-pages" title="Payment pages">
      <ListHeading frame={frame} title="Payment pages" newPath={modePath(frame.mode, '/payment-pages/new')} newLabel="New payment page" />
      <StatusFilter path={path} label="Filter payment pages" options={paymentPageStatuses} selected={props.status} period={props.period} exportPath={`${path}/export.csv`} />
      {result.items.length === 0 ? (
        props.status ? (
          <EmptyState title={`No payment pages with the status “${statusInWords(props.status)}”.`}>
            <p>
              <a href={path}>Show every status</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No payment pages in ${frame.mode} yet.`}>
            <p>
              Create one with <code>POST /v1/payment_pages{frame.mode === 'sandbox' ? '?livemode=false' : ''}</code> and send your customer to its <code>url</code>.
            </p>
          </EmptyState>
        )
      ) : (
        <DataTable label="Payment pages" headers={['Client reference', 'Customer', 'Amount', 'Status', 'Created', 'Expires']}>
          {result.items.map((page) => (
            <tr>
              <td>
                <a href={modePath(frame.mode, `/payment-pages/${page.id}`)}>{page.clientReferenceId}</a>
              </td>
              <td>{page.customerReferenceId}</td>
              <td class="num">
                <Money amount={page.amount} currency={page.currency} />
              </td>
              <td>
                <Badge value={page.status} />
              </td>
              <td>
                <Time value={page.createdAt} />
              </td>
              <td>
                <Time value={page.expiresAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={path} query={{ status: props.status, from: props.period.from, to: props.period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

export function AttemptsTable(props: { frame: Frame; attempts: PaymentAttemptView[]; fraudReports: boolean }) {
  return (
    <DataTable label="Card payments" headers={['Payment', 'Status', 'Card', 'Amount', 'Attempted', 'Fraud report']}>
      {props.attempts.map((attempt) => (
        <tr>
          <td>
            <code>{attempt.id}</code>
            {attempt.kind === 'RENEWAL' ? <span class="muted"> (renewal)</span> : null}
            {attempt.processorUrl ? (
              <>
                <br />
                <a href={attempt.processorUrl} rel="noopener noreferrer" target="_blank" aria-label={`Payment ${attempt.processorReference ?? ''} on Stripe's dashboard (opens in a new tab)`}>
                  <code>{attempt.processorReference}</code>
                </a>
              </>
            ) : null}
          </td>
          <td>
            <Badge value={attempt.status} />
            {attempt.declineReason ? <span class="muted"> {attempt.declineReason}</span> : null}
          </td>
          <td>{attempt.card}</td>
          <td class="num">
            <Money amount={attempt.amount} currency={attempt.currency} />
          </td>
          <td>
            <Time value={attempt.createdAt} />
          </td>
          <td>{attempt.hasFraudReport && props.fraudReports ? <a href={modePath(props.frame.mode, `/fraud-reports/${attempt.id}`)}>View report</a> : '—'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

export function PaymentPageDetailPage(props: {
  frame: Frame;
  detail: PaymentPageDetailView;
  disputes: DisputeRowView[];
  notice?: string | undefined;
  error?: string | undefined;
  fraudReports: boolean;
  subscriptions: boolean;
  /** The refund form's one-time key (new for each rendering). */
  refundKey: string;
}) {
  const { frame } = props;
  const { page, attempts } = props.detail;
  return (
    <DashboardPage frame={frame} section="payment-pages" title={`Payment page ${page.clientReferenceId}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/payment-pages')}>← Payment pages</a>
      </p>
      <div class="split">
        <h1>
          Payment page {page.clientReferenceId} <Badge value={page.status} />
        </h1>
        {page.status === 'CREATED' && mayShow(frame, 'POST', modePath(frame.mode, `/payment-pages/${page.id}/expire`)) ? (
          <div>
            <ActionButton action={modePath(frame.mode, `/payment-pages/${page.id}/expire`)} frame={frame} label="Expire page" tone="danger" describedBy="expire-help" confirm={expirePaymentConfirmation(page)} />
            <p class="muted" id="expire-help">
              The customer can no longer pay; a PAYMENT_EXPIRED event follows.
            </p>
          </div>
        ) : null}
      </div>
      <div class="card">
        <p class="amount">
          <Money amount={page.amount} currency={page.currency} />
        </p>
        <dl>
          <IdRow id={page.id} copyLabel="Copy the payment page ID" />
          <dt>Customer</dt>
          <dd>
            <a href={modePath(frame.mode, `/customers/${page.customer.id}`)}>{page.customer.referenceId}</a> <span class="muted">{page.customer.email}</span>
          </dd>
          {page.description !== undefined ? (
            <>
              <dt>Description</dt>
              <dd>{page.description}</dd>
            </>
          ) : null}
          <PageAddressRow term="Checkout address" url={page.url} />
          <TimeRow term="Created" at={page.createdAt} />
          <TimeRow term="Expires" at={page.expiresAt} />
          {page.paidAt ? <TimeRow term="Paid" at={page.paidAt} /> : null}
          {page.status === 'PAID' ? (
            <>
              <dt>Refunded</dt>
              <dd>
                <Money amount={page.refundedAmount} currency={page.currency} />
              </dd>
            </>
          ) : null}
          {page.expiredAt ? <TimeRow term="Expired" at={page.expiredAt} /> : null}
          {page.subscription ? (
            <>
              <dt>Subscription</dt>
              <dd>
                {page.subscription.productId}, every {page.subscription.intervalCount} {page.subscription.interval.toLowerCase()}
                {page.subscription.intervalCount > 1 ? 's' : ''}
                {page.subscriptionId ? (
                  <>
                    {' '}
                    ({props.subscriptions ? <a href={modePath(frame.mode, `/subscriptions/${page.subscriptionId}`)}>{page.subscriptionId}</a> : <code>{page.subscriptionId}</code>})
                  </>
                ) : null}
              </dd>
            </>
          ) : null}
          <MetadataRows metadata={page.metadata} />
        </dl>
      </div>
      {page.lineItems !== undefined ? (
        <>
          <h2>Line items</h2>
          <DataTable label="Line items" headers={['Item', 'Quantity', 'Unit price', 'Amount']}>
            {page.lineItems.map((item) => (
              <tr>
                <td>{item.name}</td>
                <td>{item.quantity}</td>
                <td>
                  <Money amount={item.unitAmount} currency={page.currency} />
                </td>
                <td>
                  <Money amount={item.quantity * item.unitAmount} currency={page.currency} />
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
      <h2>Card payments</h2>
      {attempts.length === 0 ? (
        <EmptyState title="No card payment was attempted on this page yet.">
          <p>{page.status === 'CREATED' ? 'Send the customer to the checkout address above.' : 'This page can no longer be paid.'}</p>
        </EmptyState>
      ) : (
        <AttemptsTable frame={frame} attempts={attempts} fraudReports={props.fraudReports} />
      )}
      {page.status === 'PAID' ? (
        <>
          <h2>Refunds</h2>
          <RefundsTable refunds={props.detail.refunds} />
          <RefundForm frame={frame} page={page} card={paidWithCard(attempts)} left={page.amount - page.refundedAmount} refundKey={props.refundKey} />
        </>
      ) : null}
      {props.disputes.length > 0 ? (
        <>
          <h2 id="disputes">Disputes</h2>
          <DisputesTable frame={frame} disputes={props.disputes} showPage={false} />
        </>
      ) : null}
    </DashboardPage>
  );
}
