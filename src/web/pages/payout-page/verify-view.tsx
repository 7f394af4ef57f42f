import { formatDate } from '../../../modules/payout-pages/index.ts';
import { Csrf, Shell, type PageSummary } from './components.tsx';

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

/** Too many wrong codes: nothing can be entered until the merchant reissues the page (no form, no code sent). */
export function LockedPage(props: { nonce: string; summary: PageSummary }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Page locked" summary={summary}>
      <h1>This payout page is locked</h1>
      <div class="card" role="alert">
        <p class="status error">Locked for your security</p>
        <p>Too many wrong verification codes were entered, so we locked this page to protect your details. No more codes can be sent or entered here.</p>
        <p>
          Please contact {summary.merchantName}. They can reissue the page; you will then get an e-mail and can continue with a new code. Your payout has not been
          changed.
        </p>
      </div>
    </Shell>
  );
}
