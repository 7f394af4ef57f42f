import { disputeStatuses, type DisputeStatus } from '../../../db/schema/index.ts';
import { modePath } from '../paths.ts';
import type { DisputeRowView } from '../presenters/disputes.ts';
import type { PageOf } from '../presenters/pagination.ts';
import { Badge, DataTable, EmptyState, Money, Pagination, StatusFilter, Time } from './components.tsx';
import { statusInWords } from './status-words.ts';
import { DashboardPage, type Frame } from './layout.tsx';
import type { ListPeriod } from '../date-range.ts';

/** `PRODUCT_NOT_RECEIVED` → `Product not received`. */
function readableReason(reason: string): string {
  const words = reason.toLowerCase().replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A processor id, linked to the processor's dashboard (Stripe) when it has one. */
function ProcessorId(props: { id: string | null; url: string | null; label: string }) {
  if (!props.id) {
    return <span class="muted">—</span>;
  }
  return props.url ? (
    <a href={props.url} rel="noopener noreferrer" target="_blank" aria-label={`${props.label} ${props.id} on Stripe's dashboard (opens in a new tab)`}>
      <code>{props.id}</code>
    </a>
  ) : (
    <code>{props.id}</code>
  );
}

/** What the merchant should do now, in a few words. */
function nextStep(dispute: DisputeRowView) {
  if (dispute.status === 'NEEDS_RESPONSE') {
    return (
      <>
        Respond by <Time value={dispute.evidenceDueBy} fallback="the processor's deadline" />
      </>
    );
  }
  if (dispute.status === 'UNDER_REVIEW') {
    return <>The issuer is reviewing your evidence</>;
  }
  return dispute.status === 'WON' ? <>Amount returned to your balance</> : <>Amount kept by the cardholder</>;
}

/** The disputes of one list or one payment page. `showPage` adds the payment page column. */
export function DisputesTable(props: { frame: Frame; disputes: DisputeRowView[]; showPage: boolean }) {
  const { frame } = props;
  const headers = ['Opened', ...(props.showPage ? ['Payment page'] : []), 'Amount', 'Reason', 'Status', 'Next step', 'Dispute'];
  return (
    <DataTable label="Disputes" headers={headers}>
      {props.disputes.map((dispute) => (
        <tr id={dispute.id}>
          <td>
            <Time value={dispute.createdAt} />
          </td>
          {props.showPage ? (
            <td>{dispute.pageId ? <a href={modePath(frame.mode, `/payment-pages/${dispute.pageId}`)}>{dispute.clientReferenceId ?? dispute.pageId}</a> : <span class="muted">renewal</span>}</td>
          ) : null}
          <td class="num">
            <Money amount={dispute.amount} currency={dispute.currency} />
          </td>
          <td>{readableReason(dispute.reason)}</td>
          <td>
            <Badge value={dispute.status} />
          </td>
          <td>{nextStep(dispute)}</td>
          <td>
            <code class="nowrap">{dispute.id}</code>
            {dispute.processorUrl ? (
              <>
                <br />
                <span class="muted">Stripe: </span>
                <ProcessorId id={dispute.processorReference} url={dispute.processorUrl} label="Dispute" />
                {dispute.paymentProcessorUrl ? (
                  <>
                    {' · '}
                    <ProcessorId id={dispute.paymentProcessorReference} url={dispute.paymentProcessorUrl} label="Payment" />
                  </>
                ) : null}
              </>
            ) : null}
          </td>
        </tr>
      ))}
    </DataTable>
  );
}

export function DisputesPage(props: { frame: Frame; status: DisputeStatus | undefined; period: ListPeriod; result: PageOf<DisputeRowView> }) {
  const { frame, result } = props;
  const path = modePath(frame.mode, '/disputes');
  return (
    <DashboardPage frame={frame} section="disputes" title="Disputes">
      <h1>Disputes</h1>
      <p class="muted">
        Chargebacks of your card payments, newest first. The disputed amount leaves your available balance when a dispute opens and comes back if you win it.
        {frame.mode === 'live' ? ' Answer disputes with evidence on the processor’s dashboard (the Stripe links below).' : ''}
      </p>
      <StatusFilter path={path} label="Filter disputes" options={disputeStatuses} selected={props.status} period={props.period} exportPath={`${path}/export.csv`} />
      {result.items.length === 0 ? (
        props.status || props.period.from || props.period.to ? (
          <EmptyState title={props.status ? `No disputes with the status “${statusInWords(props.status)}”${props.period.from || props.period.to ? ' in this period' : ''}.` : 'No disputes in this period.'}>
            <p>
              <a href={path}>Show every status</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No disputes in ${frame.mode}.`}>
            <p>
              {frame.mode === 'sandbox' ? (
                <>
                  Pay a sandbox payment page with the card 4000 0000 0000 0259: it is disputed a few seconds later. Decide it with{' '}
                  <code>POST /v1/test_helpers/disputes/:id/close</code>.
                </>
              ) : (
                'Good news: no cardholder has disputed a payment.'
              )}
            </p>
          </EmptyState>
        )
      ) : (
        <DisputesTable frame={frame} disputes={result.items} showPage={true} />
      )}
      <Pagination path={path} query={{ status: props.status, from: props.period.from, to: props.period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}
