import { dashboardPrefix } from '../paths.ts';
import { roleWords } from '../access.ts';
import type { InviteLookup } from '../team.ts';
import { minimumPasswordLength } from '../session.ts';
import { CsrfField, Time } from './components.tsx';
import { PlainPage } from './layout.tsx';

/** The hosted page of an invitation link: choose a password, land signed in (or why the link does not work). */
export function AcceptInvitePage(props: { nonce: string; csrfToken: string; action: string; invite: InviteLookup; error?: string }) {
  const { invite } = props;
  if (invite.state !== 'open') {
    const why =
      invite.state === 'expired'
        ? 'This invitation has expired: links work for 7 days.'
        : invite.state === 'used'
          ? 'This invitation was already used or was revoked: each link works once.'
          : 'This invitation link does not work. Check that you opened the whole link from the e-mail.';
    return (
      <PlainPage title="Invitation" nonce={props.nonce}>
        <h1>This invitation link no longer works</h1>
        <div class="card">
          <p>{why}</p>
          <p>
            Ask an owner or administrator{invite.merchantName ? ` of ${invite.merchantName}` : ''} to send you a new invitation. Already a member?{' '}
            <a href={`${dashboardPrefix}/sign-in`}>Sign in</a>.
          </p>
        </div>
      </PlainPage>
    );
  }
  return (
    <PlainPage title={`Join ${invite.merchantName}`} nonce={props.nonce}>
      <h1>Join {invite.merchantName} on Paysail</h1>
      <div class="card">
        <p>
          You were invited as <strong>{roleWords[invite.role].name}</strong>: {roleWords[invite.role].summary}
        </p>
        {props.error ? (
          <div class="error-summary" role="alert" id="accept-error">
            <p class="error">{props.error}</p>
          </div>
        ) : null}
        <form method="post" action={props.action} novalidate>
          <CsrfField token={props.csrfToken} />
          <label for="email">E-mail</label>
          <input id="email" name="email" type="email" autocomplete="username" value={invite.email} readonly aria-describedby="email-hint" />
          <p class="muted" id="email-hint">
            You sign in with this address. The invitation was sent to it.
          </p>
          <label for="new-password">Choose a password</label>
          <input
            id="new-password"
            name="newPassword"
            type="password"
            autocomplete="new-password"
            required
            minlength={minimumPasswordLength}
            aria-invalid={props.error ? 'true' : undefined}
            aria-describedby={props.error ? 'accept-error new-password-hint' : 'new-password-hint'}
          />
          <p class="muted" id="new-password-hint">
            At least {minimumPasswordLength} characters.
          </p>
          <label for="confirm-password">Repeat the password</label>
          <input id="confirm-password" name="confirmation" type="password" autocomplete="new-password" required />
          <button type="submit">Accept and sign in</button>
        </form>
      </div>
      <p class="muted">
        This link works once, until <Time value={invite.expiresAt} />.
      </p>
    </PlainPage>
  );
}
