import { CsrfField, Notice, Time } from './components.tsx';
import { DashboardPage, PlainPage, type Frame } from './layout.tsx';
import { dashboardPrefix, modePath } from '../paths.ts';
import { minimumPasswordLength } from '../session.ts';
import { AccountTabs } from './security.tsx';

export function SignInPage(props: { nonce: string; csrfToken: string; email?: string; next?: string; error?: string; notice?: string }) {
  return (
    <PlainPage title="Sign in" nonce={props.nonce}>
      <h1>Sign in to your Paysail dashboard</h1>
      <div class="card">
        <Notice message={props.notice} />
        {props.error ? (
          <div class="error-summary" role="alert" id="sign-in-error">
            <p class="error">{props.error}</p>
          </div>
        ) : null}
        <form method="post" action={`${dashboardPrefix}/sign-in`} novalidate>
          <CsrfField token={props.csrfToken} />
          {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" required value={props.email ?? ''} aria-describedby={props.error ? 'sign-in-error' : undefined} />
          <label for="password">Password</label>
          <input id="password" name="password" type="password" autocomplete="current-password" required />
          <button type="submit">Sign in</button>
        </form>
      </div>
      <p class="muted">
        Your operator created your dashboard login with your merchant account. Lost it? Ask your Paysail operator to reset it.
      </p>
    </PlainPage>
  );
}

export function AccountPage(props: { frame: Frame; notice?: string | undefined; error?: string | undefined; expiresAt: Date }) {
  const { frame } = props;
  return (
    <DashboardPage frame={frame} section="account" title="Account" notice={props.notice}>
      <h1>Account</h1>
      <AccountTabs frame={frame} current="profile" />
      <div class="card">
        <dl>
          <dt>Signed in as</dt>
          <dd>{frame.email}</dd>
          <dt>Merchant</dt>
          <dd>{frame.merchantName}</dd>
          <dt>Live mode</dt>
          <dd>{frame.liveEnabled ? 'Enabled' : 'Not enabled yet: your Paysail operator enables it'}</dd>
          <dt>This session ends</dt>
          <dd>
            <Time value={props.expiresAt} />
          </dd>
        </dl>
      </div>
      <h2 id="password-heading">Change password</h2>
      <form method="post" action={modePath(frame.mode, '/account/password')} class="card" aria-labelledby="password-heading" novalidate>
        {props.error ? (
          <div class="error-summary" role="alert" id="password-error">
            <p class="error">{props.error}</p>
          </div>
        ) : null}
        <input type="hidden" name="_csrf" value={frame.csrfToken} />
        <label for="current-password">Current password</label>
        <input id="current-password" name="currentPassword" type="password" autocomplete="current-password" required />
        <label for="new-password">New password</label>
        <input id="new-password" name="newPassword" type="password" autocomplete="new-password" required minlength={minimumPasswordLength} aria-describedby="new-password-hint" />
        <p class="muted" id="new-password-hint">
          At least {minimumPasswordLength} characters. Your other sessions are signed out when it changes.
        </p>
        <label for="confirm-password">Repeat the new password</label>
        <input id="confirm-password" name="confirmation" type="password" autocomplete="new-password" required />
        <button type="submit">Change password</button>
      </form>
    </DashboardPage>
  );
}

/**
 * The second step of sign-in: the password was right, now the code of the app or a recovery code.
 * Only someone who knows the password gets here, so it says no more about the account than they know.
 */
export function SecondFactorPage(props: { nonce: string; csrfToken: string; email: string; next?: string | undefined; error?: string | undefined }) {
  return (
    <PlainPage title="Two-factor sign-in" nonce={props.nonce}>
      <h1>Enter your sign-in code</h1>
      <div class="card">
        {props.error ? (
          <div class="error-summary" role="alert" id="code-error">
            <p class="error">{props.error}</p>
          </div>
        ) : null}
        <p>
          Open your authenticator app and enter the 6-digit code for Paysail (<strong>{props.email}</strong>).
        </p>
        <form method="post" action={`${dashboardPrefix}/sign-in/code`} novalidate>
          <CsrfField token={props.csrfToken} />
          {props.next ? <input type="hidden" name="next" value={props.next} /> : null}
          <label for="code">Code</label>
          <input
            id="code"
            name="code"
            inputmode="numeric"
            autocomplete="one-time-code"
            autofocus
            required
            maxlength={20}
            aria-describedby={props.error ? 'code-error code-hint' : 'code-hint'}
          />
          <p class="muted" id="code-hint">
            No phone? Enter one of your recovery codes instead (like <code>ab3de-fgh4k</code>); each works once.
          </p>
          <button type="submit">Sign in</button>
        </form>
      </div>
      <p class="muted">
        <a href={`${dashboardPrefix}/sign-in`}>Start again with your password</a>. Lost your phone and your recovery codes? Ask your Paysail operator.
      </p>
    </PlainPage>
  );
}
