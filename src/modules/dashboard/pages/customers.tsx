import { kycStatuses } from '../../../db/schema/index.ts';
import { modePath } from '../paths.ts';
import type { CustomerDetailView, CustomerFilters, CustomerListRowView } from '../presenters/customers.ts';
import { CustomerStory } from './customer-story.tsx';
import { statusInWords } from './status-words.ts';
import type { PageOf } from '../presenters/pagination.ts';
import { ActionButton, Badge, DataTable, EmptyState, ExportLink, FilterButtons, Pagination, PeriodFields, Time, CopyButton, mayShow } from './components.tsx';
import { eraseCustomerConfirmation } from './confirmations.tsx';
import { DashboardPage, type Frame } from './layout.tsx';
import { anyTime, type ListPeriod } from '../date-range.ts';
import type { KycReviewItem } from '../../kyc/index.ts';
import { KycReviewCard, KycReviewQueue } from './kyc-review.tsx';

const kycExplanations: Record<string, string> = {
  NOT_STARTED: 'Identity data is incomplete. The customer completes it on their first payout page, or you add it with POST /v1/customers/:id.',
  PENDING: 'The identity data was submitted to the KYC provider; the decision follows by itself (the verification below says why when it cannot).',
  APPROVED: 'Verified: payouts to this customer can proceed.',
  REJECTED: 'The KYC provider rejected the identity data; payouts to this customer fail.',
};

