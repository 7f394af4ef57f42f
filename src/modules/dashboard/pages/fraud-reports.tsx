import type { FraudReportResponse } from '../../fraud-reports/index.ts';
import { modePath } from '../paths.ts';
import type { FraudReportFilters } from '../presenters/fraud-reports.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { PaymentAttemptView } from '../presenters/payment-pages.ts';
import { Badge, DataTable, EmptyState, ExportLink, FilterButtons, Money, Pagination, Time } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

/** Fraud report dates are `YYYY-MM-DD hh:mm:ss` in UTC. */
function reportTime(value: string): Date | null {
  const date = new Date(`${value.replace(' ', 'T')}Z`);
  return Number.isNaN(date.getTime()) ? null : date;
}

export function FraudReportsPage(props: { frame: Frame; filters: FraudReportFilters; result: (PageOf<FraudReportResponse> & { count: number }) | null; error?: string | undefined }) {
  const { frame, filters, result } = props;
  const path = modePath(frame.mode, '/fraud-reports');
  const filtered = Boolean(filters.paymentId || filters.from || filters.until);
  return (
    <DashboardPage frame={frame} section="fraud-reports" title="Fraud reports" error={props.error}>
      <h1>Fraud reports</h1>
      <p class="muted">Early fraud signals from card issuers and networks, one per card payment. Newest first.</p>
      <form method="get" action={path} class="toolbar" role="search" aria-label="Filter fraud reports">
        <div>
          <label for="payment-id">Payment ID</label>
          <input id="payment-id" name="paymentId" value={filters.paymentId ?? ''} placeholder="pay_…" autocomplete="off" />
        </div>
        <div>
          <label for="from">Issued from (UTC day)</label>
          <input id="from" name="from" type="date" value={filters.from ?? ''} />
        </div>
        <div>
          <label for="until">Issued until (UTC day)</label>
          <input id="until" name="until" type="date" value={filters.until ?? ''} />
        </div>
        <FilterButtons submit="Filter" path={path} filtered={filtered}>
          <ExportLink path={`${path}/export.csv`} query={{ paymentId: filters.paymentId, from: filters.from, until: filters.until }} />
        </FilterButtons>
      </form>
      {result === null ? null : result.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No fraud report matches these filters.">
            <p>
              Widen the dates or <a href={path}>clear the filters</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No fraud reports in ${frame.mode}.`}>
            <p>
              {frame.mode === 'sandbox'
                ? 'Pay a sandbox payment page with the card 4100 0000 0000 0019, or call POST /v1/test_helpers/fraud_reports, to see one.'
                : 'Good news: no issuer has reported fraud on your payments.'}
            </p>
          </EmptyState>
        )
      ) : (
        <>
          <p>
            {result.count} report{result.count === 1 ? '' : 's'}
          </p>
          <DataTable label="Fraud reports" headers={['Payment', 'Reason', 'Amount (USD)', 'Issued', 'Card', 'Network']}>
            {result.items.map((report) => (
              <tr>
                <td>
                  <a href={modePath(frame.mode, `/fraud-reports/${report.checkoutPaymentId}`)}>{report.checkoutPaymentId}</a>
                </td>
                <td>{report.fraudReason}</td>
                <td class="num">{report.fraudAmountUSD}</td>
                <td>
                  <Time value={reportTime(report.fraudIssueDate)} />
                </td>
                <td>
                  <code>{report.cardNumber}</code>
                </td>
                <td>{report.network}</td>
              </tr>
            ))}
          </DataTable>
        </>
      )}
      {result ? <Pagination path={path} query={{ paymentId: filters.paymentId, from: filters.from, until: filters.until }} page={result.page} hasMore={result.hasMore} /> : null}
    </DashboardPage>
  );
}

export function FraudReportPage(props: { frame: Frame; report: FraudReportResponse; payment: (PaymentAttemptView & { pageId: string | null }) | null; paymentPages: boolean }) {
  const { frame, report, payment } = props;
  return (
    <DashboardPage frame={frame} section="fraud-reports" title={`Fraud report ${report.checkoutPaymentId}`}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/fraud-reports')}>← Fraud reports</a>
      </p>
      <h1>Fraud report on {report.checkoutPaymentId}</h1>
      <div class="card">
        <dl>
          <dt>Reason</dt>
          <dd>{report.fraudReason}</dd>
          <dt>Fraud amount</dt>
          <dd>{report.fraudAmountUSD} USD</dd>
          <dt>Issued</dt>
          <dd>
            <Time value={reportTime(report.fraudIssueDate)} />
          </dd>
          <dt>Transaction</dt>
          <dd>
            <Time value={reportTime(report.transactionDate)} />
          </dd>
          <dt>Network</dt>
          <dd>
            {report.network}
            {report.fraudType ? <span class="muted"> (fraud type {report.fraudType})</span> : null}
          </dd>
          <dt>Issuing bank</dt>
          <dd>{report.issuingBank}</dd>
          <dt>Card</dt>
          <dd>
            <code>{report.cardNumber}</code> {report.cardSchemeType}
          </dd>
          <dt>Cardholder</dt>
          <dd>{report.cardholderName}</dd>
          <dt>Customer e-mail</dt>
          <dd>{report.customerEmail}</dd>
          <dt>Client reference</dt>
          <dd>{report.clientReferenceId}</dd>
        </dl>
      </div>
      <h2>The payment</h2>
      {payment ? (
        <div class="card">
          <dl>
            <dt>Payment</dt>
            <dd>
              <code>{payment.id}</code> <Badge value={payment.status} />
            </dd>
            <dt>Amount</dt>
            <dd>
              <Money amount={payment.amount} currency={payment.currency} />
            </dd>
            <dt>Card</dt>
            <dd>{payment.card}</dd>
            <dt>Paid</dt>
            <dd>
              <Time value={payment.decidedAt ?? payment.createdAt} />
            </dd>
            {payment.pageId ? (
              <>
                <dt>Payment page</dt>
                <dd>{props.paymentPages ? <a href={modePath(frame.mode, `/payment-pages/${payment.pageId}`)}>{payment.pageId}</a> : <code>{payment.pageId}</code>}</dd>
              </>
            ) : null}
          </dl>
        </div>
      ) : (
        <EmptyState title="The payment is not readable here." />
      )}
    </DashboardPage>
  );
}
