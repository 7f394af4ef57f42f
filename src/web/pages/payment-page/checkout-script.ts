import { schemeHints } from '../../../modules/card-processor/index.ts';
import { cardSchemeNames } from '../../../modules/payments/index.ts';
import { checkoutMessages } from './checkout-messages.ts';

/**
 * The sandbox card form's script (progressive enhancement: the page works without it, and the
 * server checks everything again). While the customer types: the card number is grouped (4-6-5 for
 * American Express, fours otherwise) with the scheme's name beside it, the expiry gets its " / ",
 * and each field is checked when the customer leaves it (Luhn, a real month, not expired, CVC
 * length), with the server's words; a submit with a problem focuses the first one instead of
 * round-tripping. `nowYear`/`nowMonth`: the server's clock, so both sides agree on "expired".
 */
export function checkoutScript(now: Date): string {
  const config = {
    hints: schemeHints(),
    names: cardSchemeNames,
    messages: checkoutMessages,
    nowYear: now.getUTCFullYear(),
    nowMonth: now.getUTCMonth() + 1,
  };
  return `(function () {
  var c = ${JSON.stringify(config)};
  var form = document.querySelector('form[action^="/payment-page/"]');
  var number = document.getElementById('cardNumber');
  var expiry = document.getElementById('expiry');
  var cvc = document.getElementById('cvc');
  var name = document.getElementById('cardholderName');
  var scheme = document.getElementById('cardNumber-scheme');
  if (!form || !number || !expiry || !cvc || !name || !scheme) { return; }
  function digitsOf(value) { return value.replace(/[^0-9]/g, ''); }
  function schemeOf(digits) {
    var best = null;
    for (var i = 0; i < c.hints.length; i++) {
      var h = c.hints[i];
      var head = digits.slice(0, h.low.length);
      if (head.length === h.low.length && head >= h.low && head <= h.high && (!best || h.low.length > best.low.length)) { best = h; }
    }
    return best ? best.scheme : null;
  }
  function luhn(digits) {
    var sum = 0;
    for (var i = 0; i < digits.length; i++) {
      var d = Number(digits.charAt(digits.length - 1 - i));
      if (i % 2 === 1) { d = d * 2; if (d > 9) { d = d - 9; } }
      sum += d;
    }
    return digits.length >= 12 && digits.length <= 19 && sum % 10 === 0;
  }
  function grouped(digits, amex) {
    var sizes = amex ? [4, 6, 5] : [4, 4, 4, 4, 3];
    var parts = [];
    var at = 0;
    for (var i = 0; i < sizes.length && at < digits.length; i++) { parts.push(digits.slice(at, at + sizes[i])); at += sizes[i]; }
    if (at < digits.length) { parts.push(digits.slice(at)); }
    return parts.join(' ');
  }
  function show(input, message) {
    var id = input.id + '-error';
    var error = document.getElementById(id);
    var described = (input.getAttribute('aria-describedby') || '').split(' ').filter(function (part) { return part && part !== id; });
    if (message) {
      if (!error) {
        error = document.createElement('p');
        error.className = 'field-error';
        error.id = id;
        var anchor = input.id === 'cardNumber' ? scheme : (input.id === 'cvc' ? document.getElementById('cvc-hint') : input);
        anchor.parentNode.insertBefore(error, anchor.nextSibling);
      }
      error.textContent = message;
      input.setAttribute('aria-invalid', 'true');
      described.push(id);
    } else {
      if (error) { error.parentNode.removeChild(error); }
      input.removeAttribute('aria-invalid');
    }
    if (described.length > 0) { input.setAttribute('aria-describedby', described.join(' ')); } else { input.removeAttribute('aria-describedby'); }
  }
  var checks = {
    cardNumber: function () {
      var digits = digitsOf(number.value);
      if (digits.length === 0) { return c.messages.cardNumberMissing; }
      return luhn(digits) ? null : c.messages.cardNumberInvalid;
    },
    expiry: function () {
      var raw = expiry.value.trim();
      if (raw === '') { return c.messages.expiryMissing; }
      var match = /^(\\d{1,2})\\s*[\\/-]?\\s*(\\d{2}|\\d{4})$/.exec(raw);
      if (!match) { return c.messages.expiryUnreadable; }
      var month = Number(match[1]);
      var year = match[2].length === 2 ? 2000 + Number(match[2]) : Number(match[2]);
      if (month < 1 || month > 12) { return c.messages.expiryMonth; }
      if (year > c.nowYear + 25) { return c.messages.expiryYear; }
      if (year < c.nowYear || (year === c.nowYear && month < c.nowMonth)) { return c.messages.expiryPast; }
      return null;
    },
    cvc: function () {
      var value = cvc.value.trim();
      if (value === '') { return c.messages.cvcMissing; }
      return /^\\d{3,4}$/.test(value) ? null : c.messages.cvcInvalid;
    },
    cardholderName: function () {
      var value = name.value.trim();
      if (value === '') { return c.messages.nameMissing; }
      return value.length <= 200 && !/\\d{6,}/.test(value) ? null : c.messages.nameInvalid;
    }
  };
  var inputs = { cardNumber: number, expiry: expiry, cvc: cvc, cardholderName: name };
  number.addEventListener('input', function () {
    var digits = digitsOf(number.value).slice(0, 19);
    var found = digits.length > 0 ? schemeOf(digits) : null;
    var atEnd = number.selectionStart === number.value.length;
    number.value = grouped(digits, found === 'AMEX');
    if (atEnd) { number.setSelectionRange(number.value.length, number.value.length); }
    scheme.textContent = found ? (c.names[found] || '') : '';
    scheme.setAttribute('data-scheme', found || '');
  });
  expiry.addEventListener('input', function (event) {
    var digits = digitsOf(expiry.value).slice(0, 4);
    if (event.inputType && event.inputType.indexOf('delete') === 0) { return; }
    expiry.value = digits.length > 2 || (digits.length === 2 && expiry.value.length <= 2) ? digits.slice(0, 2) + ' / ' + digits.slice(2) : digits;
  });
  cvc.addEventListener('input', function () { cvc.value = digitsOf(cvc.value).slice(0, 4); });
  Object.keys(inputs).forEach(function (field) {
    inputs[field].addEventListener('blur', function () {
      if (inputs[field].value.trim() !== '' || inputs[field].getAttribute('aria-invalid') === 'true') { show(inputs[field], checks[field]()); }
    });
  });
  form.addEventListener('submit', function (event) {
    var first = null;
    Object.keys(inputs).forEach(function (field) {
      var message = checks[field]();
      show(inputs[field], message);
      if (message && !first) { first = inputs[field]; }
    });
    if (first) { event.preventDefault(); first.focus(); }
  });
})();`;
}
