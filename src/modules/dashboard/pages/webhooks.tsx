import { eventTypes, type EventView } from '../../events/index.ts';
import { isTestEventId, type WebhookDeliveryView, type WebhookEndpointView } from '../../webhooks/index.ts';
import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { EndpointRowView, EventRowView } from '../presenters/webhooks.ts';
import { anyTime, type ListPeriod } from '../date-range.ts';
import { ActionButton, Badge, CsrfField, DataTable, EmptyState, ExportLink, Pagination, PeriodFilter, PostForm, SelectFilter, Time, CopyButton, mayShow } from './components.tsx';
import { deleteEndpointConfirmation, rotateWebhookSecretConfirmation } from './confirmations.tsx';
import { DashboardPage, type Frame } from './layout.tsx';
import { IdRow } from './detail-rows.tsx';

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
      <CopyButton value={props.secret} label="Copy the signing secret" />
    </div>
  );
}

export function WebhooksPage(props: { frame: Frame; endpoints: EndpointRowView[]; period: ListPeriod; created?: { id: string; secret: string }; error?: string | undefined; notice?: string | undefined; form?: { url: string; description: string; enabledEvents: string[] } }) {
  const { frame } = props;
  const base = modePath(frame.mode, '/developers/webhooks');
  return (
    <DashboardPage frame={frame} section="webhooks" title="Webhooks" notice={props.notice} error={props.error}>
      <h1>Webhook endpoints ({frame.mode})</h1>
      {props.created ? <SecretCard title="Endpoint added: its signing secret" secret={props.created.secret} /> : null}
      <PeriodFilter path={base} label="Filter webhook endpoints" period={props.period} exportPath={`${base}/export.csv`} />
      {props.endpoints.length === 0 ? (
        <EmptyState title={props.period.from || props.period.to ? 'No endpoint was added in this period.' : `No webhook endpoints in ${frame.mode}.`}>
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
                {endpoint.failingSince ? <span class="muted"> failing since <Time value={endpoint.failingSince} /></span> : null}
              </td>
              <td>
                <Time value={endpoint.createdAt} />
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      {mayShow(frame, 'POST', base) ? <h2 id="add-heading">Add an endpoint</h2> : null}
      <PostForm frame={frame} action={base} class="card" aria-labelledby="add-heading">
        <label for="endpoint-url">Address (URL)</label>
        <input id="endpoint-url" name="url" type="url" required maxlength={2048} placeholder="https://example.com/webhooks/paysail" value={props.form?.url ?? ''} aria-describedby="url-help" />
        <p class="muted" id="url-help">
          {frame.mode === 'live' ? 'Live endpoints must use https and a public address.' : 'Sandbox endpoints may use http.'} Answer with a 2xx status within 15 seconds.
        </p>
        <label for="endpoint-description">Description (optional)</label>
        <input id="endpoint-description" name="description" maxlength={255} value={props.form?.description ?? ''} />
        <EnabledEventsFieldset selected={props.form?.enabledEvents ?? []} />
        <button type="submit">Add endpoint</button>
      </PostForm>
    </DashboardPage>
  );
}

export function DeliveriesTable(props: { frame: Frame; deliveries: WebhookDeliveryView[]; endpointUrls?: Map<string, string>; showEvent: boolean; redeliverEventId?: string }) {
  const { frame } = props;
  return (
    <>
      {props.deliveries.map((delivery) => (
        <div class="card" id={delivery.id}>
          <div class="split">
            <p>
              <Badge value={delivery.status} /> {isTestEventId(delivery.eventId) ? <Badge value="TEST" /> : null}{' '}
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
                frame={frame}
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

/** Sends an example event of a chosen type to this endpoint only (webhooks.sendTestEvent). */
function TestEventForm(props: { frame: Frame; endpoint: WebhookEndpointView; action: string; eventTypes: readonly string[]; selected: string | undefined }) {
  const { endpoint } = props;
  if (!mayShow(props.frame, 'POST', props.action)) {
    return null;
  }
  return (
    <>
      <h2 id="test-heading">Send a test event</h2>
      {endpoint.status !== 'ENABLED' ? (
        <p class="muted">Enable this endpoint to send it a test event.</p>
      ) : props.eventTypes.length === 0 ? (
        <p class="muted">This endpoint receives only FRAUD_REPORTED events, which are not enabled for your account yet (ask your Paysail operator), so there is nothing to test.</p>
      ) : (
        <form method="post" action={props.action} class="card" aria-labelledby="test-heading">
          <CsrfField token={props.frame.csrfToken} />
          <p class="muted" id="test-help">
            An example event of the type you choose goes to this endpoint only, signed and retried like any other. Its id starts with <code>evt_test_</code> and the ids in its data
            with <code>…_test_</code>, so your code can tell it from a real one. Test events are not listed in the event log.
          </p>
          <label for="test-event-type">Event type</label>
          <select id="test-event-type" name="eventType" aria-describedby="test-help">
            {props.eventTypes.map((type) => (
              <option value={type} selected={props.selected === type}>
                {type}
              </option>
            ))}
          </select>
          <button type="submit">Send test event</button>
        </form>
      )}
    </>
  );
}

export function WebhookEndpointPage(props: {
  frame: Frame;
  endpoint: WebhookEndpointView;
  deliveries: PageOf<WebhookDeliveryView>;
  /** The creation period of the deliveries listed (none on the pages a form answers). */
  period?: ListPeriod;
  /** The event types a test event may have: the endpoint's, without FRAUD_REPORTED unless enabled for the merchant. */
  testEventTypes: readonly string[];
  /** The test event just queued (post/redirect/get), announced with a link to its delivery log. */
  queuedTestEventId?: string | undefined;
  /** The type picked in a refused test-event form. */
  testEventType?: string | undefined;
  secret?: { title: string; value: string };
  notice?: string | undefined;
  error?: string | undefined;
}) {
  const { frame, endpoint } = props;
  const period = props.period ?? anyTime;
  const base = modePath(frame.mode, `/developers/webhooks/${endpoint.id}`);
  return (
    <DashboardPage frame={frame} section="webhooks" title="Webhook endpoint" notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/developers/webhooks')}>← Webhook endpoints</a>
      </p>
      {props.queuedTestEventId ? (
        <div class="notice success" role="status">
          Test event <code>{props.queuedTestEventId}</code> was queued for delivery to this endpoint.{' '}
          <a href={modePath(frame.mode, `/developers/events/${props.queuedTestEventId}`)}>See its delivery log</a> (every attempt, with your endpoint's answer).
        </div>
      ) : null}
      <h1>
        {endpoint.url} <Badge value={endpoint.status === 'ENABLED' ? 'ACTIVE' : 'DISABLED'} />
      </h1>
      {props.secret ? <SecretCard title={props.secret.title} secret={props.secret.value} /> : null}
      <div class="card">
        <dl>
          <IdRow id={endpoint.id} copyLabel="Copy the endpoint ID" />
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
          {props.secret ? null : <ActionButton action={`${base}/reveal`} frame={frame} label="Reveal signing secret" tone="secondary" />}
          <ActionButton action={`${base}/rotate`} frame={frame} label="Rotate secret" tone="secondary" confirm={rotateWebhookSecretConfirmation(endpoint)} />
          <ActionButton action={`${base}/status`} frame={frame} label={endpoint.status === 'ENABLED' ? 'Disable' : 'Enable'} tone="secondary" fields={{ status: endpoint.status === 'ENABLED' ? 'DISABLED' : 'ENABLED' }} />
          <ActionButton action={`${base}/delete`} frame={frame} label="Delete endpoint" tone="danger" confirm={deleteEndpointConfirmation(endpoint)} />
        </div>
        {mayShow(frame, 'POST', `${base}/rotate`) ? <p class="muted">After a rotation the previous secret keeps signing for 24 hours, so you can switch without missing events.</p> : null}
      </div>
      <h2 id="events-heading">Events sent to this endpoint</h2>
      {mayShow(frame, 'POST', `${base}/events`) ? (
        <PostForm frame={frame} action={`${base}/events`} class="card" aria-labelledby="events-heading">
          <EnabledEventsFieldset selected={endpoint.enabledEvents} />
          <button type="submit">Save events</button>
        </PostForm>
      ) : (
        <p class="card">{endpoint.enabledEvents.length === 0 || endpoint.enabledEvents.includes('*') ? 'Every event, including types added later.' : endpoint.enabledEvents.join(', ')}</p>
      )}
      <TestEventForm frame={frame} endpoint={endpoint} action={`${base}/test`} eventTypes={props.testEventTypes} selected={props.testEventType} />
      <h2 id="deliveries">{props.deliveries.page > 1 ? 'Older deliveries' : 'Latest deliveries'}</h2>
      <PeriodFilter path={base} label="Filter deliveries" period={period} exportPath={`${base}/export.csv`} />
      {props.deliveries.items.length === 0 ? (
        period.from || period.to ? (
          <EmptyState title="No delivery in this period." />
        ) : props.deliveries.page > 1 ? (
          <EmptyState title="No deliveries on this page.">
            <p>
              <a href={`${base}#deliveries`}>Go to the latest deliveries</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title="Nothing was sent to this endpoint yet.">
            <p>Events are delivered as they happen{mayShow(frame, 'POST', `${base}/test`) ? '; redeliver a past one from the event log, or send a test event above.' : '.'}</p>
          </EmptyState>
        )
      ) : (
        <DeliveriesTable frame={frame} deliveries={props.deliveries.items} showEvent={true} />
      )}
      <Pagination path={base} query={{ from: period.from, to: period.to }} page={props.deliveries.page} hasMore={props.deliveries.hasMore} label="Deliveries pages" fragment="deliveries" />
    </DashboardPage>
  );
}

export function EventsPage(props: { frame: Frame; type: string | undefined; period: ListPeriod; result: PageOf<EventRowView> }) {
  const { frame, result, period } = props;
  const path = modePath(frame.mode, '/developers/events');
  const narrowed = Boolean(period.from || period.to);
  return (
    <DashboardPage frame={frame} section="events" title="Events">
      <h1>Event log ({frame.mode})</h1>
      <p class="muted">Every event of the last 30 days, with its webhook deliveries.</p>
      <SelectFilter path={path} label="Filter events" name="type" fieldLabel="Type" options={eventTypes} selected={props.type} period={period} exportPath={`${path}/export.csv`} />
      {result.items.length === 0 ? (
        <EmptyState title={narrowed ? 'No event in this period.' : props.type ? `No ${props.type} events.` : `No events in ${frame.mode} yet.`}>
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
      <Pagination path={path} query={{ type: props.type, from: period.from, to: period.to }} page={result.page} hasMore={result.hasMore} />
    </DashboardPage>
  );
}

export function EventPage(props: { frame: Frame; event: EventView; deliveries: PageOf<WebhookDeliveryView>; endpointUrls: Map<string, string>; notice?: string | undefined; error?: string | undefined }) {
  const { frame, event } = props;
  const isTest = isTestEventId(event.id);
  const base = modePath(frame.mode, `/developers/events/${event.id}`);
  return (
    <DashboardPage frame={frame} section="events" title={`Event ${event.id}`} notice={props.notice} error={props.error}>
      <p class="crumbs">
        <a href={modePath(frame.mode, '/developers/events')}>← Event log</a>
      </p>
      <div class="split">
        <h1>
          {event.type} <code>{event.id}</code> {isTest ? <Badge value="TEST" /> : null}
        </h1>
        {isTest ? null : <ActionButton action={modePath(frame.mode, `/developers/events/${event.id}/redeliver`)} frame={frame} label="Redeliver to all subscribed endpoints" />}
      </div>
      {isTest ? (
        <p>
          A test event, sent from an endpoint's page: its data is an example (ids with <code>_test_</code>), it goes only to that endpoint, and it is not listed in the event log
          or by <code>GET /v1/events</code>.
        </p>
      ) : null}
      <p>
        Recorded <Time value={at(event.createdAt)} />
      </p>
      <h2>Payload</h2>
      <pre tabindex={0} aria-label="Event payload">
        {JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt, livemode: event.livemode, data: event.data }, null, 2)}
      </pre>
      {/* No period: an event has one delivery an endpoint, all made when it happened (a redelivery reuses it). */}
      <div class="split">
        <h2 id="deliveries">Deliveries</h2>
        {props.deliveries.items.length > 0 && mayShow(frame, 'GET', `${base}/export.csv`) ? <ExportLink path={`${base}/export.csv`} query={{}} label="Export CSV of the deliveries" /> : null}
      </div>
      {props.deliveries.items.length === 0 ? (
        props.deliveries.page > 1 ? (
          <EmptyState title="No deliveries on this page.">
            <p>
              <a href={`${base}#deliveries`}>Go to the first page of deliveries</a>.
            </p>
          </EmptyState>
        ) : (
          <EmptyState title="This event was not delivered to any endpoint.">
            <p>
              No enabled endpoint of this mode subscribes to {event.type}. <a href={modePath(frame.mode, '/developers/webhooks')}>Add or change an endpoint</a>, then redeliver.
            </p>
          </EmptyState>
        )
      ) : (
        <DeliveriesTable frame={frame} deliveries={props.deliveries.items} endpointUrls={props.endpointUrls} showEvent={false} redeliverEventId={event.id} />
      )}
      <Pagination path={base} query={{}} page={props.deliveries.page} hasMore={props.deliveries.hasMore} label="Deliveries pages" fragment="deliveries" />
    </DashboardPage>
  );
}
