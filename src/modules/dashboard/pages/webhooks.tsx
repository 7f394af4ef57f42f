import { eventTypes } from '../../events/record.ts';
import type { EventView } from '../../events/schemas.ts';
import type { WebhookDeliveryView, WebhookEndpointView } from '../../webhooks/schemas.ts';
import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { EventRowView } from '../presenters/webhooks.ts';
import { ActionButton, Badge, CsrfField, DataTable, EmptyState, Pagination, Time } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

const at = (millis: number | null | undefined) => (millis ? new Date(millis) : null);

function EnabledEventsFieldset(props: { selected: readonly string[] }) {
  const all = props.selected.length === 0 || props.selected.includes('*');
  return (
    <fieldset>
      <legend>Events to send</legend>
      <p class="muted" id="events-help">
        Leave every box empty to receive all events, including types added later.
      </p>
      {eventTypes.map((type) => (
        <label class="choice">
          <input type="checkbox" name="enabledEvents" value={type} checked={!all && props.selected.includes(type)} aria-describedby="events-help" />
          {type}
        </label>
      ))}
    </fieldset>
  );
}

function SecretCard(props: { title: string; secret: string }) {
  return (
    <div class="card" role="status" aria-labelledby="secret-heading">
      <h2 id="secret-heading">{props.title}</h2>
      <p>Verify every webhook with this secret (Standard Webhooks). Keep it out of your code repository.</p>
      <code class="secret" id="webhook-secret">
        {props.secret}
      </code>
    </div>
  );
}

