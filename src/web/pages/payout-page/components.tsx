import type { Child } from 'hono/jsx';
import { Layout } from '../../layout.tsx';
import { formatAmount, type CryptoNetwork, type PayoutMethodType } from '../../../modules/payout-pages/index.ts';

/**
 * The hosted payout page's building blocks. Server-rendered with hono/jsx (every interpolated value
 * is escaped), usable without JavaScript (there is none), one column on phones. Forms carry the CSRF
 * token; errors are listed in a summary that links to each field and repeated beside the field.
 */

export const pageStyles = `
.merchant { font-weight: 600; color: var(--muted); margin: 0; }
.hint { font-size: 0.9rem; color: var(--muted); margin: 0.25rem 0 0; }
.field-error { color: var(--bad); font-size: 0.95rem; margin: 0.25rem 0 0; }
input[aria-invalid="true"], select[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
input[readonly] { background: #f1f5f9; color: var(--muted); }
.sandbox { background: #fef3c7; border: 1px solid #f59e0b; border-radius: 8px; padding: 0.5rem 0.75rem; font-size: 0.9rem; }
.notice { background: #eff6ff; border: 1px solid #93c5fd; border-radius: 8px; padding: 0.5rem 0.75rem; }
.code-input { font-size: 1.5rem; letter-spacing: 0.4em; text-align: center; font-variant-numeric: tabular-nums; }
.links { margin-top: 1.5rem; text-align: center; }
.links a { color: var(--muted); }
.status { font-size: 1.1rem; font-weight: 600; }
.mono { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; word-break: break-all; }
.inline-form { display: inline; }
`;

export interface PageSummary {
  id: string;
  merchantName: string;
  amount: number;
  currency: string;
  livemode: boolean;
  expiresAt: Date;
}

export type FieldErrors = Record<string, string>;

export const networkLabels: Record<CryptoNetwork, string> = { ETHEREUM: 'Ethereum', POLYGON: 'Polygon', BASE: 'Base', SOLANA: 'Solana' };
export const methodLabels: Record<PayoutMethodType, string> = { BANK_TRANSFER: 'Bank transfer (US bank account)', CRYPTO_WALLET: 'Crypto wallet (USDC)' };

export function Shell(props: { nonce: string; title: string; summary: PageSummary; children?: Child; refreshSeconds?: number }) {
  return (
    <Layout title={`${props.title} · ${props.summary.merchantName}`} nonce={props.nonce} styles={pageStyles} {...(props.refreshSeconds ? { refreshSeconds: props.refreshSeconds } : {})}>
      {props.summary.livemode ? null : (
        <p class="sandbox" role="note">
          Sandbox: no real money moves.
        </p>
      )}
      <p class="merchant">{props.summary.merchantName}</p>
      <p class="amount" aria-label={`Amount: ${formatAmount(props.summary.amount, props.summary.currency)}`}>
        {formatAmount(props.summary.amount, props.summary.currency)}
      </p>
      {props.children}
    </Layout>
  );
}

export function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

export function ErrorSummary(props: { errors: FieldErrors; labels: Record<string, string> }) {
  const entries = Object.entries(props.errors);
  if (entries.length === 0) {
    return null;
  }
  return (
    <div class="error-summary" role="alert" tabindex={-1} aria-labelledby="error-summary-title">
      <p id="error-summary-title" class="error">
        Please correct the following:
      </p>
      <ul>
        {entries.map(([field, message]) => (
          <li>
            <a href={`#${field}`}>{props.labels[field] ? `${props.labels[field]}: ${message}` : message}</a>
          </li>
        ))}
      </ul>
    </div>
  );
}

export function Field(props: {
  name: string;
  label: string;
  value?: string;
  errors: FieldErrors;
  hint?: string;
  type?: string;
  autocomplete?: string;
  inputmode?: 'numeric' | 'tel' | 'text';
  required?: boolean;
  readonly?: boolean;
  maxlength?: number;
  pattern?: string;
}) {
  const error = props.errors[props.name];
  const describedBy = [props.hint ? `${props.name}-hint` : null, error ? `${props.name}-error` : null].filter((id) => id !== null).join(' ');
  return (
    <div>
      <label for={props.name}>{props.label}</label>
      <input
        id={props.name}
        name={props.name}
        type={props.type ?? 'text'}
        value={props.value ?? ''}
        autocomplete={props.autocomplete ?? 'off'}
        {...(props.inputmode ? { inputmode: props.inputmode } : {})}
        {...(props.required ? { required: true } : {})}
        {...(props.readonly ? { readonly: true } : {})}
        {...(props.maxlength ? { maxlength: props.maxlength } : {})}
        {...(props.pattern ? { pattern: props.pattern } : {})}
        {...(describedBy ? { 'aria-describedby': describedBy } : {})}
        {...(error ? { 'aria-invalid': 'true' } : {})}
      />
      {props.hint ? (
        <p class="hint" id={`${props.name}-hint`}>
          {props.hint}
        </p>
      ) : null}
      {error ? (
        <p class="field-error" id={`${props.name}-error`}>
          {error}
        </p>
      ) : null}
    </div>
  );
}

export function DeclineLink(props: { id: string }) {
  return (
    <p class="links">
      <a href={`/payout-page/${props.id}?step=decline`}>I don’t want this payout</a>
    </p>
  );
}

export function ReturnButton(props: { id: string; csrfToken: string; label: string }) {
  return (
    <form method="post" action={`/payout-page/${props.id}/return`}>
      <Csrf token={props.csrfToken} />
      <button type="submit" class="secondary">
        {props.label}
      </button>
    </form>
  );
}
