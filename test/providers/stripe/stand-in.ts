import type http from 'node:http';
import type Stripe from 'stripe';
import { stripeTestCards } from './objects.ts';

/**
 * The browser side of the Stripe replica: a stand-in for Stripe.js (served at `/v3/`, the test's
 * `STRIPE_JS_URL`) implementing only what the hosted checkout calls —
 * `Stripe(pk).elements({ clientSecret }).create('payment').mount(selector)` and
 * `stripe.confirmPayment({ elements, confirmParams: { return_url } })` — with the card fields in an
 * iframe on the replica's origin (as Stripe's are on js.stripe.com), a confirm call to the replica
 * (`POST /v1/payment_intents/:id/confirm` with the publishable key and client secret, as Stripe.js
 * makes it), and a 3-D Secure challenge in an overlay frame (Stripe's test page: "Complete" or
 * "Fail" authentication). As Stripe.js does, a decline or failed challenge resolves `{ error }` and
 * a success redirects to `return_url?payment_intent=…&payment_intent_client_secret=…&redirect_status=succeeded`.
 * Test-only: never served by Paysail.
 */
export interface BrowserSide {
  /** `STRIPE_JS_URL` for the test. */
  readonly jsUrl: string;
  /** Every request body the browser sent the replica's card frames (where card numbers go instead of Paysail). */
  readonly received: Array<{ path: string; body: string }>;
  setOrigin(origin: string): void;
  handles(method: string, path: string): boolean;
  handle(method: string, url: URL, body: string, response: http.ServerResponse): void;
}

type Form = { [key: string]: string | Form };

interface Dependencies {
  intents: Map<string, { intent: Stripe.PaymentIntent }>;
  parseForm(body: string): Form;
  confirm(intentId: string, cardNumber: string, passChallenge: boolean): Stripe.PaymentIntent;
  requireAction(intentId: string, cardNumber: string): void;
}

const html = (title: string, body: string, script: string) =>
  `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${title}</title><style>
body{margin:0;font:15px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#30313d;background:transparent}
label{display:block;font-size:14px;margin:10px 0 4px;color:#30313d}
input{box-sizing:border-box;width:100%;font:inherit;padding:10px 12px;border:1px solid #e6e6e6;border-radius:5px;box-shadow:0 1px 1px rgba(0,0,0,.03),0 3px 6px rgba(0,0,0,.02)}
input:focus{outline:0;border-color:rgba(5,115,225,.5);box-shadow:0 0 0 3px rgba(5,115,225,.25)}
.row{display:flex;gap:12px}.row>div{flex:1}.err{color:#df1b41;font-size:14px;min-height:18px;margin:6px 0 0}
.tab{display:inline-flex;gap:6px;align-items:center;border:2px solid #0570de;border-radius:5px;padding:6px 12px;font-weight:600;font-size:14px;color:#0570de;margin:2px 0 4px}
.challenge{padding:24px;text-align:center;background:#fff}.challenge button{display:block;width:100%;margin:12px 0;padding:12px;font:inherit;font-weight:600;border:0;border-radius:6px;cursor:pointer}
.pass{background:#0570de;color:#fff}.fail{background:#e6e6e6;color:#30313d}
</style></head><body>${body}<script>${script}</script></body></html>`;

function paymentElementPage(query: URLSearchParams): string {
  const config = JSON.stringify({ clientSecret: query.get('client_secret') ?? '', key: query.get('key') ?? '', parentOrigin: query.get('origin') ?? '' });
  return html(
    'Secure payment input frame',
    `<div class="tab">▭ Card</div>
<label for="number">Card number</label><input id="number" autocomplete="cc-number" inputmode="numeric" placeholder="1234 1234 1234 1234">
<div class="row"><div><label for="expiry">Expiration date</label><input id="expiry" autocomplete="cc-exp" placeholder="MM / YY"></div>
<div><label for="cvc">Security code</label><input id="cvc" autocomplete="cc-csc" inputmode="numeric" placeholder="CVC"></div></div>
<p class="err" id="err" role="alert"></p>`,
    `var config = ${config};
var intentId = config.clientSecret.split('_secret_')[0];
window.addEventListener('message', function (event) {
  if (event.origin !== config.parentOrigin || !event.data || event.data.type !== 'stand-in:confirm') { return; }
  var id = event.data.id;
  var reply = function (message) { message.id = id; event.source.postMessage(message, config.parentOrigin); };
  var number = document.getElementById('number').value.replace(/\\D/g, '');
  var expiry = document.getElementById('expiry').value.split('/');
  var cvc = document.getElementById('cvc').value.trim();
  if (number.length < 12 || expiry.length !== 2 || cvc.length < 3) {
    document.getElementById('err').textContent = 'Your card details are incomplete.';
    reply({ type: 'error', error: { type: 'validation_error', code: 'incomplete', message: 'Your card details are incomplete.' } });
    return;
  }
  document.getElementById('err').textContent = '';
  var form = new URLSearchParams();
  form.set('key', config.key);
  form.set('client_secret', config.clientSecret);
  form.set('payment_method_data[type]', 'card');
  form.set('payment_method_data[card][number]', number);
  form.set('payment_method_data[card][exp_month]', expiry[0].trim());
  form.set('payment_method_data[card][exp_year]', expiry[1].trim());
  form.set('payment_method_data[card][cvc]', cvc);
  form.set('return_url', event.data.returnUrl);
  fetch('/v1/payment_intents/' + intentId + '/confirm', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
    .then(function (response) { return response.json(); })
    .then(function (answer) {
      if (answer.error) { reply({ type: 'error', error: answer.error }); return; }
      if (answer.status === 'requires_action') { reply({ type: 'challenge', url: '/3ds/challenge?payment_intent=' + intentId + '&client_secret=' + encodeURIComponent(config.clientSecret) + '&origin=' + encodeURIComponent(config.parentOrigin) }); return; }
      reply({ type: 'done', status: answer.status });
    })
    .catch(function () { reply({ type: 'error', error: { type: 'api_connection_error', message: 'We could not reach Stripe. Try again.' } }); });
});`,
  );
}

