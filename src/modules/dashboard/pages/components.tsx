import type { Child } from 'hono/jsx';
import { withQuery } from '../paths.ts';
import { statusInWords } from './status-words.ts';
import { ConfirmDialog, confirmId, type Confirmation } from './confirm-dialog.tsx';
import { mayReach, roleWords, rolesFor } from '../access.ts';
import type { Frame } from './layout.tsx';

/** What a page needs to render an action: the form token and the role that decides whether to show it. */
export type ActionFrame = Pick<Frame, 'csrfToken' | 'role'>;

/**
 * Whether this page shows the signed-in role a link (GET) or form (POST) to `address`: the matrix of
 * access.ts decides, so a screen never offers what would answer 403.
 */
export function mayShow(frame: Pick<Frame, 'role'>, method: 'GET' | 'POST', address: string): boolean {
  return mayReach(frame.role, method, address);
}

/** ISO time in `datetime`, UTC text inside; the layout's script rewrites it to the browser's time zone. */
export function Time(props: { value: Date | null | undefined; fallback?: string }) {
  if (!props.value) {
    return <span class="muted">{props.fallback ?? '—'}</span>;
  }
  const iso = props.value.toISOString();
  return (
    <time datetime={iso} data-local="">
      {`${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC`}
    </time>
  );
}

const amountFormat = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Every currency the platform handles (USD, EUR, GBP, USDC) has two decimals of minor units. */
export function formatMoney(minorUnits: number, currency: string): string {
  return `${amountFormat.format(minorUnits / 100)} ${currency}`;
}

export function Money(props: { amount: number; currency: string }) {
  return <span class="money">{formatMoney(props.amount, props.currency)}</span>;
}

const toneOf: Record<string, 'good' | 'bad' | 'warn' | 'neutral'> = {
  APPROVED: 'good',
  PROCESSED: 'good',
  PAID: 'good',
  SUCCEEDED: 'good',
  ACTIVE: 'good',
  sent: 'good',
  stored: 'neutral',
  REJECTED: 'bad',
  FAILED: 'bad',
  DECLINED: 'bad',
  failed: 'bad',
  PAST_DUE: 'bad',
  CANCELED: 'neutral',
  EXPIRED: 'neutral',
  PENDING: 'warn',
  PROCESSING: 'warn',
  queued: 'warn',
  NEEDS_RESPONSE: 'warn',
  UNDER_REVIEW: 'warn',
  WON: 'good',
  LOST: 'bad',
};

/** A status in words, coloured by its tone; the code (as the API answers it) is in the tooltip. */
export function Badge(props: { value: string; words?: string }) {
  return (
    <span class={`badge ${toneOf[props.value] ?? 'neutral'}`} title={`Status code: ${props.value}`} data-code={props.value}>
      {props.words ?? statusInWords(props.value)}
    </span>
  );
}

