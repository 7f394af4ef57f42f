import { payoutPageStatuses } from '../../payout-pages/index.ts';
import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { PayoutPageDetailView, PayoutPageRowView } from '../presenters/payout-pages.ts';
import { ActionButton, ListHeading, Badge, RoleNote, mayShow, DataTable, EmptyState, Money, Pagination, StatusFilter, Time, type FilterOption } from './components.tsx';
import { cancelPayoutConfirmation, releasePayoutConfirmation, reissuePayoutConfirmation } from './confirmations.tsx';
import type { PayoutPageResponse } from '../../payout-pages/index.ts';
import { payoutSubStatusInWords } from './status-words.ts';
import { DashboardPage, type Frame } from './layout.tsx';
import { IdRow, MetadataRows, PageAddressRow, TimeRow } from './detail-rows.tsx';
import type { ListPeriod } from '../date-range.ts';

const filterOptions: FilterOption[] = [
  { value: 'AWAITING_RELEASE', label: 'Awaiting your release' },
  ...payoutPageStatuses.map((status) => ({ value: status, label: status })),
];

function StatusCell(props: { status: string; subStatus: string }) {
  return (
    <>
      <Badge value={props.status} />{' '}
      <span class="muted" title={`Sub-status code: ${props.subStatus}`}>
        {payoutSubStatusInWords(props.subStatus)}
      </span>
    </>
  );
}

