import { modePath } from '../paths.ts';
import type { PageOf } from '../presenters/pagination.ts';
import type { ApiKeyRowView, PiiKeyRowView } from '../presenters/developers.ts';
import { ActionButton, Badge, DataTable, EmptyState, Pagination, PeriodFilter, PostForm, Time, CopyButton, mayShow } from './components.tsx';
import type { ListPeriod } from '../date-range.ts';
import { revokeApiKeyConfirmation, rotatePiiKeyConfirmation } from './confirmations.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

export function ApiKeysPage(props: { frame: Frame; keys: PageOf<ApiKeyRowView>; period: ListPeriod; created?: { name: string; apiKey: string }; notice?: string | undefined; error?: string | undefined }) {
  const { frame } = props;
  const base = modePath(frame.mode, '/developers/api-keys');
  // One column header for a role that may not revoke: when each key was revoked, not an empty Action.
  const mayRevoke = mayShow(frame, 'POST', `${base}/key_0/revoke`);
  return (
    <DashboardPage frame={frame} section="api-keys" title="API keys" notice={props.notice} error={props.error}>
      <h1>API keys</h1>
      <p class="muted">
        A key works in both modes: send it as the HTTP Basic user name with an empty password, and add <code>livemode=false</code> to work in sandbox.
      </p>
      {props.created ? (
        <div class="card" role="status" aria-labelledby="new-key-heading">
          <h2 id="new-key-heading">New key “{props.created.name}”</h2>
          <p>
            <strong>Copy it now: it is shown only this once.</strong> Paysail stores only its hash.
          </p>
          <code class="secret" id="new-api-key">
            {props.created.apiKey}
          </code>
          <CopyButton value={props.created.apiKey} label="Copy the new API key" />
        </div>
      ) : null}
      <PostForm frame={frame} action={base} class="card toolbar" aria-labelledby="create-key-heading">
        <h2 id="create-key-heading" class="visually-hidden">
          Create a key
        </h2>
        <div>
          <label for="key-name">New key name</label>
          <input id="key-name" name="name" required maxlength={100} placeholder="e.g. Production server" />
        </div>
        <div class="buttons">
          <button type="submit">Create key</button>
        </div>
      </PostForm>
      <PeriodFilter path={base} label="Filter API keys" period={props.period} exportPath={`${base}/export.csv`} />
      {props.keys.items.length === 0 ? (
        <EmptyState title={props.keys.page > 1 ? 'No API keys on this page.' : props.period.from || props.period.to ? 'No API key was created in this period.' : 'No API keys.'}>
          {mayShow(frame, 'POST', base) ? <p>Create one above to call the API.</p> : <p>A team member who may create keys can make one to call the API.</p>}
        </EmptyState>
      ) : (
        <DataTable label="API keys" headers={['Name', 'Key', 'Created', 'Last used', 'Status', mayRevoke ? 'Action' : 'Revoked']}>
          {props.keys.items.map((key) => (
            <tr>
              <td id={`key-${key.id}`}>{key.name}</td>
              <td>
                <code>sk_…{key.last4}</code>
              </td>
              <td>
                <Time value={key.createdAt} />
              </td>
              <td>
                <Time value={key.lastUsedAt} fallback="never" />
              </td>
              <td>{key.revokedAt ? <Badge value="REVOKED" /> : <Badge value="ACTIVE" />}</td>
              <td>
                {key.revokedAt ? (
                  <Time value={key.revokedAt} />
                ) : !mayRevoke ? (
                  <span class="muted">—</span>
                ) : (
                  <ActionButton action={`${base}/${key.id}/revoke`} frame={frame} label="Revoke" tone="danger" describedBy={`key-${key.id}`} confirm={revokeApiKeyConfirmation(key)} />
                )}
              </td>
            </tr>
          ))}
        </DataTable>
      )}
      <Pagination path={base} query={{ from: props.period.from, to: props.period.to }} page={props.keys.page} hasMore={props.keys.hasMore} />
    </DashboardPage>
  );
}

