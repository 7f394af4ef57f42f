import type { Child } from 'hono/jsx';
import { modePath } from '../paths.ts';
import type { ListPeriod } from '../date-range.ts';
import { storyLimit, type CustomerStoryView, type StoryList, type VerificationRowView } from '../presenters/customer-story.ts';
import { Badge, DataTable, EmptyState, ExportLink, Money, PeriodFilter, Time, mayShow } from './components.tsx';
import type { Frame } from './layout.tsx';
import { payoutSubStatusInWords } from './status-words.ts';

/** Every row of the story has these; each kind adds its first column and its status. */
interface StoryRow {
  amount: number;
  currency: string;
  status: string;
  createdAt: Date;
}

/** What a list of the customer's screen needs beside its rows: where its CSV is, and whether a period narrows it. */
interface ListContext {
  frame: Frame;
  customerId: string;
  period: ListPeriod;
}

/** A list's heading with its count, and its CSV (the screen's period applied) when it has rows and the role may download it. */
function ListHeading(props: ListContext & { list: StoryList; title: string; count: number; limit?: number }) {
  const path = modePath(props.frame.mode, `/customers/${props.customerId}/${props.list}/export.csv`);
  const id = `${props.list}-heading`;
  return (
    <div class="split">
      <h2 id={id}>
        {props.title} <span class="muted">({props.limit !== undefined && props.count === props.limit ? `latest ${props.limit}` : props.count})</span>
      </h2>
      {props.count > 0 && mayShow(props.frame, 'GET', path) ? <ExportLink path={path} query={{ from: props.period.from, to: props.period.to }} label={`Export CSV of the ${props.title.toLowerCase()}`} /> : null}
    </div>
  );
}

const narrowed = (period: ListPeriod) => Boolean(period.from || period.to);

/** One kind of the customer's records: title, count and CSV, then a table of first column, amount, status, date. */
function StorySection<T extends StoryRow>(props: ListContext & { list: StoryList; title: string; empty: string; headers: [string, string]; rows: T[]; first: (row: T) => Child; status?: (row: T) => Child }) {
  return (
    <>
      <ListHeading {...props} count={props.rows.length} limit={storyLimit} />
      {props.rows.length === 0 ? (
        <p class="muted">{narrowed(props.period) ? 'None in this period.' : props.empty}</p>
      ) : (
        <DataTable label={props.title} headers={[props.headers[0], 'Amount', 'Status', props.headers[1]]}>
          {props.rows.map((row) => (
            <tr>
              <td>{props.first(row)}</td>
              <td>
                <Money amount={row.amount} currency={row.currency} />
              </td>
              <td>{props.status ? props.status(row) : <Badge value={row.status} />}</td>
              <td>
                <Time value={row.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

function Verifications(props: ListContext & { rows: VerificationRowView[] }) {
  return (
    <>
      <ListHeading {...props} list="verifications" title="Identity verifications" count={props.rows.length} />
      {props.rows.length === 0 ? (
        <EmptyState title={narrowed(props.period) ? 'No verification in this period.' : 'No verification yet.'}>
          {narrowed(props.period) ? null : <p>Verification starts by itself once the customer's identity data is complete.</p>}
        </EmptyState>
      ) : (
        <DataTable label="Identity verifications" headers={['Status', 'Provider', 'Reason', 'Submitted', 'Decided']}>
          {props.rows.map((verification) => (
            <tr>
              <td>
                <Badge value={verification.status} />
              </td>
              <td>{verification.provider}</td>
              <td>{verification.reason ?? '—'}</td>
              <td>
                <Time value={verification.createdAt} />
              </td>
              <td>
                <Time value={verification.decidedAt} fallback="not yet" />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
    </>
  );
}

/**
 * The customer's whole story with the merchant in this mode: identity verifications, payouts,
 * payments, subscriptions and refunds, newest first, all narrowed by one creation period; each list
 * has its CSV (every row in the period, where the screen shows the latest 25).
 */
export function CustomerStory(props: { frame: Frame; customerId: string; period: ListPeriod; story: CustomerStoryView; verifications: VerificationRowView[] }) {
  const { frame, story } = props;
  const context: ListContext = { frame, customerId: props.customerId, period: props.period };
  const link = (section: string, id: string, text: string) => (frame.sections.some((known) => known === section) ? <a href={modePath(frame.mode, `/${section}/${id}`)}>{text}</a> : <code>{text}</code>);
  return (
    <>
      <PeriodFilter path={modePath(frame.mode, `/customers/${props.customerId}`)} label="Filter this customer's history" period={props.period} exportPath={undefined} />
      <Verifications {...context} rows={props.verifications} />
      <StorySection
        {...context}
        list="payout-pages"
        title="Payouts"
        empty="No payout page for this customer yet."
        headers={['Client reference', 'Created']}
        rows={story.payoutPages}
        first={(page) => link('payout-pages', page.id, page.clientReferenceId)}
        status={(page) => (
          <>
            <Badge value={page.status} /> <span class="muted">{payoutSubStatusInWords(page.subStatus)}</span>
          </>
        )}
      />
      <StorySection
        {...context}
        list="payment-pages"
        title="Payments"
        empty="No payment page for this customer yet."
        headers={['Client reference', 'Created']}
        rows={story.paymentPages}
        first={(page) => link('payment-pages', page.id, page.clientReferenceId)}
      />
      <StorySection
        {...context}
        list="subscriptions"
        title="Subscriptions"
        empty="No subscription for this customer."
        headers={['Product', 'Started']}
        rows={story.subscriptions}
        first={(subscription) => link('subscriptions', subscription.id, subscription.productId)}
      />
      <StorySection {...context} list="refunds" title="Refunds" empty="No refund for this customer." headers={['Refund', 'Made']} rows={story.refunds} first={(refund) => link('payment-pages', refund.paymentPageId, refund.id)} />
    </>
  );
}