export function PayoutPagesPage(props: { frame: Frame; filter: string; period: ListPeriod; result: PageOf<PayoutPageRowView> }) {
  const { frame, result } = props;
  const path = modePath(frame.mode, '/payout-pages');
  return (
    <DashboardPage frame={frame} section="payout-pages" title="Payouts">
      <ListHeading frame={frame} title="Payout pages" newPath={modePath(frame.mode, '/payout-pages/new')} newLabel="New payout page" />
      <StatusFilter path={path} label="Filter payout pages" options={filterOptions} selected={props.filter} period={props.period} exportPath={`${path}/export.csv`} />
      {result.items.length === 0 ? (
        props.filter || props.period.from || props.period.to ? (
          <EmptyState title="No payout page matches these filters.">
            <p>
              <a href={path}>Show every status</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title={`No payout pages in ${frame.mode} yet.`}>
            <p>
              Create one with <code>POST /v1/payout_pages{frame.mode === 'sandbox' ? '?livemode=false' : ''}</code>: your customer gets an e-mail with its link
              {frame.mode === 'sandbox' ? ' (it shows up in the inbox here)' : ''}.
            </p>
          </EmptyState>
        )
      ) : (
        <DataTable label="Payout pages" headers={['Client reference', 'Customer', 'Amount', 'Status', 'Release', 'Created', 'Expires']}>
          {result.items.map((page) => (
            <tr>
              <td>
                <a href={modePath(frame.mode, `/payout-pages/${page.id}`)}>{page.clientReferenceId}</a>
              </td>
              <td>{page.customerReferenceId}</td>
              <td class="num">
                <Money amount={page.amount} currency={page.fundingCurrency} />
              </td>
              <td>
                <StatusCell status={page.status} subStatus={page.subStatus} />
              </td>
              <td>{page.releaseMethod}</td>
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
      <Pagination path={path} query={{ status: props.filter, from: props.period.from, to: props.period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

function method(page: PayoutPageDetailView['page']): string {
  const chosen = page.payoutMethod;
  if (!chosen) {
    return 'not chosen yet';
  }
  return chosen.type === 'BANK_TRANSFER' ? `Bank transfer to account …${chosen.last4} (routing ${chosen.routingNumber})` : `${chosen.network} wallet ${chosen.address}`;
}

export function PayoutPageDetailPage(props: { frame: Frame; detail: PayoutPageDetailView; notice?: string | undefined; error?: string | undefined; eventsSection: boolean }) {
  const { frame } = props;
  const { page, history, canReissue } = props.detail;
  const base = modePath(frame.mode, `/payout-pages/${page.id}`);
  // What the state allows and the role may use.
  const canRelease = props.detail.canRelease && mayShow(frame, 'POST', `${base}/release`);
  const canCancel = props.detail.canCancel && mayShow(frame, 'POST', `${base}/cancel`);
  return (
    <DashboardPage frame={frame} section="payout-pages" title={`Payout page ${page.clientReferenceId}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/payout-pages')}>← Payout pages</a>
      </p>
      <div class="split">
        <h1>
          Payout {page.clientReferenceId} <Badge value={page.status} />
        </h1>
        {canRelease || canCancel ? (
          <div class="toolbar">
            {canRelease ? <ActionButton action={`${base}/release`} frame={frame} label="Release payout" confirm={releasePayoutConfirmation(page)} /> : null}
            {canCancel ? <ActionButton action={`${base}/cancel`} frame={frame} label="Cancel payout page" tone="danger" confirm={cancelPayoutConfirmation(page)} /> : null}
          </div>
        ) : null}
      </div>
      {canReissue ? <ReissueCard frame={frame} page={page} lockedAt={page.lockedAt ?? 0} /> : null}
      <div class="card">
        <p class="amount">
          <Money amount={page.amount} currency={page.fundingCurrency} />
        </p>
        <dl>
          <dt>Status</dt>
          <dd>
            <StatusCell status={page.status} subStatus={page['sub-status']} />
            {page.statusReason ? <span class="muted"> ({page.statusReason})</span> : null}
          </dd>
          <IdRow id={page.id} copyLabel="Copy the payout page ID" />
          <dt>Customer</dt>
          <dd>
            <a href={modePath(frame.mode, `/customers/${page.customer.id}`)}>{page.customer.referenceId}</a> {page.customer.email ? <span class="muted">{page.customer.email}</span> : null}
          </dd>
          <dt>Release</dt>
          <dd>{page.releaseMethod === 'MANUAL' ? 'Manual: you release it here or with POST /v1/payout_pages/:id/release' : 'Automatic once the customer is verified'}</dd>
          <dt>Payout method</dt>
          <dd>{method(page)}</dd>
          {page.payoutDetails ? (
            <>
              <dt>Transaction</dt>
              <dd>
                {page.payoutDetails.explorerUrl ? (
                  <a href={page.payoutDetails.explorerUrl} target="_blank" rel="noopener noreferrer">
                    <code>{page.payoutDetails.transactionHash}</code>
                  </a>
                ) : (
                  <code>{page.payoutDetails.transactionHash}</code>
                )}
                {page.merchant.livemode ? null : <span class="muted"> (sandbox: on no chain)</span>}
              </dd>
            </>
          ) : null}
          <PageAddressRow term="Page address" url={page.url} />
          <TimeRow term="Created" at={page.createdAt} />
          <dt>Customer confirmed</dt>
          <dd>
            <Time value={page.customerConfirmedAt ? new Date(page.customerConfirmedAt) : null} fallback="not yet" />
          </dd>
          <TimeRow term="Expires" at={page.expiresAt} />
          <MetadataRows metadata={page.metadata} />
        </dl>
      </div>
      {props.detail.attempts.length > 0 ? (
        <>
          <h2 id="attempts">Payout attempts</h2>
          <DataTable label="Payout attempts" headers={['#', 'Rail', 'Status', 'Rail reference', 'Transaction', 'Started', 'Finished']}>
            {props.detail.attempts.map((attempt) => (
              <tr>
                <td>{attempt.number}</td>
                <td>{attempt.rail}</td>
                <td>
                  <Badge value={attempt.status} />
                  {attempt.reason ? <span class="muted"> ({attempt.reason})</span> : null}
                </td>
                <td>{attempt.reference ? attempt.referenceUrl ? <a href={attempt.referenceUrl} target="_blank" rel="noopener noreferrer"><code>{attempt.reference}</code></a> : <code>{attempt.reference}</code> : '—'}</td>
                <td>
                  {attempt.transactionHash ? (
                    attempt.explorerUrl ? (
                      <a href={attempt.explorerUrl} target="_blank" rel="noopener noreferrer" title={attempt.transactionHash}>
                        <code>{`${attempt.transactionHash.slice(0, 10)}…${attempt.transactionHash.slice(-6)}`}</code>
                      </a>
                    ) : (
                      <code>{attempt.transactionHash}</code>
                    )
                  ) : (
                    '—'
                  )}
                </td>
                <td>
                  <Time value={attempt.createdAt} />
                </td>
                <td>
                  <Time value={attempt.finishedAt} fallback="—" />
                </td>
              </tr>
            ))}
          </DataTable>
        </>
      ) : null}
      <h2 id="history">Status history</h2>
      <DataTable label="Status history" headers={['When', 'Status', 'Sub-status', 'What happened', 'By', 'Event']}>
        {history.items.map((entry) => (
          <tr>
            <td>
              <Time value={entry.createdAt} />
            </td>
            <td>
              <Badge value={entry.toStatus} />
            </td>
            <td title={`Sub-status code: ${entry.toSubStatus}`}>{payoutSubStatusInWords(entry.toSubStatus)}</td>
            <td>
              {entry.action}
              {entry.reason ? <span class="muted"> ({entry.reason})</span> : null}
            </td>
            <td>{entry.actor}</td>
            <td>
              {entry.eventId ? (
                props.eventsSection ? (
                  <a href={modePath(frame.mode, `/developers/events/${entry.eventId}`)}>{entry.eventId}</a>
                ) : (
                  <code>{entry.eventId}</code>
                )
              ) : (
                '—'
              )}
            </td>
          </tr>
        ))}
      </DataTable>
      <Pagination path={base} query={{}} page={history.page} hasMore={history.hasMore} label="Status history pages" fragment="history" />
    </DashboardPage>
  );
}

/** A page locked after too many wrong codes: reissuing it lets guessing start again, so it is confirmed in the dialog (decision 0030). */
function ReissueCard(props: { frame: Frame; page: PayoutPageResponse; lockedAt: number }) {
  const action = modePath(props.frame.mode, `/payout-pages/${props.page.id}/reissue`);
  return (
    <section class="card compact" aria-labelledby="reissue-heading">
      <h2 id="reissue-heading">Locked after too many wrong codes</h2>
      <p class="muted" id="reissue-help">
        Since <Time value={new Date(props.lockedAt)} /> the hosted page sends and accepts no verification code: someone entered 10 wrong codes. The customer was told to
        contact you. Reissue it once you know the guesses were theirs: it unlocks the page, makes earlier codes useless and e-mails the customer the link again. The
        payout itself does not change.
      </p>
      {mayShow(props.frame, 'POST', action) ? (
        <ActionButton action={action} frame={props.frame} label="Reissue payout page" describedBy="reissue-help" confirm={reissuePayoutConfirmation(props.page)} />
      ) : (
        <RoleNote frame={props.frame} action={action} what="reissue it" />
      )}
    </section>
  );
}
