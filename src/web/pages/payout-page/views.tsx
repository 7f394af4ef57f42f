import type { Child } from 'hono/jsx';
import { Layout } from '../../layout.tsx';
import { formatAmount, formatDate } from '../../../modules/payout-pages/emails.ts';
import type { PayoutMethodMask } from '../../../db/schema/index.ts';
import type { CryptoNetwork, PayoutMethodType } from '../../../modules/payout-pages/destinations.ts';

/**
 * The hosted payout page's views. Server-rendered with hono/jsx (every interpolated value is
 * escaped), usable without JavaScript (there is none), one column on phones. Forms carry the CSRF
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

function Shell(props: { nonce: string; title: string; summary: PageSummary; children?: Child; refreshSeconds?: number }) {
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

function Csrf(props: { token: string }) {
  return <input type="hidden" name="_csrf" value={props.token} />;
}

function ErrorSummary(props: { errors: FieldErrors; labels: Record<string, string> }) {
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

function Field(props: {
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

function DeclineLink(props: { id: string }) {
  return (
    <p class="links">
      <a href={`/payout-page/${props.id}?step=decline`}>I don’t want this payout</a>
    </p>
  );
}

function ReturnButton(props: { id: string; csrfToken: string; label: string }) {
  return (
    <form method="post" action={`/payout-page/${props.id}/return`}>
      <Csrf token={props.csrfToken} />
      <button type="submit" class="secondary">
        {props.label}
      </button>
    </form>
  );
}

export type VerifyNotice = 'sent' | 'recently_sent' | 'too_many' | 'wrong' | 'no_code' | 'session_expired' | null;

const verifyNotices: Record<Exclude<VerifyNotice, null>, string> = {
  sent: 'We sent a 6-digit code to your e-mail address. It is valid for 10 minutes.',
  recently_sent: 'We sent you a code a moment ago. Check your inbox (and spam folder) before asking for another.',
  too_many: 'Too many codes were requested. Please wait an hour and try again.',
  wrong: 'That code is not correct.',
  no_code: 'That code has expired or was used up. Ask for a new one.',
  session_expired: 'For your security, please verify again.',
};

/** Before anything stored about the customer is shown: prove access to the e-mail address. */
export function VerifyPage(props: { nonce: string; summary: PageSummary; csrfToken: string; codePending: boolean; attemptsLeft?: number; notice: VerifyNotice }) {
  const { summary } = props;
  const isError = props.notice === 'wrong' || props.notice === 'no_code' || props.notice === 'too_many';
  return (
    <Shell nonce={props.nonce} title="Verify it’s you" summary={summary}>
      <h1>{summary.merchantName} is sending you a payout</h1>
      <p>
        To protect your details, first confirm it’s you. We’ll e-mail a 6-digit code to the address {summary.merchantName} has on file.
      </p>
      {props.notice ? (
        <p class={isError ? 'error-summary' : 'notice'} role={isError ? 'alert' : 'status'}>
          {verifyNotices[props.notice]}
          {props.notice === 'wrong' && props.attemptsLeft !== undefined ? ` ${props.attemptsLeft} ${props.attemptsLeft === 1 ? 'attempt' : 'attempts'} left.` : ''}
        </p>
      ) : null}
      {props.codePending ? (
        <div class="card">
          <form method="post" action={`/payout-page/${summary.id}/verify`} novalidate>
            <Csrf token={props.csrfToken} />
            <label for="code">6-digit code</label>
            <input
              id="code"
              name="code"
              class="code-input"
              type="text"
              inputmode="numeric"
              autocomplete="one-time-code"
              pattern="[0-9]{6}"
              maxlength={6}
              required
              aria-describedby="code-hint"
              {...(props.notice === 'wrong' ? { 'aria-invalid': 'true' } : {})}
            />
            <p class="hint" id="code-hint">
              Check your e-mail for a message with the subject “Your verification code”.
            </p>
            <button type="submit">Verify</button>
          </form>
          <form method="post" action={`/payout-page/${summary.id}/code`}>
            <Csrf token={props.csrfToken} />
            <button type="submit" class="secondary">
              Send a new code
            </button>
          </form>
        </div>
      ) : (
        <form method="post" action={`/payout-page/${summary.id}/code`}>
          <Csrf token={props.csrfToken} />
          <button type="submit">E-mail me a code</button>
        </form>
      )}
      <p class="hint">This link expires on {formatDate(summary.expiresAt)}.</p>
    </Shell>
  );
}