function challengePage(query: URLSearchParams): string {
  const config = JSON.stringify({ intentId: query.get('payment_intent') ?? '', clientSecret: query.get('client_secret') ?? '', parentOrigin: query.get('origin') ?? '' });
  return html(
    '3D Secure 2 Test Page',
    `<div class="challenge"><h1 style="font-size:18px">3D Secure 2 Test Page</h1><p>This is a test authentication. Choose an outcome.</p>
<button class="pass" id="complete">Complete authentication</button><button class="fail" id="fail">Fail authentication</button></div>`,
    `var config = ${config};
function answer(outcome) {
  var form = new URLSearchParams({ payment_intent: config.intentId, client_secret: config.clientSecret, outcome: outcome });
  fetch('/3ds/authenticate', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() })
    .then(function (response) { return response.json(); })
    .then(function (intent) { window.parent.postMessage({ type: 'stand-in:challenge-done', status: intent.status, error: intent.last_payment_error }, config.parentOrigin); });
}
document.getElementById('complete').addEventListener('click', function () { answer('pass'); });
document.getElementById('fail').addEventListener('click', function () { answer('fail'); });`,
  );
}

/** The Stripe.js stand-in itself (runs on the merchant's page, here Paysail's checkout). */
function standInScript(origin: string): string {
  return `(function () {
  var origin = ${JSON.stringify(origin)};
  function Stripe(key) {
    if (!(this instanceof Stripe)) { return new Stripe(key); }
    this.key = key;
  }
  Stripe.prototype.elements = function (options) {
    var stripe = this;
    var elements = { clientSecret: options.clientSecret, frame: null };
    elements.create = function (type) {
      if (type !== 'payment') { throw new Error('stand-in: only the Payment Element'); }
      return {
        mount: function (target) {
          var container = typeof target === 'string' ? document.querySelector(target) : target;
          var frame = document.createElement('iframe');
          frame.title = 'Secure payment input frame';
          frame.setAttribute('frameborder', '0');
          frame.src = origin + '/elements/payment?key=' + encodeURIComponent(stripe.key) + '&client_secret=' + encodeURIComponent(options.clientSecret) + '&origin=' + encodeURIComponent(window.location.origin);
          frame.style.width = '100%';
          frame.style.height = '196px';
          frame.style.border = '0';
          frame.style.display = 'block';
          container.appendChild(frame);
          elements.frame = frame;
        },
      };
    };
    return elements;
  };
  Stripe.prototype.confirmPayment = function (params) {
    var elements = params.elements;
    var returnUrl = params.confirmParams.return_url;
    var id = String(Math.random());
    var intentId = elements.clientSecret.split('_secret_')[0];
    return new Promise(function (resolve) {
      var overlay = null;
      function finish(status, error) {
        window.removeEventListener('message', listen);
        if (overlay) { overlay.remove(); }
        if (status === 'succeeded' || status === 'processing') {
          var separator = returnUrl.indexOf('?') === -1 ? '?' : '&';
          window.location.assign(returnUrl + separator + 'payment_intent=' + intentId + '&payment_intent_client_secret=' + encodeURIComponent(elements.clientSecret) + '&redirect_status=' + status);
          return;
        }
        resolve({ error: error || { type: 'card_error', code: 'payment_intent_authentication_failure', message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.' } });
      }
      function listen(event) {
        if (event.origin !== origin || !event.data) { return; }
        var data = event.data;
        if (data.type === 'stand-in:challenge-done') {
          finish(data.status, data.error ? { type: 'card_error', code: data.error.code, decline_code: data.error.decline_code, message: 'We are unable to authenticate your payment method. Please choose a different payment method and try again.' } : null);
          return;
        }
        if (data.id !== id) { return; }
        if (data.type === 'error') { window.removeEventListener('message', listen); resolve({ error: data.error }); return; }
        if (data.type === 'challenge') {
          overlay = document.createElement('div');
          // Styles through the CSSOM, as Stripe.js sets them: a page's CSP without 'unsafe-inline' allows it.
          Object.assign(overlay.style, { position: 'fixed', inset: '0', background: 'rgba(0,0,0,.5)', display: 'flex', alignItems: 'center', justifyContent: 'center', zIndex: '2147483647' });
          var frame = document.createElement('iframe');
          frame.title = '3D Secure challenge';
          frame.src = origin + data.url;
          Object.assign(frame.style, { width: 'min(400px, 92vw)', height: '320px', border: '0', borderRadius: '8px', background: '#fff' });
          overlay.appendChild(frame);
          document.body.appendChild(overlay);
          return;
        }
        finish(data.status, null);
      }
      window.addEventListener('message', listen);
      elements.frame.contentWindow.postMessage({ type: 'stand-in:confirm', id: id, returnUrl: returnUrl }, origin);
    });
  };
  window.Stripe = Stripe;
})();`;
}

