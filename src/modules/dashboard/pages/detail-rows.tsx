import { CopyButton, Time } from './components.tsx';

/** Rows of a detail page's `<dl>` that several resources show alike (the payment and payout pages, subscriptions, webhook endpoints). */
export function IdRow(props: { id: string; copyLabel: string }) {
  return (
    <>
      <dt>ID</dt>
      <dd>
        <code>{props.id}</code>
        <CopyButton value={props.id} label={props.copyLabel} />
      </dd>
    </>
  );
}

/** A hosted page's address: the link and its Copy button. */
export function PageAddressRow(props: { term: string; url: string }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>
        <a href={props.url}>{props.url}</a>
        <CopyButton value={props.url} label="Copy the page address" />
      </dd>
    </>
  );
}

/** A moment given in epoch milliseconds, as the API answers it. */
export function TimeRow(props: { term: string; at: number }) {
  return (
    <>
      <dt>{props.term}</dt>
      <dd>
        <Time value={new Date(props.at)} />
      </dd>
    </>
  );
}

/** The merchant's metadata, one row a key. */
export function MetadataRows(props: { metadata: Record<string, string> }) {
  return (
    <>
      {Object.entries(props.metadata).map(([key, value]) => (
        <>
          <dt>
            <code>{key}</code>
          </dt>
          <dd>{value}</dd>
        </>
      ))}
    </>
  );
}
