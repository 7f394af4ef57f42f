import { Layout } from '../../layout.tsx';
import type { Brand } from '../../../modules/merchants/index.ts';
import type { ExtraSources } from '../../security.ts';
import type { PaymentPageResponse } from '../../../modules/payment-pages/index.ts';
import { CancelLink, formatAmount, SandboxNote, stateStyles } from './views.tsx';
import { OrderSummary, orderSummaryStyles } from './order-summary.tsx';

/** The live checkout's Stripe settings (from the operator's configuration). */
export interface StripeCheckoutSettings {
  publishableKey: string;
  /** Where Stripe.js is loaded from (`STRIPE_JS_URL`). */
  jsUrl: string;
}

const stripeJsOrigin = 'https://js.stripe.com';

/**
 * The origins the checkout's CSP allows for Stripe: exactly Stripe's documented ones for Stripe.js
 * and the Payment Element (script and frames from js.stripe.com, 3-D Secure frames from
 * hooks.stripe.com, API calls to api.stripe.com) when Stripe.js comes from Stripe; when
 * `STRIPE_JS_URL` points elsewhere (a test stand-in), that origin alone instead.
 */
export function stripeSources(jsUrl: string): ExtraSources {
  const origin = new URL(jsUrl).origin;
  if (origin === stripeJsOrigin) {
    return {
      script: [stripeJsOrigin, 'https://*.js.stripe.com'],
      frame: [stripeJsOrigin, 'https://*.js.stripe.com', 'https://hooks.stripe.com'],
      connect: ['https://api.stripe.com'],
    };
  }
  return { script: [origin], frame: [origin], connect: [origin] };
}

const styles = `
#payment-element { min-height: 196px; }
#payment-element .loading { color: var(--muted); margin: 0; padding: 4.5rem 0; text-align: center; }
#payment-message { margin: 0.75rem 0 0; }
#form-problem { margin-bottom: 1rem; }
#form-problem p { margin: 0; }
button[disabled] { opacity: 0.6; cursor: progress; }
.secure { font-size: 0.9rem; color: var(--muted); margin: 1rem 0 0; display: flex; gap: 0.5rem; align-items: flex-start; }
.secure svg { flex: none; margin-top: 0.2rem; }
.links { margin-top: 1rem; text-align: center; }
`;

/** JSON for a script element: `<` escaped so no value can close the element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/**
 * Mounts the Payment Element and confirms the PaymentIntent with it. Stripe.js shows 3-D Secure
 * itself and, on success, sends the browser to `returnPath` (our page settles the payment from
 * Stripe's record there); a decline comes back here as `error` and the customer may try another
 * card in the same element.
 */
function checkoutScript(config: { publishableKey: string; clientSecret: string; returnPath: string; payLabel: string }): string {
  return `(function () {
  var config = ${scriptJson(config)};
  var form = document.getElementById('payment-form');
  var button = document.getElementById('pay');
  var message = document.getElementById('payment-message');
  // Shown only with JavaScript: without it the page explains why it cannot take a card.
  form.hidden = false;
  function show(text) { message.textContent = text; message.hidden = false; message.focus(); }
  if (typeof window.Stripe !== 'function') {
    show('The secure card fields could not be loaded. Check your connection and reload this page.');
    return;
  }
  var stripe = window.Stripe(config.publishableKey);
  var elements = stripe.elements({ clientSecret: config.clientSecret });
  var container = document.getElementById('payment-element');
  container.textContent = '';
  elements.create('payment').mount('#payment-element');
  button.disabled = false;
  form.addEventListener('submit', function (event) {
    event.preventDefault();
    button.disabled = true;
    button.textContent = 'Processing…';
    message.hidden = true;
    stripe.confirmPayment({ elements: elements, confirmParams: { return_url: new URL(config.returnPath, window.location.href).href } }).then(function (result) {
      if (!result.error) { return; }
      var error = result.error;
      show(error.type === 'card_error' || error.type === 'validation_error' ? error.message : 'Something went wrong while confirming your payment. Please try again.');
      button.disabled = false;
      button.textContent = config.payLabel;
    });
  });
})();`;
}

const lock = (
  <svg width="14" height="14" viewBox="0 0 16 16" aria-hidden="true">
    <path fill="currentColor" d="M4 7V5a4 4 0 1 1 8 0v2h1a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H3a1 1 0 0 1-1-1V8a1 1 0 0 1 1-1h1zm2 0h4V5a2 2 0 1 0-4 0v2z" />
  </svg>
);

/**
 * The live checkout: Stripe's Payment Element (card number, expiry and CVC in Stripe's own frames:
 * they never reach Paysail), confirmed in the browser. Without JavaScript the page says so.
 */
export function StripeCheckoutPage(props: { nonce: string; page: PaymentPageResponse; merchantName: string; brand: Brand; settings: StripeCheckoutSettings; clientSecret: string; problem?: string | undefined }) {
  const { page, settings } = props;
  const amount = formatAmount(page.amount, page.currency);
  const payLabel = `Pay ${amount}`;
  return (
    <Layout
      title={`Pay ${amount} to ${props.merchantName}`}
      nonce={props.nonce}
      brand={props.brand}
      styles={stateStyles + styles + orderSummaryStyles}
      externalScript={settings.jsUrl}
      script={checkoutScript({ publishableKey: settings.publishableKey, clientSecret: props.clientSecret, returnPath: `/payment-page/${page.id}/complete`, payLabel })}
    >
      <h1>
        Pay <span class="amount">{amount}</span>
      </h1>
      <OrderSummary page={page} format={formatAmount} />
      <SandboxNote page={page}>Sandbox: no money moves. Use a Stripe test card such as 4242 4242 4242 4242.</SandboxNote>
      <div class="card">
        {props.problem ? (
          <div class="error-summary" role="alert" id="form-problem" tabindex={-1}>
            <p class="error">{props.problem}</p>
          </div>
        ) : null}
        <noscript>
          <div class="error-summary" role="alert">
            <p class="error">JavaScript is needed to pay by card here.</p>
            <p>Your card details are entered in the secure fields of Stripe, our payment processor, which need JavaScript. Turn JavaScript on and reload this page; nothing has been charged.</p>
          </div>
        </noscript>
        <form id="payment-form" hidden>
          <div id="payment-element">
            <p class="loading">Loading secure card fields…</p>
          </div>
          <p id="payment-message" class="error" role="alert" tabindex={-1} hidden></p>
          <button type="submit" id="pay" disabled>
            {payLabel}
          </button>
        </form>
        <p class="secure">
          {lock}
          <span>Card details go straight to Stripe over an encrypted connection; {props.merchantName} never sees your card number or security code.</span>
        </p>
      </div>
      <CancelLink url={page.failureReturnUrl} merchantName={props.merchantName} />
    </Layout>
  );
}
