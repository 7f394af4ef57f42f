import type { Child } from 'hono/jsx';
import { Layout } from '../../layout.tsx';
import type { Brand } from '../../../modules/merchants/index.ts';
import { formatAmount, type CryptoNetwork, type PayoutMethodType } from '../../../modules/payout-pages/index.ts';
import { StepIndicator, stepStyles, type PayoutStep } from './steps.tsx';
import { payoutPageScript } from './payout-script.ts';
import { statusWatchScript, statusWatchStyles } from '../../status-watch.tsx';

/**
 * The hosted payout page's building blocks. Server-rendered with hono/jsx (every interpolated value
 * is escaped), usable without JavaScript (a small nonce'd script only enhances: payout-script.ts), one
 * column on phones. Forms carry the CSRF
 * token; errors are listed in a summary that links to each field and repeated beside the field.
 */

export const pageStyles = `
.hint { font-size: 0.9rem; color: var(--muted); margin: 0.25rem 0 0; }
.field-error { color: var(--bad); font-size: 0.95rem; margin: 0.25rem 0 0; }
.field-error:empty { margin: 0; }
select { min-height: 2.95rem; }
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
.transaction { border-top: 1px solid var(--line); margin-top: 1rem; padding-top: 0.75rem; }
.transaction .mono { background: #f1f5f9; border-radius: 6px; padding: 0.5rem 0.6rem; margin: 0.25rem 0; }
.transaction-actions { display: flex; flex-wrap: wrap; gap: 0.5rem 1rem; align-items: center; }
.transaction-actions button { width: auto; margin: 0; padding: 0.4rem 0.9rem; }
.transaction-actions button[hidden] { display: none; }
`;

export interface PageSummary {
  id: string;
  merchantName: string;
  /** The merchant's branding: the layout's header, buttons, footer and icon. */
  brand: Brand;
  amount: number;
  currency: string;
  livemode: boolean;
  expiresAt: Date;
}

export type FieldErrors = Record<string, string>;

export const networkLabels: Record<CryptoNetwork, string> = { ETHEREUM: 'Ethereum', POLYGON: 'Polygon', BASE: 'Base', SOLANA: 'Solana' };
export const methodLabels: Record<PayoutMethodType, string> = { BANK_TRANSFER: 'Bank transfer (US bank account)', CRYPTO_WALLET: 'Crypto wallet (USDC)' };

/** `step`: where the customer is in the flow (the step indicator); none on pages outside it (locked, declined, expired before confirmation). */
export function Shell(props: { nonce: string; title: string; summary: PageSummary; children?: Child; refreshSeconds?: number; step?: PayoutStep; finished?: boolean }) {
  return (
    <Layout
      title={`${props.title} · ${props.summary.merchantName}`}
      nonce={props.nonce}
      brand={props.summary.brand}
      styles={pageStyles + stepStyles + (props.refreshSeconds ? statusWatchStyles : '')}
      script={props.refreshSeconds ? payoutPageScript + statusWatchScript : payoutPageScript}
    >
      {props.summary.livemode ? null : (
        <p class="sandbox" role="note">
          Sandbox: no real money moves.
        </p>
      )}
      <p class="amount" aria-label={`Amount: ${formatAmount(props.summary.amount, props.summary.currency)}`}>
        {formatAmount(props.summary.amount, props.summary.currency)}
      </p>
      {props.step ? <StepIndicator current={props.step} finished={props.finished ?? false} /> : null}
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
  /** The error paragraph is always there (empty when fine) and polite-live, for the page's script to fill while the customer types. */
  liveError?: boolean;
}) {
  const error = props.errors[props.name];
  const describedBy = [props.hint ? `${props.name}-hint` : null, error || props.liveError ? `${props.name}-error` : null].filter((id) => id !== null).join(' ');
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
      {error || props.liveError ? (
        <p class="field-error" id={`${props.name}-error`} {...(props.liveError ? { 'aria-live': 'polite' } : {})}>
          {error ?? ''}
        </p>
      ) : null}
    </div>
  );
}

/** A select with its label, hint and error, wired like `Field`; `placeholder` is an empty first option. */
export function SelectField(props: {
  name: string;
  label: string;
  value?: string;
  errors: FieldErrors;
  options: ReadonlyArray<{ value: string; label: string }>;
  placeholder?: string;
  hint?: string;
  autocomplete?: string;
  required?: boolean;
}) {
  const error = props.errors[props.name];
  const describedBy = [props.hint ? `${props.name}-hint` : null, error ? `${props.name}-error` : null].filter((id) => id !== null).join(' ');
  return (
    <div>
      <label for={props.name}>{props.label}</label>
      <select
        id={props.name}
        name={props.name}
        {...(props.autocomplete ? { autocomplete: props.autocomplete } : {})}
        {...(props.required ? { required: true } : {})}
        {...(describedBy ? { 'aria-describedby': describedBy } : {})}
        {...(error ? { 'aria-invalid': 'true' } : {})}
      >
        {props.placeholder !== undefined ? <option value="">{props.placeholder}</option> : null}
        {props.options.map((option) => (
          <option value={option.value} {...(option.value === props.value ? { selected: true } : {})}>
            {option.label}
          </option>
        ))}
      </select>
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
