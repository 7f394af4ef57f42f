/**
 * The hosted payout page's script: progressive enhancement only (every page works without it and the
 * server checks everything again), served inline with the response's CSP nonce. It does three things:
 * - the account number's second entry is compared while the customer types (a mismatch shows at
 *   once when the second entry stops being the start of the first, and on leaving the field; a
 *   submit with a mismatch focuses it instead of round-tripping), in the server's words;
 * - the KYC form's US-state select is shown (and posted) only while the country is the United States;
 * - a crypto payout's transaction hash gets a Copy button;
 * - a status that can still change is asked for again every few seconds, and the page reloads only
 *   when it did change (browsers without JavaScript refresh the whole page: the `<noscript>` meta
 *   refresh), so nothing moves under a reader's eyes for nothing (WCAG 2.2.1).
 */

/** The words of the double-entry problem, the same on the server (form-input.ts) and while typing. */
export const accountNumberMismatch = 'Does not match the account number. Enter the same account number twice.';

export const payoutPageScript = `(function () {
  var mismatch = ${JSON.stringify(accountNumberMismatch)};
  function digits(value) { return value.replace(/[\\s-]/g, ''); }
  var account = document.getElementById('accountNumber');
  var again = document.getElementById('accountNumberConfirmation');
  var againError = document.getElementById('accountNumberConfirmation-error');
  if (account && again && againError) {
    var show = function (problem) {
      againError.textContent = problem ? mismatch : '';
      if (problem) { again.setAttribute('aria-invalid', 'true'); } else { again.removeAttribute('aria-invalid'); }
    };
    var check = function (finished) {
      var first = digits(account.value);
      var second = digits(again.value);
      if (second === '') { show(false); return true; }
      var matches = finished ? second === first : first.indexOf(second) === 0;
      show(!matches);
      return second === first;
    };
    again.addEventListener('input', function () { check(false); });
    account.addEventListener('input', function () { if (again.value !== '') { check(again !== document.activeElement); } });
    again.addEventListener('blur', function () { check(true); });
    again.form.addEventListener('submit', function (event) {
      if (digits(again.value) !== '' && !check(true)) { event.preventDefault(); again.focus(); }
    });
  }
  var country = document.getElementById('address.country');
  var stateField = document.querySelector('[data-us-state]');
  if (country && stateField) {
    var state = stateField.querySelector('select');
    var follow = function () {
      var isUs = country.value === 'US';
      stateField.hidden = !isUs;
      if (state) { state.disabled = !isUs; }
    };
    country.addEventListener('change', follow);
    follow();
  }
  var buttons = document.querySelectorAll('button[data-copy]');
  for (var i = 0; i < buttons.length; i++) {
    (function (button) {
      var source = document.getElementById(button.getAttribute('data-copy'));
      var said = document.getElementById(button.getAttribute('data-copy') + '-copied');
      if (!source) { return; }
      button.hidden = false;
      button.addEventListener('click', function () {
        var text = source.textContent.trim();
        var done = function () { if (said) { said.textContent = 'Copied to the clipboard.'; } };
        if (navigator.clipboard && navigator.clipboard.writeText) {
          navigator.clipboard.writeText(text).then(done, function () {});
        } else {
          var range = document.createRange();
          range.selectNodeContents(source);
          var selection = window.getSelection();
          selection.removeAllRanges();
          selection.addRange(range);
          if (document.execCommand('copy')) { done(); }
        }
      });
    })(buttons[i]);
  }
})();`;
