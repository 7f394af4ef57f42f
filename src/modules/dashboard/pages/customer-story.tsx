import type { Child } from 'hono/jsx';
import { modePath } from '../paths.ts';
import type { CustomerStoryView } from '../presenters/customers.ts';
import { storyLimit } from '../presenters/customers.ts';
import { Badge, DataTable, Money, Time } from './components.tsx';
import type { Frame } from './layout.tsx';
import { payoutSubStatusInWords } from './status-words.ts';

/** Every row of the story has these; each kind adds its first column and its status. */
interface StoryRow {
  amount: number;
  currency: string;
  status: string;
  createdAt: Date;
}

/** One kind of the customer's records: title, count, then a table of first column, amount, status, date. */
function StorySection<T extends StoryRow>(props: { title: string; empty: string; headers: [string, string]; rows: T[]; first: (row: T) => Child; status?: (row: T) => Child }) {
  const count = props.rows.length;
  return (
    <>
      <h2>
        {props.title} <span class="muted">({count === storyLimit ? `latest ${storyLimit}` : count})</span>
      </h2>
      {count === 0 ? (
        <p class="muted">{props.empty}</p>
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

/** The customer's whole story with the merchant in this mode: payouts, payments, subscriptions and refunds, newest first. */
export function CustomerStory(props: { frame: Frame; story: CustomerStoryView }) {
  const { frame, story } = props;
  const link = (section: string, id: string, text: string) => (frame.sections.some((known) => known === section) ? <a href={modePath(frame.mode, `/${section}/${id}`)}>{text}</a> : <code>{text}</code>);
  return (
    <>
      <StorySection
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
      <StorySection title="Payments" empty="No payment page for this customer yet." headers={['Client reference', 'Created']} rows={story.paymentPages} first={(page) => link('payment-pages', page.id, page.clientReferenceId)} />
      <StorySection title="Subscriptions" empty="No subscription for this customer." headers={['Product', 'Started']} rows={story.subscriptions} first={(subscription) => link('subscriptions', subscription.id, subscription.productId)} />
      <StorySection title="Refunds" empty="No refund for this customer." headers={['Refund', 'Made']} rows={story.refunds} first={(refund) => link('payment-pages', refund.paymentPageId, refund.id)} />
    </>
  );
}