const decryptExample = (kid: string, key: string) => `// npm install jose
import { compactDecrypt, decodeProtectedHeader } from 'jose';

// Your PII keys by id (kid). Keep them secret, like an API key.
const piiKeys = { '${kid}': Buffer.from('${key}', 'base64url') };

export async function decryptField(jwe) {
  const { kid } = decodeProtectedHeader(jwe);
  const { plaintext } = await compactDecrypt(jwe, piiKeys[kid]);
  return new TextDecoder().decode(plaintext);
}

// e.g. await decryptField(customer.firstName)`;

/** `revealed`: the material of every key (after "Reveal keys"); the table shows the keys of `keys`' page. */
/** What the Reveal form carries so the revealed list is the one on screen: its page and period. */
function revealFields(page: number, period: ListPeriod): Record<string, string> {
  return Object.fromEntries(Object.entries({ page: page > 1 ? String(page) : '', from: period.from, to: period.to }).filter(([, value]) => value !== ''));
}

export function PiiKeyPage(props: { frame: Frame; keys: PageOf<PiiKeyRowView>; period: ListPeriod; revealed?: Array<{ id: string; key: string; active: boolean }>; notice?: string | undefined }) {
  const { frame, keys } = props;
  const base = modePath(frame.mode, '/developers/pii-key');
  const material = new Map((props.revealed ?? []).map((key) => [key.id, key.key]));
  // The example uses the active key, wherever it is in the list (normally on the first page).
  const active = props.revealed?.find((key) => key.active) ?? keys.items.find((key) => key.active);
  const activeKey = active ? material.get(active.id) : undefined;
  return (
    <DashboardPage frame={frame} section="pii-key" title="PII key" notice={props.notice}>
      <h1>PII key</h1>
      <p>
        The API returns customers' personal data (names, date of birth, phone, address) as JWE (<code>alg: dir</code>, <code>enc: A256GCM</code>) encrypted with this key. The JWE header's <code>kid</code> names
        the key that encrypted it; keys you rotated away still decrypt what they encrypted.
      </p>
      <div class="toolbar">
        {props.revealed ? null : <ActionButton action={`${base}/reveal`} frame={frame} label="Reveal keys" fields={revealFields(keys.page, props.period)} />}
        <ActionButton action={`${base}/rotate`} frame={frame} label="Rotate key" tone="secondary" confirm={rotatePiiKeyConfirmation()} />
      </div>
      <PeriodFilter path={base} label="Filter PII keys" period={props.period} exportPath={`${base}/export.csv`} />
      {keys.items.length === 0 ? (
        <EmptyState title={keys.page > 1 ? 'No PII keys on this page.' : props.period.from || props.period.to ? 'No PII key was created in this period.' : 'No PII keys.'} />
      ) : (
        <DataTable label="PII keys" headers={['Key id', 'Status', 'Created', 'Key (base64url)']}>
          {keys.items.map((key) => {
            const value = material.get(key.id);
            return (
              <tr>
                <td>
                  <code>{key.id}</code>
                </td>
                <td>{key.active ? <Badge value="ACTIVE" /> : <span class="muted">retired</span>}</td>
                <td>
                  <Time value={key.createdAt} />
                </td>
                <td>
                  {value ? (
                    <>
                      <code class="secret">{value}</code>
                      <CopyButton value={value} label={`Copy PII key ${key.id}`} />
                    </>
                  ) : (
                    <span class="muted">hidden: use Reveal keys</span>
                  )}
                </td>
              </tr>
            );
          })}
        </DataTable>
      )}
      <Pagination path={base} query={{ from: props.period.from, to: props.period.to }} page={keys.page} hasMore={keys.hasMore} />
      <h2>Decrypt a field (Node.js)</h2>
      <pre tabindex={0} aria-label="Decryption example">
        <code>{decryptExample(active?.id ?? 'pii_…', props.revealed ? (activeKey ?? '<your key>') : '<your key: use Reveal keys>')}</code>
      </pre>
    </DashboardPage>
  );
}