export function CustomersPage(props: { frame: Frame; filters: CustomerFilters; period: ListPeriod; result: PageOf<CustomerListRowView>; inReview: KycReviewItem[] }) {
  const { frame, filters, result } = props;
  const path = modePath(frame.mode, '/customers');
  const filtered = Boolean(filters.reference || filters.kycStatus || filters.email || props.period.from || props.period.to);
  return (
    <DashboardPage frame={frame} section="customers" title="Customers">
      <h1>Customers</h1>
      <KycReviewQueue frame={frame} items={props.inReview} />
      <form method="get" action={path} class="toolbar" role="search" aria-label="Filter customers">
        <div>
          <label for="reference">Reference ID starts with, or customer ID</label>
          <input id="reference" name="reference" type="search" value={filters.reference ?? ''} autocomplete="off" />
        </div>
        <div>
          <label for="email">E-mail (exact)</label>
          <input id="email" name="email" type="email" value={filters.email ?? ''} autocomplete="off" />
        </div>
        <div>
          <label for="kyc">KYC status</label>
          <select id="kyc" name="kyc">
            <option value="">Any</option>
            {kycStatuses.map((status) => (
              <option value={status} selected={filters.kycStatus === status}>
                {statusInWords(status)}
              </option>
            ))}
          </select>
        </div>
        <PeriodFields period={props.period} />
        <FilterButtons submit="Search" path={path} filtered={filtered}>
          {mayShow(frame, 'GET', `${path}/export.csv`) ? (
            <ExportLink path={`${path}/export.csv`} query={{ reference: filters.reference, kyc: filters.kycStatus, email: filters.email, from: props.period.from, to: props.period.to }} />
          ) : null}
        </FilterButtons>
      </form>
      {result.items.length === 0 ? (
        filtered ? (
          <EmptyState title="No customer matches these filters.">
            <p>
              Check the reference ID (it is case-sensitive) and the e-mail address (it must match exactly), or <a href={path}>clear the filters</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No customers in ${frame.mode} yet.`}>
            <p>
              Create one with <code>POST /v1/customers{frame.mode === 'sandbox' ? '?livemode=false' : ''}</code>, or create a payout or payment page: its customer is created with it.
            </p>
          </EmptyState>
        )
      ) : (
        <DataTable label="Customers" headers={['Reference ID', 'Name', 'E-mail', 'KYC status', 'Created', 'ID']}>
          {result.items.map((customer) => (
            <tr>
              <td>
                <a href={modePath(frame.mode, `/customers/${customer.id}`)}>{customer.referenceId}</a>
              </td>
              <td>{customer.name ?? <span class="muted">—</span>}</td>
              <td>{customer.email ?? <span class="muted">—</span>}</td>
              <td>
                <Badge value={customer.kycStatus} />
              </td>
              <td>
                <Time value={customer.createdAt} />
              </td>
              <td>
                <code>{customer.id}</code>
            <CopyButton value={customer.id} label="Copy the customer ID" />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={path} query={{ reference: filters.reference, kyc: filters.kycStatus, email: filters.email, from: props.period.from, to: props.period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

export function CustomerPage(props: { frame: Frame; customer: CustomerDetailView; review: KycReviewItem | null; period?: ListPeriod; notice?: string | undefined; error?: string | undefined }) {
  const { frame, customer } = props;
  return (
    <DashboardPage frame={frame} section="customers" title={`Customer ${customer.referenceId}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/customers')}>← Customers</a>
      </p>
      <h1>Customer {customer.referenceId}</h1>
      <div class="card">
        <dl>
          <dt>ID</dt>
          <dd>
            <code>{customer.id}</code>
          </dd>
          <dt>Reference ID</dt>
          <dd>{customer.referenceId}</dd>
          <dt>E-mail</dt>
          <dd>{customer.erasedAt ? <span class="muted">erased</span> : (customer.email ?? <span class="muted">not given</span>)}</dd>
          {customer.erasedAt ? (
            <>
              <dt>Erased</dt>
              <dd>
                <Time value={customer.erasedAt} /> <span class="muted">Personal data removed; payments, payouts and balances stay.</span>
              </dd>
            </>
          ) : null}
          <dt>KYC status</dt>
          <dd>
            <Badge value={customer.kycStatus} />{' '}
            <span class="muted">{customer.erasedAt ? 'The customer was erased: they can no longer receive payout or payment pages.' : kycExplanations[customer.kycStatus]}</span>
          </dd>
          <dt>Signed up</dt>
          <dd>
            <Time value={customer.signupAt} />
          </dd>
          <dt>Created</dt>
          <dd>
            <Time value={customer.createdAt} />
          </dd>
          <dt>Payment methods</dt>
          <dd>{customer.supportedPaymentMethods?.join(', ') ?? <span class="muted">not set</span>}</dd>
          <dt>Payout methods</dt>
          <dd>{customer.supportedPayoutMethods?.join(', ') ?? <span class="muted">not set (your operator sets them)</span>}</dd>
        </dl>
      </div>
      {props.review ? <KycReviewCard frame={frame} customerId={customer.id} item={props.review} /> : null}
      {mayShow(frame, 'GET', modePath(frame.mode, `/customers/${customer.id}/export`)) ? (
        <p>
          <a href={modePath(frame.mode, `/customers/${customer.id}/export`)} download>
            Download everything held about this customer (JSON)
          </a>{' '}
          <span class="muted">— their pages, payments, subscriptions, identity checks and e-mails; personal data encrypted under your PII key.</span>
        </p>
      ) : null}
      {customer.erasedAt || !mayShow(frame, 'POST', modePath(frame.mode, `/customers/${customer.id}/erase`)) ? null : <EraseCard frame={frame} customer={customer} />}
      <CustomerStory frame={frame} customerId={customer.id} period={props.period ?? anyTime} story={customer.story} verifications={customer.verifications} />
    </DashboardPage>
  );
}

/** Erasing the customer (right to erasure): irreversible, so confirmed in the dialog (decision 0030). */
function EraseCard(props: { frame: Frame; customer: { id: string; referenceId: string } }) {
  return (
    <section class="card compact" aria-labelledby="erase-heading">
      <h2 id="erase-heading">Erase this customer</h2>
      <p class="muted" id="erase-help">
        Removes their name, date of birth, phone, address and e-mail, the bank or wallet details on their payout pages, the cardholder name on their payments and the
        e-mails sent to them, and asks the KYC provider to delete its copy. Payments, payouts, refunds and balances stay. Not possible while one of their payout pages is
        open.
      </p>
      <ActionButton
        action={modePath(props.frame.mode, `/customers/${props.customer.id}/erase`)}
        frame={props.frame}
        label="Erase customer"
        tone="danger"
        describedBy="erase-help"
        confirm={eraseCustomerConfirmation(props.customer)}
      />
    </section>
  );
}
