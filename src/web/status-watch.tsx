/**
 * A hosted page waiting for something outside the customer's hands (a payment being processed, a
 * document check, a payout on its way) without a timed refresh (WCAG 2.2.1: a `<meta refresh>`
 * reloads the page under the reader). Without JavaScript the page offers "Check again", a plain link
 * to the page's own address. With JavaScript, `statusWatchScript` asks that address in the
 * background every few seconds, compares the answer's `data-status-key` with this page's, and only
 * when it changed says so in the polite live region and opens the new state. The fetch is
 * same-origin (`connect-src 'self'`) and the script carries the page's CSP nonce like every other.
 */
export function StatusWatch(props: { href: string; statusKey: string; seconds: number; label?: string }) {
  return (
    <div class="status-watch" data-status-watch="" data-status-key={props.statusKey} data-refresh-seconds={String(props.seconds)} data-check-url={props.href}>
      <p class="hint" aria-live="polite" data-watch-message="">
        This page does not change by itself: use Check again to see the latest.
      </p>
      <a class="button secondary" href={props.href}>
        {props.label ?? 'Check again'}
      </a>
    </div>
  );
}

/**
 * The enhancement of `StatusWatch`. The key is read from the fetched HTML as text: parsing the page as
 * a document would apply its styles under this page's CSP nonce (a reported violation).
 */
export const statusWatchScript = `(function () {
  var watch = document.querySelector('[data-status-watch]');
  if (!watch || !window.fetch) { return; }
  var seconds = Number(watch.getAttribute('data-refresh-seconds')) || 5;
  var key = watch.getAttribute('data-status-key');
  var url = watch.getAttribute('data-check-url') || window.location.href;
  var message = watch.querySelector('[data-watch-message]');
  if (message) { message.textContent = 'This page updates by itself when anything changes.'; }
  var decode = function (text) { return text.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'); };
  var poll = function () {
    fetch(url, { credentials: 'same-origin', cache: 'no-store' }).then(function (response) {
      return response.text().then(function (html) {
        var fresh = /data-status-key="([^"]*)"/.exec(html);
        if ((fresh ? decode(fresh[1]) : null) !== key) {
          if (message) { message.textContent = 'Something changed: showing the latest.'; }
          window.location.assign(url);
          return;
        }
        window.setTimeout(poll, seconds * 1000);
      });
    }, function () { window.setTimeout(poll, seconds * 1000); });
  };
  window.setTimeout(poll, seconds * 1000);
})();`;

export const statusWatchStyles = `
.status-watch { margin-top: 1rem; }
.status-watch .button { width: auto; margin-top: 0.5rem; padding: 0.6rem 1.4rem; }
`;