export function CsrfField(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

/**
 * A POST button: one form per action, with the CSRF token. An irreversible action passes `confirm`
 * (what will happen): the button then opens an accessible dialog that says it (with JavaScript), and
 * without JavaScript the form posts without `confirmed=1`, so the server answers its confirmation page.
 */
export function ActionButton(props: {
  action: string;
  frame: ActionFrame;
  label: string;
  tone?: 'danger' | 'secondary';
  fields?: Record<string, string>;
  describedBy?: string;
  confirm?: Confirmation;
}) {
  if (!mayShow(props.frame, 'POST', props.action)) {
    return null;
  }
  const dialogId = props.confirm ? confirmId(props.action) : undefined;
  return (
    <form method="post" action={props.action} class="inline" data-confirm={dialogId}>
      <CsrfField token={props.frame.csrfToken} />
      {Object.entries(props.fields ?? {}).map(([name, value]) => (
        <input type="hidden" name={name} value={value} />
      ))}
      <button type="submit" class={props.tone} aria-describedby={props.describedBy} aria-haspopup={dialogId ? 'dialog' : undefined}>
        {props.label}
      </button>
      {props.confirm && dialogId ? <ConfirmDialog id={dialogId} confirmation={props.confirm} /> : null}
    </form>
  );
}

/**
 * In place of an action the role may not use, where the screen would otherwise not say why it is
 * missing: who can do it, from the matrix (access.ts).
 */
export function RoleNote(props: { frame: Pick<Frame, 'role'>; action: string; what: string }) {
  const names = rolesFor('POST', props.action).map((role) => roleWords[role].name);
  const who = names.length > 1 ? `${names.slice(0, -1).join(', ')} or ${names.at(-1)}` : (names[0] ?? 'Owner');
  return (
    <p class="muted role-note">
      Your role ({roleWords[props.frame.role].name}) does not allow you to {props.what}. A team member with the {who} role can.
    </p>
  );
}

/**
 * A POST form with its CSRF token, rendered only when the role may post it (the matrix of access.ts);
 * the other attributes go onto the form as they are.
 */
export function PostForm(props: { frame: ActionFrame; action: string; children?: Child } & Record<string, unknown>) {
  const { frame, action, children, ...attributes } = props;
  if (!mayShow(frame, 'POST', action)) {
    return null;
  }
  return (
    <form method="post" action={action} {...attributes}>
      <CsrfField token={frame.csrfToken} />
      {children}
    </form>
  );
}

/** A link to a screen that is the first step of an action (a create form, a download): shown only when the role may open it. */
export function ActionLink(props: { frame: Pick<Frame, 'role'>; href: string; children?: Child } & Record<string, unknown>) {
  const { frame, href, children, ...attributes } = props;
  if (!mayShow(frame, 'GET', href)) {
    return null;
  }
  return (
    <a {...attributes} href={href}>
      {children}
    </a>
  );
}

/** A list screen's heading with its create button (`newPath`, shown when the role may open it). */
export function ListHeading(props: { frame: Pick<Frame, 'role'>; title: string; newPath: string; newLabel: string }) {
  return (
    <div class="split">
      <h1>{props.title}</h1>
      <ActionLink frame={props.frame} class="button" href={props.newPath}>
        {props.newLabel}
      </ActionLink>
    </div>
  );
}

/** Says what is missing and what to do about it. */
export function EmptyState(props: { title: string; children?: Child }) {
  return (
    <div class="card empty">
      <p>
        <strong>{props.title}</strong>
      </p>
      {props.children}
    </div>
  );
}

/** A table that scrolls sideways on a phone; the region is focusable so keyboards can scroll it too. */
export function DataTable(props: { label: string; headers: string[]; children?: Child }) {
  return (
    <div class="table-wrap" role="region" aria-label={props.label} tabindex={0}>
      <table>
        <thead>
          <tr>
            {props.headers.map((header) => (
              <th scope="col">{header}</th>
            ))}
          </tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  );
}

/**
 * Previous/next links of an offset-paged list. `parameter` names the page query parameter (a screen
 * with two lists pages each with its own); `query` keeps the filters and the other list's page.
 * `fragment` brings the reader back to the list on a long page.
 */
export function Pagination(props: { path: string; query: Record<string, string | number | undefined>; page: number; hasMore: boolean; parameter?: string; label?: string; fragment?: string }) {
  if (props.page <= 1 && !props.hasMore) {
    return null;
  }
  const parameter = props.parameter ?? 'page';
  const hash = props.fragment ? `#${props.fragment}` : '';
  const link = (page: number) => `${withQuery(props.path, { ...props.query, [parameter]: page === 1 ? undefined : page })}${hash}`;
  return (
    <nav class="pagination" aria-label={props.label ?? 'Pagination'}>
      {props.page > 1 ? (
        <a href={link(props.page - 1)} rel="prev">
          ← Previous
        </a>
      ) : (
        <span class="muted">← Previous</span>
      )}
      <span>Page {props.page}</span>
      {props.hasMore ? (
        <a href={link(props.page + 1)} rel="next">
          Next →
        </a>
      ) : (
        <span class="muted">Next →</span>
      )}
    </nav>
  );
}

export function Notice(props: { message: string | undefined; tone?: 'success' | 'error' }) {
  if (!props.message) {
    return null;
  }
  return (
    <div class={`notice ${props.tone ?? 'success'}`} role={props.tone === 'error' ? 'alert' : 'status'}>
      {props.message}
    </div>
  );
}

export function Field(props: { label: string; children?: Child }) {
  return (
    <>
      <dt>{props.label}</dt>
      <dd>{props.children}</dd>
    </>
  );
}

/** A list's creation period: two UTC-day inputs named `from` and `to` (`idPrefix` keeps their ids apart from the form's other fields). */
export function PeriodFields(props: { period: { from: string; to: string }; idPrefix?: string }) {
  const prefix = props.idPrefix ?? '';
  return (
    <>
      <div class="date">
        <label for={`${prefix}from`}>Created from (UTC day)</label>
        <input type="date" id={`${prefix}from`} name="from" value={props.period.from} />
      </div>
      <div class="date">
        <label for={`${prefix}to`}>to (UTC day)</label>
        <input type="date" id={`${prefix}to`} name="to" value={props.period.to} />
      </div>
    </>
  );
}

/** A list's CSV download: its `export.csv` with the screen's filters (the same query string). */
export function ExportLink(props: { path: string; query: Record<string, string | undefined>; /** Names the list when a page has several (the name starts with "Export CSV"). */ label?: string }) {
  return (
    <a class="button secondary" href={withQuery(props.path, props.query)} download="" aria-label={props.label}>
      Export CSV
    </a>
  );
}

/**
 * The filter of a list whose only filter is its creation period: the two days, Filter, Clear (when
 * a period is set) and the CSV of what the period selects.
 */
/** `exportPath` undefined: no CSV link (a role the matrix does not let download it). */
export function PeriodFilter(props: { path: string; label: string; period: { from: string; to: string }; exportPath: string | undefined }) {
  const filtered = Boolean(props.period.from || props.period.to);
  return (
    <form method="get" action={props.path} class="toolbar" aria-label={props.label}>
      <PeriodFields period={props.period} />
      <FilterButtons submit="Filter" path={props.path} filtered={filtered}>
        {props.exportPath ? <ExportLink path={props.exportPath} query={{ from: props.period.from, to: props.period.to }} /> : null}
      </FilterButtons>
    </form>
  );
}

/** The buttons of a list's filter form: submit, the CSV link (`children`) and, once a filter is set, Clear (the unfiltered list). */
export function FilterButtons(props: { submit: string; path: string; filtered: boolean; children?: Child }) {
  return (
    <div class="buttons">
      <button type="submit">{props.submit}</button>
      {props.children}
      {props.filtered ? (
        <a class="button secondary" href={props.path}>
          Clear
        </a>
      ) : null}
    </div>
  );
}

export interface FilterOption {
  value: string;
  label: string;
}

/**
 * The one-select filter of a list screen: a GET form with a select (`name`, "Any" first) and a
 * Filter button. `options` are values (shown as they are) or value/label pairs.
 */
export function SelectFilter(props: {
  path: string;
  label: string;
  name: string;
  fieldLabel: string;
  options: ReadonlyArray<string | FilterOption>;
  selected: string | undefined;
  /** The list's creation period (UTC days) when the list has one. */
  period?: { from: string; to: string } | undefined;
  /** The CSV of every row the filters select (the same query string). */
  exportPath?: string | undefined;
}) {
  const exportQuery = { [props.name]: props.selected, from: props.period?.from, to: props.period?.to };
  return (
    <form method="get" action={props.path} class="toolbar" aria-label={props.label}>
      <div>
        <label for={props.name}>{props.fieldLabel}</label>
        <select id={props.name} name={props.name}>
          <option value="">Any</option>
          {props.options.map((option) => {
            const { value, label } = typeof option === 'string' ? { value: option, label: option } : option;
            return (
              <option value={value} selected={props.selected === value}>
                {label}
              </option>
            );
          })}
        </select>
      </div>
      {props.period ? <PeriodFields period={props.period} idPrefix={`${props.name}-`} /> : null}
      <div class="buttons">
        <button type="submit">Filter</button>
        {props.exportPath ? <ExportLink path={props.exportPath} query={exportQuery} /> : null}
      </div>
    </form>
  );
}

/** The status filter of a list screen (`status`). */
export function StatusFilter(props: { path: string; label: string; options: ReadonlyArray<string | FilterOption>; selected: string | undefined; period?: { from: string; to: string }; exportPath?: string }) {
  const options = props.options.map((option) => (typeof option === 'string' ? { value: option, label: statusInWords(option) } : option));
  return <SelectFilter {...props} options={options} name="status" fieldLabel="Status" />;
}

/**
 * A "Copy" button for an id, key, secret or link. It is rendered hidden and shown by the layout's
 * script when the browser can copy (the Clipboard API on a secure or loopback origin), so a page
 * without JavaScript shows no dead button; the value stays selectable text either way.
 */
export function CopyButton(props: { value: string; label: string }) {
  return (
    <button type="button" class="copy" data-copy={props.value} aria-label={props.label} hidden>
      Copy
    </button>
  );
}
