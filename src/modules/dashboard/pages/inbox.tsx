import { modePath } from '../paths.ts';
import type { InboxMessageView, InboxRowView } from '../presenters/inbox.ts';
import type { PageOf } from '../presenters/pagination.ts';
import { Badge, DataTable, EmptyState, Pagination, PeriodFilter, Time } from './components.tsx';
import type { ListPeriod } from '../date-range.ts';
import { DashboardPage, type Frame } from './layout.tsx';

export function InboxPage(props: { frame: Frame; period: ListPeriod; result: PageOf<InboxRowView> | null }) {
  const { frame, result, period } = props;
  const path = modePath(frame.mode, '/inbox');
  return (
    <DashboardPage frame={frame} section="inbox" title="Inbox">
      <h1>{frame.mode === 'sandbox' ? 'Sandbox inbox' : 'Live inbox'}</h1>
      <p class="muted">
        The e-mails Paysail wrote to your customers in {frame.mode}
        {frame.mode === 'sandbox' ? ', with the payout page verification codes your test customers would receive.' : ' (kept here because no SMTP server is configured).'}
      </p>
      {result === null ? (
        <EmptyState title="Live e-mails are delivered by SMTP.">
          <p>This installation sends live e-mails through its SMTP server, so they are not kept here. The sandbox inbox shows the sandbox ones.</p>
        </EmptyState>
      ) : (
        <PeriodFilter path={path} label="Filter e-mails" period={period} exportPath={`${path}/export.csv`} />
      )}
      {result === null ? null : result.items.length === 0 && (period.from || period.to) ? (
        <EmptyState title="No e-mail was written in this period." />
      ) : result.items.length === 0 ? (
        <EmptyState title="No e-mails yet.">
          <p>Create a payout page{frame.mode === 'sandbox' ? ' with livemode=false' : ''}: its customer gets an e-mail with the page link, then one with a verification code.</p>
        </EmptyState>
      ) : (
        <DataTable label="E-mails" headers={['Subject', 'To', 'Code', 'Status', 'Written']}>
          {result.items.map((email) => (
            <tr>
              <td>
                <a href={modePath(frame.mode, `/inbox/${email.id}`)}>{email.subject}</a>
              </td>
              <td>{email.to}</td>
              <td>{email.verificationCode ? <strong class="code-inline">{email.verificationCode}</strong> : '—'}</td>
              <td>
                <Badge value={email.status} />
              </td>
              <td>
                <Time value={email.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {result ? <Pagination path={path} query={{ from: period.from, to: period.to }} page={result.page} hasMore={result.hasMore} /> : null}
    </DashboardPage>
  );
}

export function InboxMessagePage(props: { frame: Frame; email: InboxMessageView; relatedPath: string | null; htmlPath: string }) {
  const { frame, email } = props;
  return (
    <DashboardPage frame={frame} section="inbox" title={email.subject}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/inbox')}>← Inbox</a>
      </p>
      <h1>{email.subject}</h1>
      {email.verificationCode ? (
        <div class="card" aria-labelledby="code-label">
          <p id="code-label">Verification code</p>
          <p class="code" id="verification-code">
            {email.verificationCode}
          </p>
        </div>
      ) : null}
      <div class="card">
        <dl>
          <dt>To</dt>
          <dd>{email.to}</dd>
          <dt>Template</dt>
          <dd>
            <code>{email.template}</code>
          </dd>
          <dt>Status</dt>
          <dd>
            <Badge value={email.status} />
            {email.lastError ? <span class="muted"> {email.lastError}</span> : null}
          </dd>
          <dt>Written</dt>
          <dd>
            <Time value={email.createdAt} />
          </dd>
          <dt>Sent</dt>
          <dd>
            <Time value={email.sentAt} fallback="not sent (kept in the inbox)" />
          </dd>
          {email.relatedId ? (
            <>
              <dt>About</dt>
              <dd>{props.relatedPath ? <a href={props.relatedPath}>{email.relatedId}</a> : <code>{email.relatedId}</code>}</dd>
            </>
          ) : null}
        </dl>
      </div>
      <h2>As the customer sees it</h2>
      <iframe
        class="email-preview"
        src={props.htmlPath}
        sandbox=""
        referrerpolicy="no-referrer"
        loading="lazy"
        title="The HTML part, rendered without scripts or network access"
      ></iframe>
      <h2>Text</h2>
      <pre tabindex={0} aria-label="Text part" id="email-text">
        {email.text}
      </pre>
      <details>
        <summary>HTML part (source)</summary>
        <pre tabindex={0} aria-label="HTML part">
          {email.html}
        </pre>
      </details>
    </DashboardPage>
  );
}