/** Verified, CREATED: which method. A GET form, so it works without JavaScript and without state. */
export function MethodPage(props: { nonce: string; summary: PageSummary; greetingName: string | null; methods: PayoutMethodType[] }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Choose how to get paid" summary={summary}>
      <h1>{props.greetingName ? `Hi ${props.greetingName}, how would you like to get paid?` : 'How would you like to get paid?'}</h1>
      <form method="get" action={`/payout-page/${summary.id}`}>
        <fieldset>
          <legend>Payout method</legend>
          {props.methods.map((method, index) => (
            <label class="choice" for={`method-${method}`}>
              <input type="radio" id={`method-${method}`} name="method" value={method} {...(index === 0 ? { checked: true } : {})} required />
              {methodLabels[method]}
            </label>
          ))}
        </fieldset>
        <button type="submit">Continue</button>
      </form>
      <DeclineLink id={summary.id} />
    </Shell>
  );
}

export const bankLabels: Record<string, string> = {
  accountHolderName: 'Account holder name',
  routingNumber: 'Routing number',
  accountNumber: 'Account number',
  accountType: 'Account type',
};

export const cryptoLabels: Record<string, string> = { network: 'Network', address: 'Wallet address' };

export type DestinationValues = Record<string, string>;

/** The destination form of the chosen method; posts to the review step. */
export function DestinationPage(props: {
  nonce: string;
  summary: PageSummary;
  csrfToken: string;
  method: PayoutMethodType;
  values: DestinationValues;
  errors: FieldErrors;
  canChangeMethod: boolean;
}) {
  const { summary, values, errors } = props;
  const isBank = props.method === 'BANK_TRANSFER';
  return (
    <Shell nonce={props.nonce} title={isBank ? 'Bank account details' : 'Wallet details'} summary={summary}>
      <h1>{isBank ? 'Where should we send the money?' : 'Which wallet should receive the USDC?'}</h1>
      <ErrorSummary errors={errors} labels={isBank ? bankLabels : cryptoLabels} />
      <form method="post" action={`/payout-page/${summary.id}/review`} novalidate>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="type" value={props.method} />
        {isBank ? (
          <>
            <Field name="accountHolderName" label="Account holder name" value={values.accountHolderName} errors={errors} autocomplete="name" required maxlength={100} />
            <Field
              name="routingNumber"
              label="Routing number"
              value={values.routingNumber}
              errors={errors}
              inputmode="numeric"
              maxlength={11}
              required
              hint="The 9-digit ABA number at the bottom left of a check."
            />
            <Field name="accountNumber" label="Account number" value={values.accountNumber} errors={errors} inputmode="numeric" maxlength={20} required hint="4 to 17 digits." />
            <fieldset {...(errors.accountType ? { 'aria-invalid': 'true' } : {})}>
              <legend id="accountType">Account type</legend>
              {(['CHECKING', 'SAVINGS'] as const).map((type) => (
                <label class="choice" for={`accountType-${type}`}>
                  <input type="radio" id={`accountType-${type}`} name="accountType" value={type} {...((values.accountType ?? 'CHECKING') === type ? { checked: true } : {})} />
                  {type === 'CHECKING' ? 'Checking' : 'Savings'}
                </label>
              ))}
              {errors.accountType ? <p class="field-error">{errors.accountType}</p> : null}
            </fieldset>
          </>
        ) : (
          <>
            <label for="network">Network</label>
            <select id="network" name="network" required {...(errors.network ? { 'aria-invalid': 'true', 'aria-describedby': 'network-error' } : {})}>
              {(Object.keys(networkLabels) as CryptoNetwork[]).map((network) => (
                <option value={network} {...(values.network === network ? { selected: true } : {})}>
                  {networkLabels[network]}
                </option>
              ))}
            </select>
            {errors.network ? (
              <p class="field-error" id="network-error">
                {errors.network}
              </p>
            ) : null}
            <Field
              name="address"
              label="Wallet address"
              value={values.address}
              errors={errors}
              required
              maxlength={100}
              hint="Ethereum, Polygon and Base: 0x followed by 40 characters (checksummed addresses are checked). Solana: the base58 address."
            />
          </>
        )}
        <button type="submit">Review</button>
      </form>
      <p class="links">
        {props.canChangeMethod ? <a href={`/payout-page/${summary.id}`}>Choose another method</a> : null}
      </p>
      <DeclineLink id={summary.id} />
    </Shell>
  );
}

