import { Layout } from '../../layout.tsx';
import { StatusWatch, statusWatchScript, statusWatchStyles } from '../../status-watch.tsx';
import type { Brand } from '../../../modules/merchants/index.ts';
import type { PaymentPageResponse } from '../../../modules/payment-pages/index.ts';
import { cardSchemeNames as schemeNames } from '../../../modules/payments/index.ts';
import { OrderSummary, orderSummaryStyles } from './order-summary.tsx';
import { checkoutScript } from './checkout-script.ts';

export type CheckoutField = 'cardNumber' | 'expiry' | 'cvc' | 'cardholderName';

export interface CheckoutFormState {
  /** Per-field problems (shown beside the field and in the summary). */
  errors: Partial<Record<CheckoutField, string>>;
  /** A decline or other problem with the attempt as a whole. */
  problem?: string;
  /** What is re-filled after a failed attempt: never the card number or the CVC. */
  values: { expiry?: string; cardholderName?: string };
}


export function formatAmount(amount: number, currency: string): string {
  return new Intl.NumberFormat('en-US', { style: 'currency', currency }).format(amount / 100);
}

const declineMessages: Record<string, string> = {
  card_declined: 'Your card was declined. Please use a different card.',
  insufficient_funds: 'Your card has insufficient funds. Please use a different card.',
  expired_card: 'Your card has expired. Please use a different card.',
  incorrect_cvc: "The card's security code (CVC) is incorrect. Check it and try again.",
  incorrect_number: 'The card number is incorrect. Check it and try again.',
  processing_error: 'We could not process your card. Please try again.',
  generic_decline: 'Your card was declined. Please use a different card.',
  authentication_failure: 'Your bank could not confirm this payment (3-D Secure was not completed). Try again, or use a different card.',
  payment_intent_authentication_failure: 'Your bank could not confirm this payment (3-D Secure was not completed). Try again, or use a different card.',
};

export function declineMessage(reason: string): string {
  return declineMessages[reason] ?? 'Your card was declined. Please use a different card.';
}

/** What every state of the page shares: the sandbox note (the merchant's name and logo are the layout's header). */
export const stateStyles = `
.sandbox { background: #fef3c7; border: 1px solid #f59e0b; border-radius: 8px; padding: 0.5rem 0.75rem; font-size: 0.9rem; }
`;

/** Sandbox pages say so in every state, so nobody mistakes a test payment for a real one. */
export function SandboxNote(props: { page: PaymentPageResponse; children?: string }) {
  return props.page.livemode ? null : (
    <p class="sandbox" role="note">
      {props.children ?? 'Sandbox: a test payment, no money moves.'}
    </p>
  );
}

const checkoutStyles = `
.hint { font-size: 0.9rem; color: var(--muted); margin: 0.25rem 0 0; min-height: 1.2rem; }
.field-error { color: var(--bad); font-size: 0.95rem; margin: 0.25rem 0 0; }
#cardNumber-scheme:not(:empty) { display: inline-block; padding: 0.05rem 0.5rem; border: 1px solid var(--line); border-radius: 4px; background: #fff; color: var(--ink); font-weight: 700; font-size: 0.8rem; letter-spacing: 0.03em; }
input[aria-invalid="true"] { border-color: var(--bad); border-width: 2px; }
.links { margin-top: 1rem; text-align: center; }
`;

/** Back to the merchant without paying (the page's `failureReturnUrl`, when it has one). */
export function CancelLink(props: { url: string | undefined; merchantName: string }) {
  return props.url ? (
    <p class="links">
      <a href={props.url}>Cancel and return to {props.merchantName}</a>
    </p>
  ) : null;
}

function FieldError(props: { id: string; message: string | undefined }) {
  return props.message ? (
    <p class="field-error" id={`${props.id}-error`}>
      {props.message}
    </p>
  ) : null;
}

function describedBy(...ids: Array<string | null>): string | undefined {
  const present = ids.filter((id): id is string => id !== null);
  return present.length > 0 ? present.join(' ') : undefined;
}