export function createStripeBrowserSide(deps: Dependencies): BrowserSide {
  let origin = '';
  const received: BrowserSide['received'] = [];
  /** Card numbers awaiting their 3-D Secure challenge, by PaymentIntent. */
  const challenges = new Map<string, string>();
  const paths = new Set(['/v3/', '/elements/payment', '/3ds/challenge', '/3ds/authenticate']);

  function send(response: http.ServerResponse, status: number, type: string, body: string): void {
    response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  }

  function intentFor(form: Form, intentId: string): Stripe.PaymentIntent | null {
    const intent = deps.intents.get(intentId)?.intent;
    return intent && intent.client_secret === form['client_secret'] ? intent : null;
  }

  return {
    get jsUrl() {
      return `${origin}/v3/`;
    },
    received,
    setOrigin(value) {
      origin = value;
    },
    handles: (method, path) => paths.has(path) || (method === 'POST' && /^\/v1\/payment_intents\/pi_[0-9a-f]+\/confirm$/.test(path)),
    handle(method, url, body, response) {
      if (url.pathname === '/v3/') {
        send(response, 200, 'text/javascript; charset=utf-8', standInScript(origin));
        return;
      }
      if (url.pathname === '/elements/payment') {
        send(response, 200, 'text/html; charset=utf-8', paymentElementPage(url.searchParams));
        return;
      }
      if (url.pathname === '/3ds/challenge') {
        send(response, 200, 'text/html; charset=utf-8', challengePage(url.searchParams));
        return;
      }
      received.push({ path: url.pathname, body });
      const form = deps.parseForm(body);
      if (url.pathname === '/3ds/authenticate') {
        const intentId = typeof form['payment_intent'] === 'string' ? form['payment_intent'] : '';
        const intent = intentFor(form, intentId);
        const pending = intent ? challenges.get(intentId) : undefined;
        if (!intent || intent.status !== 'requires_action' || !pending) {
          send(response, 400, 'application/json', JSON.stringify({ error: { type: 'invalid_request_error', message: 'No challenge for this PaymentIntent.' } }));
          return;
        }
        challenges.delete(intentId);
        send(response, 200, 'application/json', JSON.stringify(deps.confirm(intentId, pending, form['outcome'] === 'pass')));
        return;
      }
      const intentId = url.pathname.split('/')[3] ?? '';
      const intent = intentFor(form, intentId);
      const keyValue = form['key'];
      if (!intent || typeof keyValue !== 'string' || !keyValue.startsWith('pk_')) {
        send(response, 400, 'application/json', JSON.stringify({ error: { type: 'invalid_request_error', code: 'resource_missing', message: 'No such payment_intent.' } }));
        return;
      }
      const methodData = form['payment_method_data'];
      const card = typeof methodData === 'object' ? methodData['card'] : undefined;
      const number = typeof card === 'object' && typeof card['number'] === 'string' ? card['number'] : '';
      const testCard = stripeTestCards[number];
      if (!testCard) {
        send(response, 402, 'application/json', JSON.stringify({ error: { type: 'card_error', code: 'incorrect_number', message: 'Your card number is incorrect.' } }));
        return;
      }
      if (intent.status !== 'requires_payment_method') {
        send(response, 400, 'application/json', JSON.stringify({ error: { type: 'invalid_request_error', code: 'payment_intent_unexpected_state', message: `This PaymentIntent's status is ${intent.status}.` } }));
        return;
      }
      if (testCard.behaviour === 'three_d_secure' || testCard.behaviour === 'three_d_secure_setup') {
        deps.requireAction(intentId, number);
        challenges.set(intentId, number);
        send(response, 200, 'application/json', JSON.stringify(deps.intents.get(intentId)?.intent));
        return;
      }
      const confirmed = deps.confirm(intentId, number, false);
      const failure = confirmed.last_payment_error;
      if (failure) {
        const message = failure.decline_code === 'insufficient_funds' ? 'Your card has insufficient funds.' : 'Your card was declined.';
        send(response, 402, 'application/json', JSON.stringify({ error: { type: 'card_error', code: failure.code, decline_code: failure.decline_code, message, payment_intent: { id: intentId, status: confirmed.status } } }));
        return;
      }
      send(response, 200, 'application/json', JSON.stringify(confirmed));
    },
  };
}