/** The last look before confirming; the values travel in hidden fields (nothing is stored before confirmation). */
export function ReviewPage(props: { nonce: string; summary: PageSummary; csrfToken: string; method: PayoutMethodType; values: DestinationValues; display: Array<[string, string]> }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Review your payout" summary={summary}>
      <h1>Check the details</h1>
      <div class="card">
        <dl>
          <dt>Method</dt>
          <dd>{methodLabels[props.method]}</dd>
          {props.display.map(([term, value]) => (
            <>
              <dt>{term}</dt>
              <dd class="mono">{value}</dd>
            </>
          ))}
        </dl>
      </div>
      <p>Money sent to a wrong account or wallet may not be recoverable. By confirming you ask {summary.merchantName} to pay this amount to the destination above.</p>
      <form method="post" action={`/payout-page/${summary.id}/confirm`}>
        <Csrf token={props.csrfToken} />
        <input type="hidden" name="type" value={props.method} />
        {Object.entries(props.values).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <button type="submit">Confirm payout</button>
      </form>
      <p class="links">
        <a href={`/payout-page/${summary.id}?method=${props.method}`}>Change the details</a>
      </p>
    </Shell>
  );
}

export const kycLabels: Record<string, string> = {
  firstName: 'First name',
  middleName: 'Middle name',
  lastName: 'Last name',
  dateOfBirth: 'Date of birth',
  phoneNumber: 'Phone number',
  'address.line1': 'Address line 1',
  'address.line2': 'Address line 2',
  'address.city': 'City',
  'address.state': 'State',
  'address.postalCode': 'ZIP / postal code',
  'address.country': 'Country',
};