export function CheckoutPage(props: { nonce: string; page: PaymentPageResponse; merchantName: string; brand: Brand; csrfToken: string; state: CheckoutFormState; cardPaymentsAvailable: boolean; now: Date }) {
  const { page, state } = props;
  const amount = formatAmount(page.amount, page.currency);
  const errorEntries = Object.entries(state.errors) as Array<[CheckoutField, string]>;
  const invalid = (field: CheckoutField) => (state.errors[field] ? 'true' : undefined);
  return (
    <Layout title={`Pay ${amount} to ${props.merchantName}`} nonce={props.nonce} brand={props.brand} styles={stateStyles + checkoutStyles + orderSummaryStyles} script={props.cardPaymentsAvailable ? checkoutScript(props.now) : undefined}>
      <h1>
        Pay <span class="amount">{amount}</span>
      </h1>
      <OrderSummary page={page} format={formatAmount} />
      <SandboxNote page={page}>Sandbox: no money moves. Use a test card such as 4242 4242 4242 4242.</SandboxNote>
      {!props.cardPaymentsAvailable ? (
        <div class="card" role="alert">
          <p>Card payments are not available for this page yet. Please contact {props.merchantName}.</p>
        </div>
      ) : (
        <div class="card">
          {state.problem || errorEntries.length > 0 ? (
            <div class="error-summary" role="alert" id="form-problem" tabindex={-1}>
              {state.problem ? <p class="error">{state.problem}</p> : <p class="error">Please correct the following:</p>}
              {errorEntries.length > 0 ? (
                <ul>
                  {errorEntries.map(([field, message]) => (
                    <li>
                      <a href={`#${field}`}>{message}</a>
                    </li>
                  ))}
                </ul>
              ) : null}
            </div>
          ) : null}
          <form method="post" action={`/payment-page/${page.id}`} novalidate autocomplete="on">
            <input type="hidden" name="_csrf" value={props.csrfToken} />
            <label for="cardNumber">Card number</label>
            <input
              id="cardNumber"
              name="cardNumber"
              type="text"
              inputmode="numeric"
              autocomplete="cc-number"
              maxlength={23}
              required
              placeholder="1234 1234 1234 1234"
              aria-invalid={invalid('cardNumber')}
              aria-describedby={describedBy('cardNumber-scheme', state.errors.cardNumber ? 'cardNumber-error' : null)}
            />
            <p class="hint" id="cardNumber-scheme" aria-live="polite"></p>
            <FieldError id="cardNumber" message={state.errors.cardNumber} />
            <div class="row">
              <div>
                <label for="expiry">Expiry date (MM / YY)</label>
                <input
                  id="expiry"
                  name="expiry"
                  type="text"
                  inputmode="numeric"
                  autocomplete="cc-exp"
                  maxlength={9}
                  required
                  placeholder="MM / YY"
                  value={state.values.expiry ?? ''}
                  aria-invalid={invalid('expiry')}
                  aria-describedby={state.errors.expiry ? 'expiry-error' : undefined}
                />
                <FieldError id="expiry" message={state.errors.expiry} />
              </div>
              <div>
                <label for="cvc">Security code (CVC)</label>
                <input
                  id="cvc"
                  name="cvc"
                  type="text"
                  inputmode="numeric"
                  autocomplete="cc-csc"
                  maxlength={4}
                  required
                  placeholder="123"
                  aria-invalid={invalid('cvc')}
                  aria-describedby={describedBy('cvc-hint', state.errors.cvc ? 'cvc-error' : null)}
                />
                <p class="hint" id="cvc-hint">
                  3 digits on the back (4 on the front for American Express)
                </p>
                <FieldError id="cvc" message={state.errors.cvc} />
              </div>
            </div>
            <label for="cardholderName">Name on card</label>
            <input
              id="cardholderName"
              name="cardholderName"
              type="text"
              autocomplete="cc-name"
              maxlength={200}
              required
              value={state.values.cardholderName ?? ''}
              aria-invalid={invalid('cardholderName')}
              aria-describedby={state.errors.cardholderName ? 'cardholderName-error' : undefined}
            />
            <FieldError id="cardholderName" message={state.errors.cardholderName} />
            <button type="submit" id="pay">
              Pay {amount}
            </button>
          </form>
        </div>
      )}
      <CancelLink url={page.failureReturnUrl} merchantName={props.merchantName} />
    </Layout>
  );
}

export function PaidPage(props: { nonce: string; page: PaymentPageResponse; merchantName: string; brand: Brand }) {
  const { page } = props;
  const details = page.payinDetails;
  return (
    <Layout title="Payment complete" nonce={props.nonce} brand={props.brand} styles={stateStyles + orderSummaryStyles}>
      <h1 id="done">Payment complete</h1>
      <SandboxNote page={page} />
      <div class="card" role="status">
        <p class="success">Thank you. Your payment of {formatAmount(page.amount, page.currency)} was successful.</p>
        <OrderSummary page={page} format={formatAmount} />
        {details ? (
          <dl>
            <dt>Card</dt>
            <dd>
              {schemeNames[details.scheme] ?? details.scheme} ending in {details.last4}
            </dd>
            <dt>Reference</dt>
            <dd>{page.paymentId ?? ''}</dd>
          </dl>
        ) : null}
        {page.customer.email !== '' ? <p class="muted">A receipt is on its way to your e-mail address.</p> : null}
      </div>
      {page.successReturnUrl ? (
        <a class="button" href={page.successReturnUrl}>
          Return to {props.merchantName}
        </a>
      ) : null}
    </Layout>
  );
}

export function ExpiredPage(props: { nonce: string; page: PaymentPageResponse; merchantName: string; brand: Brand }) {
  const { page } = props;
  return (
    <Layout title="This payment page has expired" nonce={props.nonce} brand={props.brand} styles={stateStyles}>
      <h1 id="expired">This payment page has expired</h1>
      <SandboxNote page={page} />
      <div class="card" role="alert">
        <p>The payment of {formatAmount(page.amount, page.currency)} can no longer be made here. Nothing was charged.</p>
      </div>
      {page.failureReturnUrl ? (
        <a class="button secondary" href={page.failureReturnUrl}>
          Return to {props.merchantName}
        </a>
      ) : null}
    </Layout>
  );
}

export function InProgressPage(props: { nonce: string; page: PaymentPageResponse; merchantName: string; brand: Brand }) {
  return (
    <Layout title="Payment in progress" nonce={props.nonce} brand={props.brand} styles={stateStyles + statusWatchStyles} script={statusWatchScript}>
      <h1>Payment in progress</h1>
      <SandboxNote page={props.page} />
      <div class="card" role="status">
        <p>Your payment of {formatAmount(props.page.amount, props.page.currency)} is being processed.</p>
      </div>
      <StatusWatch href={`/payment-page/${props.page.id}`} statusKey="payment-in-progress" seconds={2} />
    </Layout>
  );
}
