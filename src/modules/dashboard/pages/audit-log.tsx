import type { AuditEventView } from '../../audit/index.ts';
import { modePath, withQuery } from '../paths.ts';
import { Badge, DataTable, EmptyState, Time } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

/** The audit log's filters as the screen's query carries them (`from`/`to` are days, YYYY-MM-DD, UTC). */
export interface AuditLogFilters {
  action?: string | undefined;
  actorType?: 'api_key' | 'dashboard_user' | 'operator' | undefined;
  from?: string | undefined;
  to?: string | undefined;
}

export const actorTypeWords: Record<AuditEventView['actorType'], string> = {
  api_key: 'API key',
  dashboard_user: 'Dashboard user',
  operator: 'Paysail operator',
};

/** `payoutPages_release` → `Payout pages: release`; `dashboard:/…` (an unnamed form) stays as it is. */
export function actionInWords(action: string): string {
  const match = /^([a-z][A-Za-z]*)_([A-Za-z_]+)$/.exec(action);
  if (!match?.[1] || !match[2]) {
    return action;
  }
  const words = (text: string) => text.replace(/_/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
  const resource = words(match[1]).replace(/^admin /, '').replace(/^api /, 'API ').replace(/^pii /, 'PII ');
  return `${resource.charAt(0).toUpperCase()}${resource.slice(1)}: ${words(match[2])}`;
}

function Filters(props: { path: string; filters: AuditLogFilters; actions: string[] }) {
  const { filters } = props;
  return (
    <form method="get" action={props.path} class="toolbar" aria-label="Filter the audit log">
      <div>
        <label for="action">Action</label>
        <select id="action" name="action">
          <option value="">Any</option>
          {props.actions.map((action) => (
            <option value={action} selected={filters.action === action}>
              {actionInWords(action)}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="actorType">Who</label>
        <select id="actorType" name="actorType">
          <option value="">Anyone</option>
          {Object.entries(actorTypeWords).map(([value, label]) => (
            <option value={value} selected={filters.actorType === value}>
              {label}
            </option>
          ))}
        </select>
      </div>
      <div>
        <label for="from">From (UTC day)</label>
        <input type="date" id="from" name="from" value={filters.from ?? ''} />
      </div>
      <div>
        <label for="to">To (UTC day)</label>
        <input type="date" id="to" name="to" value={filters.to ?? ''} />
      </div>
      <div class="buttons">
        <button type="submit">Filter</button>
      </div>
    </form>
  );
}

export function AuditLogPage(props: { frame: Frame; filters: AuditLogFilters; actions: string[]; events: AuditEventView[]; nextCursor: string | undefined; isFirstPage: boolean }) {
  const { frame, filters } = props;
  const path = modePath(frame.mode, '/audit-log');
  const query = { action: filters.action, actorType: filters.actorType, from: filters.from, to: filters.to };
  return (
    <DashboardPage frame={frame} section="audit-log" title="Audit log">
      <h1>Audit log</h1>
      <p class="muted">
        Every change made in your account, newest first: by your API keys, by your dashboard users and by your Paysail operator, with the address it came from and how it
        ended. Entries cannot be changed or removed. The CSV has every entry of the filters below.
      </p>
      <Filters path={path} filters={filters} actions={props.actions} />
      <div class="toolbar">
        <a class="button secondary" href={withQuery(`${path}/export.csv`, query)} download="">
          Download CSV
        </a>
      </div>
      {props.events.length === 0 ? (
        <EmptyState title={`No audit entries in ${frame.mode}${query.action || query.actorType || query.from || query.to ? ' for these filters' : ''}.`}>
          <p>Releases, refunds, cancellations, key changes and settings changes appear here as they happen.</p>
        </EmptyState>
      ) : (
        <DataTable label="Audit log" headers={['When', 'Who', 'Action', 'On', 'Address', 'Outcome', 'Entry']}>
          {props.events.map((event) => (
            <tr id={event.id}>
              <td>
                <Time value={event.createdAt} />
              </td>
              <td>
                {actorTypeWords[event.actorType]}
                {event.actorType === 'operator' ? null : (
                  <>
                    <br />
                    <code>{event.actorId}</code>
                  </>
                )}
              </td>
              <td>{actionInWords(event.action)}</td>
              <td>{event.target ? <code>{event.target}</code> : <span class="muted">—</span>}</td>
              <td>
                <code class="nowrap">{event.address}</code>
              </td>
              <td>
                <Badge value={event.outcome} />
                {event.errorCode ? <span class="muted"> ({event.errorCode})</span> : null}
              </td>
              <td>
                <code>{event.id}</code>
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {props.isFirstPage && !props.nextCursor ? null : (
        <nav class="pagination" aria-label="Pagination">
        {props.isFirstPage ? <span class="muted">First page</span> : <a href={withQuery(path, query)}>← First page</a>}
        {props.nextCursor ? (
          <a href={withQuery(path, { ...query, after: props.nextCursor })} rel="next">
            Older →
          </a>
        ) : (
          <span class="muted">Older →</span>
        )}
        </nav>
      )}
    </DashboardPage>
  );
}