/** The KYC form, pre-filled with what the merchant already sent (shown read-only: it is kept as is). */
export function KycPage(props: { nonce: string; summary: PageSummary; csrfToken: string; greetingName: string | null; known: Record<string, string>; values: Record<string, string>; errors: FieldErrors }) {
  const { summary, known, values, errors } = props;
  const fieldProps = (name: string) => {
    const knownValue = known[name];
    return knownValue !== undefined ? { value: knownValue, readonly: true, hint: 'Already on file.' } : { value: values[name] ?? '' };
  };
  return (
    <Shell nonce={props.nonce} title="Verify your identity" summary={summary}>
      <h1>{props.greetingName ? `Thanks, ${props.greetingName}. One more step` : 'One more step'}</h1>
      <p>Before {summary.merchantName} can pay you, we need to verify your identity. Fields already on file are shown greyed out.</p>
      <ErrorSummary errors={errors} labels={kycLabels} />
      <form method="post" action={`/payout-page/${summary.id}/kyc`} novalidate>
        <Csrf token={props.csrfToken} />
        <fieldset>
          <legend>About you</legend>
          <Field name="firstName" label={kycLabels.firstName ?? ''} errors={errors} autocomplete="given-name" required maxlength={100} {...fieldProps('firstName')} />
          <Field name="middleName" label={`${kycLabels.middleName ?? ''} (optional)`} errors={errors} autocomplete="additional-name" maxlength={100} {...fieldProps('middleName')} />
          <Field name="lastName" label={kycLabels.lastName ?? ''} errors={errors} autocomplete="family-name" required maxlength={100} {...fieldProps('lastName')} />
          <Field name="dateOfBirth" label={kycLabels.dateOfBirth ?? ''} type="date" errors={errors} autocomplete="bday" required {...fieldProps('dateOfBirth')} />
          <Field name="phoneNumber" label={kycLabels.phoneNumber ?? ''} type="tel" errors={errors} autocomplete="tel" required maxlength={20} {...fieldProps('phoneNumber')} hint="For example +1 415 555 0123." />
        </fieldset>
        <fieldset>
          <legend>Home address</legend>
          <Field name="address.line1" label={kycLabels['address.line1'] ?? ''} errors={errors} autocomplete="address-line1" required maxlength={255} {...fieldProps('address.line1')} />
          <Field name="address.line2" label={`${kycLabels['address.line2'] ?? ''} (optional)`} errors={errors} autocomplete="address-line2" maxlength={255} {...fieldProps('address.line2')} />
          <Field name="address.city" label={kycLabels['address.city'] ?? ''} errors={errors} autocomplete="address-level2" required maxlength={255} {...fieldProps('address.city')} />
          <div class="row">
            <Field name="address.state" label={kycLabels['address.state'] ?? ''} errors={errors} autocomplete="address-level1" maxlength={255} {...fieldProps('address.state')} hint="Required in the US (two letters, e.g. CA)." />
            <Field name="address.postalCode" label={kycLabels['address.postalCode'] ?? ''} errors={errors} autocomplete="postal-code" required maxlength={255} {...fieldProps('address.postalCode')} />
          </div>
          <Field
            name="address.country"
            label={kycLabels['address.country'] ?? ''}
            errors={errors}
            autocomplete="country"
            required
            maxlength={2}
            {...fieldProps('address.country')}
            hint="Two-letter country code, e.g. US."
          />
        </fieldset>
        <button type="submit">Submit for verification</button>
      </form>
      <DeclineLink id={summary.id} />
    </Shell>
  );
}

export interface StatusCopy {
  title: string;
  heading: string;
  body: string;
  tone: 'progress' | 'good' | 'bad';
}