export function WebhooksPage(props: { frame: Frame; endpoints: WebhookEndpointView[]; created?: { id: string; secret: string }; error?: string | undefined; notice?: string | undefined; form?: { url: string; description: string; enabledEvents: string[] } }) {
  const { frame } = props;
  const base = modePath(frame.mode, '/developers/webhooks');
  return (
    <DashboardPage frame={frame} section="webhooks" title="Webhooks" notice={props.notice} error={props.error}>
      <h1>Webhook endpoints ({frame.mode})</h1>
      {props.created ? <SecretCard title="Endpoint added: its signing secret" secret={props.created.secret} /> : null}
      {props.endpoints.length === 0 ? (
        <EmptyState title={`No webhook endpoints in ${frame.mode}.`}>
          <p>Add the address of your server below to receive events as they happen.</p>
        </EmptyState>
      ) : (
        <DataTable label="Webhook endpoints" headers={['Address', 'Events', 'Status', 'Added']}>
          {props.endpoints.map((endpoint) => (
            <tr>
              <td>
                <a href={`${base}/${endpoint.id}`}>{endpoint.url}</a>
                {endpoint.description ? <div class="muted">{endpoint.description}</div> : null}
              </td>
              <td>{endpoint.enabledEvents.includes('*') ? 'All events' : endpoint.enabledEvents.join(', ')}</td>
              <td>
                <Badge value={endpoint.status === 'ENABLED' ? 'ACTIVE' : 'DISABLED'} />
                {endpoint.failingSince ? <span class="muted"> failing since <Time value={at(endpoint.failingSince)} /></span> : null}
              </td>
              <td>
                <Time value={at(endpoint.createdAt)} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <h2 id="add-heading">Add an endpoint</h2>
      <form method="post" action={base} class="card" aria-labelledby="add-heading">
        <CsrfField token={frame.csrfToken} />
        <label for="endpoint-url">Address (URL)</label>
        <input id="endpoint-url" name="url" type="url" required maxlength={2048} placeholder="https://example.com/webhooks/paysail" value={props.form?.url ?? ''} aria-describedby="url-help" />
        <p class="muted" id="url-help">
          {frame.mode === 'live' ? 'Live endpoints must use https and a public address.' : 'Sandbox endpoints may use http.'} Answer with a 2xx status within 15 seconds.
        </p>
        <label for="endpoint-description">Description (optional)</label>
        <input id="endpoint-description" name="description" maxlength={255} value={props.form?.description ?? ''} />
        <EnabledEventsFieldset selected={props.form?.enabledEvents ?? []} />
        <button type="submit">Add endpoint</button>
      </form>
    </DashboardPage>
  );
}

export function DeliveriesTable(props: { frame: Frame; deliveries: WebhookDeliveryView[]; endpointUrls?: Map<string, string>; showEvent: boolean; redeliverEventId?: string }) {
  const { frame } = props;
  return (
    <>
      {props.deliveries.map((delivery) => (
        <div class="card">
          <div class="split">
            <p>
              <Badge value={delivery.status} />{' '}
              {props.showEvent ? (
                <a href={modePath(frame.mode, `/developers/events/${delivery.eventId}`)}>
                  {delivery.eventType} {delivery.eventId}
                </a>
              ) : (
                <a href={modePath(frame.mode, `/developers/webhooks/${delivery.endpointId}`)}>{props.endpointUrls?.get(delivery.endpointId) ?? delivery.endpointId}</a>
              )}
            </p>
            {props.redeliverEventId ? (
              <ActionButton
                action={modePath(frame.mode, `/developers/events/${props.redeliverEventId}/redeliver`)}
                csrfToken={frame.csrfToken}
                label="Redeliver to this endpoint"
                tone="secondary"
                fields={{ endpointId: delivery.endpointId }}
              />
            ) : null}
          </div>
          <p class="muted">
            {delivery.attemptCount} attempt{delivery.attemptCount === 1 ? '' : 's'}
            {delivery.nextAttemptAt ? (
              <>
                ; next attempt <Time value={at(delivery.nextAttemptAt)} />
              </>
            ) : null}
          </p>
          {delivery.attempts.length > 0 ? (
            <DataTable label={`Attempts of delivery ${delivery.id}`} headers={['#', 'When', 'Outcome', 'HTTP status', 'Latency', 'Answer (first 1 KiB)']}>
              {delivery.attempts.map((attempt) => (
                <tr>
                  <td>{attempt.number}</td>
                  <td>
                    <Time value={at(attempt.attemptedAt)} />
                  </td>
                  <td>
                    <Badge value={attempt.outcome} />
                    {attempt.error ? <span class="muted"> {attempt.error}</span> : null}
                  </td>
                  <td>{attempt.statusCode ?? '—'}</td>
                  <td class="num">{attempt.latencyMs} ms</td>
                  <td>
                    <code>{attempt.responseBody ?? ''}</code>
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : null}
        </div>
      ))}
    </>
  );
}

export function WebhookEndpointPage(props: {
  frame: Frame;
  endpoint: WebhookEndpointView;
  deliveries: WebhookDeliveryView[];
  hasMore: boolean;
  secret?: { title: string; value: string };
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { frame, endpoint } = props;
  const base = modePath(frame.mode, `/developers/webhooks/${endpoint.id}`);
  return (
    <DashboardPage frame={frame} section="webhooks" title="Webhook endpoint" notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/developers/webhooks')}>← Webhook endpoints</a>
      </p>
      <h1>
        {endpoint.url} <Badge value={endpoint.status === 'ENABLED' ? 'ACTIVE' : 'DISABLED'} />
      </h1>
      {props.secret ? <SecretCard title={props.secret.title} secret={props.secret.value} /> : null}
      <div class="card">
        <dl>
          <dt>ID</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          {endpoint.description ? (
            <>
              <dt>Description</dt>
              <dd>{endpoint.description}</dd>
            </>
          ) : null}
          <dt>Status</dt>
          <dd>
            {endpoint.status === 'ENABLED' ? 'Receiving events' : `Disabled${endpoint.disabledReason ? ` (${endpoint.disabledReason})` : ''}: enable it to receive events again`}
          </dd>
          {endpoint.previousSecretExpiresAt ? (
            <>
              <dt>Previous secret</dt>
              <dd>
                still signs until <Time value={at(endpoint.previousSecretExpiresAt)} />
              </dd>
            </>
          ) : null}
          <dt>Added</dt>
          <dd>
            <Time value={at(endpoint.createdAt)} />
          </dd>
        </dl>
        <div class="toolbar">
          {props.secret ? null : <ActionButton action={`${base}/reveal`} csrfToken={frame.csrfToken} label="Reveal signing secret" tone="secondary" />}
          <ActionButton action={`${base}/rotate`} csrfToken={frame.csrfToken} label="Rotate secret" tone="secondary" />
          <ActionButton action={`${base}/status`} csrfToken={frame.csrfToken} label={endpoint.status === 'ENABLED' ? 'Disable' : 'Enable'} tone="secondary" fields={{ status: endpoint.status === 'ENABLED' ? 'DISABLED' : 'ENABLED' }} />
          <ActionButton action={`${base}/delete`} csrfToken={frame.csrfToken} label="Delete endpoint" tone="danger" />
        </div>
        <p class="muted">After a rotation the previous secret keeps signing for 24 hours, so you can switch without missing events.</p>
      </div>
      <h2 id="events-heading">Events sent to this endpoint</h2>
      <form method="post" action={`${base}/events`} class="card" aria-labelledby="events-heading">
        <CsrfField token={frame.csrfToken} />
        <EnabledEventsFieldset selected={endpoint.enabledEvents} />
        <button type="submit">Save events</button>
      </form>
      <h2>Latest deliveries</h2>
      {props.deliveries.length === 0 ? (
        <EmptyState title="Nothing was sent to this endpoint yet.">
          <p>Events are delivered as they happen; redeliver a past one from the event log.</p>
        </EmptyState>
      ) : (
        <DeliveriesTable frame={frame} deliveries={props.deliveries} showEvent={true} />
      )}
      {props.hasMore ? (
        <p>
          Older deliveries: see the <a href={modePath(frame.mode, '/developers/events')}>event log</a>.
        </p>
      ) : null}
    </DashboardPage>
  );
}

export function EventsPage(props: { frame: Frame; type: string | undefined; result: PageOf<EventRowView> }) {
  const { frame, result } = props;
  const path = modePath(frame.mode, '/developers/events');
  return (
    <DashboardPage frame={frame} section="events" title="Events">
      <h1>Event log ({frame.mode})</h1>
      <p class="muted">Every event of the last 30 days, with its webhook deliveries.</p>
      <form method="get" action={path} class="toolbar" aria-label="Filter events">
        <div>
          <label for="type">Type</label>
          <select id="type" name="type">
            <option value="">Any</option>
            {eventTypes.map((type) => (
              <option value={type} selected={props.type === type}>
                {type}
              </option>
            ))}
          </select>
        </div>
        <div class="buttons">
          <button type="submit">Filter</button>
        </div>
      </form>
      {result.items.length === 0 ? (
        <EmptyState title={props.type ? `No ${props.type} events.` : `No events in ${frame.mode} yet.`}>
          <p>Events are recorded when payout pages change status, payments succeed or expire, fraud is reported and entitlements are created.</p>
        </EmptyState>
      ) : (
        <DataTable label="Events" headers={['Event', 'Type', 'When', 'Deliveries']}>
          {result.items.map((event) => (
            <tr>
              <td>
                <a href={`${path}/${event.id}`}>{event.id}</a>
              </td>
              <td>{event.type}</td>
              <td>
                <Time value={event.createdAt} />
              </td>
              <td>
                {event.deliveries.succeeded + event.deliveries.pending + event.deliveries.failed === 0
                  ? 'none'
                  : `${event.deliveries.succeeded} delivered, ${event.deliveries.pending} pending, ${event.deliveries.failed} failed`}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={path} query={{ type: props.type }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

export function EventPage(props: { frame: Frame; event: EventView; deliveries: WebhookDeliveryView[]; endpointUrls: Map<string, string>; notice?: string | undefined; error?: string | undefined }) {
  const { frame, event } = props;
  return (
    <DashboardPage frame={frame} section="events" title={`Event ${event.id}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/developers/events')}>← Event log</a>
      </p>
      <div class="split">
        <h1>
          {event.type} <code>{event.id}</code>
        </h1>
        <ActionButton action={modePath(frame.mode, `/developers/events/${event.id}/redeliver`)} csrfToken={frame.csrfToken} label="Redeliver to all subscribed endpoints" />
      </div>
      <p>
        Recorded <Time value={at(event.createdAt)} />
      </p>
      <h2>Payload</h2>
      <pre tabindex={0} aria-label="Event payload">
        {JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, livemode: event.livemode, data: event.data }, null, 2)}
      </pre>
      <h2>Deliveries</h2>
      {props.deliveries.length === 0 ? (
        <EmptyState title="This event was not delivered to any endpoint.">
          <p>
            No enabled endpoint of this mode subscribes to {event.type}. <a href={modePath(frame.mode, '/developers/webhooks')}>Add or change an endpoint</a>, then redeliver.
          </p>
        </EmptyState>
      ) : (
        <DeliveriesTable frame={frame} deliveries={props.deliveries} endpointUrls={props.endpointUrls} showEvent={false} redeliverEventId={event.id} />
      )}
    </DashboardPage>
  );
}
