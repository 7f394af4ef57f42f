import { modePath } from '../paths.ts';
import type { CustomerStoryView } from '../presenters/customers.ts';
import { storyLimit } from '../presenters/customers.ts';
import { Badge, DataTable, Money, Time } from './components.tsx';
import type { Frame } from './layout.tsx';
import { payoutSubStatusInWords } from './status-words.ts';

function Section(props: { title: string; count: number; empty: string; children?: unknown }) {
  return (
    <>
      <h2>
        {props.title} <span class="muted">({props.count === storyLimit ? `latest ${storyLimit}` : props.count})</span>
      </h2>
      {props.count === 0 ? <p class="muted">{props.empty}</p> : props.children}
    </>
  );
}

/** The customer's whole story with the merchant in this mode: payouts, payments, subscriptions and refunds, newest first. */
export function CustomerStory(props: { frame: Frame; story: CustomerStoryView }) {
  const { frame, story } = props;
  const link = (section: string, id: string, text: string) => (frame.sections.some((known) => known === section) ? <a href={modePath(frame.mode, `/${section}/${id}`)}>{text}</a> : <code>{text}</code>);
  return (
    <>
      <Section title="Payouts" count={story.payoutPages.length} empty="No payout page for this customer yet.">
        <DataTable label="Payouts" headers={['Client reference', 'Amount', 'Status', 'Created']}>
          {story.payoutPages.map((page) => (
            <tr>
              <td>{link('payout-pages', page.id, page.clientReferenceId)}</td>
              <td>
                <Money amount={page.amount} currency={page.currency} />
              </td>
              <td>
                <Badge value={page.status} /> <span class="muted">{payoutSubStatusInWords(page.subStatus)}</span>
              </td>
              <td>
                <Time value={page.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      </Section>
      <Section title="Payments" count={story.paymentPages.length} empty="No payment page for this customer yet.">
        <DataTable label="Payments" headers={['Client reference', 'Amount', 'Status', 'Created']}>
          {story.paymentPages.map((page) => (
            <tr>
              <td>{link('payment-pages', page.id, page.clientReferenceId)}</td>
              <td>
                <Money amount={page.amount} currency={page.currency} />
              </td>
              <td>
                <Badge value={page.status} />
              </td>
              <td>
                <Time value={page.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      </Section>
      <Section title="Subscriptions" count={story.subscriptions.length} empty="No subscription for this customer.">
        <DataTable label="Subscriptions" headers={['Product', 'Amount', 'Status', 'Started']}>
          {story.subscriptions.map((subscription) => (
            <tr>
              <td>{link('subscriptions', subscription.id, subscription.productId)}</td>
              <td>
                <Money amount={subscription.amount} currency={subscription.currency} />
              </td>
              <td>
                <Badge value={subscription.status} />
              </td>
              <td>
                <Time value={subscription.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      </Section>
      <Section title="Refunds" count={story.refunds.length} empty="No refund for this customer.">
        <DataTable label="Refunds" headers={['Refund', 'Amount', 'Status', 'Made']}>
          {story.refunds.map((refund) => (
            <tr>
              <td>{link('payment-pages', refund.paymentPageId, refund.id)}</td>
              <td>
                <Money amount={refund.amount} currency={refund.currency} />
              </td>
              <td>
                <Badge value={refund.status} />
              </td>
              <td>
                <Time value={refund.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      </Section>
    </>
  );
}