/** What the customer reads in each state (no PII). */
export function statusCopy(status: string, subStatus: string, merchantName: string, reason: string | null): StatusCopy {
  switch (`${status}/${subStatus}`) {
    case 'PENDING/KYC_REQUIRED':
      return { title: 'Identity check needed', heading: 'We need to verify your identity', body: 'Verify it’s you to continue with the identity check.', tone: 'progress' };
    case 'PENDING/KYC_IN_REVIEW':
      return { title: 'Verifying your identity', heading: 'We’re verifying your identity', body: 'This usually takes a moment. This page updates by itself.', tone: 'progress' };
    case 'PENDING/AWAITING_RELEASE':
      return reason
        ? { title: 'Waiting', heading: 'Your payout is confirmed', body: `${merchantName} will release it as soon as it can be sent.`, tone: 'progress' }
        : { title: 'Waiting for release', heading: 'Your payout is confirmed', body: `${merchantName} will release the funds shortly. We’ll e-mail you when they are on the way.`, tone: 'progress' };
    case 'PROCESSING/SUBMITTED':
      return { title: 'On its way', heading: 'Your payout is on its way', body: 'The money has been sent to the destination you chose. This page updates by itself.', tone: 'progress' };
    case 'PROCESSED/PAID':
      return { title: 'Paid', heading: 'You’ve been paid', body: 'The payout has been delivered to the destination you chose.', tone: 'good' };
    case 'FAILED/KYC_REJECTED':
      return { title: 'Not completed', heading: 'We couldn’t verify your identity', body: `The payout could not be completed. Please contact ${merchantName}.`, tone: 'bad' };
    case 'FAILED/PAYOUT_REJECTED':
      return { title: 'Not delivered', heading: 'The payout could not be delivered', body: 'The destination rejected the payout. You can enter other details, and it will be sent again.', tone: 'bad' };
    case 'FAILED/PAYOUT_RETURNED':
      return { title: 'Returned', heading: 'The payout was returned', body: 'The payout was sent, but the receiving bank or network returned it. You can enter other details, and it will be sent again.', tone: 'bad' };
    case 'CANCELED/CUSTOMER_DECLINED':
      return { title: 'Declined', heading: 'You declined this payout', body: `Nothing will be sent. If this was a mistake, please contact ${merchantName}.`, tone: 'bad' };
    case 'CANCELED/MERCHANT_CANCELED':
      return { title: 'Canceled', heading: 'This payout was canceled', body: `${merchantName} canceled this payout. Please contact them if you have questions.`, tone: 'bad' };
    case 'EXPIRED/NOT_COMPLETED':
      return { title: 'Link expired', heading: 'This payout link has expired', body: `Please contact ${merchantName} for a new link.`, tone: 'bad' };
    default:
      return { title: 'Payout', heading: 'Payout', body: '', tone: 'progress' };
  }
}

/** Everything after the customer's part: a status view that refreshes itself while it can change. */
export function StatusPage(props: {
  nonce: string;
  summary: PageSummary;
  copy: StatusCopy;
  csrfToken: string;
  refreshSeconds?: number;
  method: PayoutMethodMask | null;
  returnLabel: string | null;
  canDecline: boolean;
  canRetry: boolean;
}) {
  const { summary, copy } = props;
  return (
    <Shell nonce={props.nonce} title={copy.title} summary={summary} {...(props.refreshSeconds ? { refreshSeconds: props.refreshSeconds } : {})}>
      <h1>{copy.heading}</h1>
      <div class="card" role="status" aria-live="polite">
        <p class={`status ${copy.tone === 'good' ? 'success' : copy.tone === 'bad' ? 'error' : ''}`}>{copy.title}</p>
        <p>{copy.body}</p>
        {props.method ? (
          <p class="muted">
            To:{' '}
            {props.method.type === 'BANK_TRANSFER'
              ? `${props.method.accountType === 'SAVINGS' ? 'savings' : 'checking'} account ending ${props.method.last4}`
              : `${networkLabels[props.method.network]} wallet ${props.method.address}`}
          </p>
        ) : null}
        {props.refreshSeconds ? <p class="hint">This page refreshes every {props.refreshSeconds} seconds.</p> : null}
      </div>
      {props.canRetry ? (
        <p>
          <a class="button" href={`/payout-page/${summary.id}?step=retry`}>
            Enter other details
          </a>
        </p>
      ) : null}
      {props.returnLabel ? <ReturnButton id={summary.id} csrfToken={props.csrfToken} label={props.returnLabel} /> : null}
      {props.canDecline ? <DeclineLink id={summary.id} /> : null}
    </Shell>
  );
}

export function DeclinePage(props: { nonce: string; summary: PageSummary; csrfToken: string }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Decline payout" summary={summary}>
      <h1>Decline this payout?</h1>
      <p>If you decline, {summary.merchantName} will not send you this money through this page. This cannot be undone here.</p>
      <form method="post" action={`/payout-page/${summary.id}/decline`}>
        <Csrf token={props.csrfToken} />
        <button type="submit" class="danger">
          Yes, decline the payout
        </button>
      </form>
      <p class="links">
        <a href={`/payout-page/${summary.id}`}>No, go back</a>
      </p>
    </Shell>
  );
}
