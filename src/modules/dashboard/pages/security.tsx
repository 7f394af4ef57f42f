import { ActionButton, CsrfField, DataTable, Time } from './components.tsx';
import { DashboardPage, type Frame } from './layout.tsx';
import type { Confirmation } from './confirm-dialog.tsx';
import { confirmId, ConfirmDialog } from './confirm-dialog.tsx';
import { modePath } from '../paths.ts';
import { describeUserAgent } from '../presenters/user-agent.ts';
import type { SessionSummary } from '../session.ts';
import { recoveryCodeCount, type Enrolment } from '../two-factor.ts';


/** Account › Profile | Security: the two pages of the account section. */
export function AccountTabs(props: { frame: Frame; current: 'profile' | 'security' }) {
  const { frame } = props;
  return (
    <nav aria-label="Account">
      <ul class="subnav">
        <li>
          <a href={modePath(frame.mode, '/account')} aria-current={props.current === 'profile' ? 'page' : undefined}>
            Profile and password
          </a>
        </li>
        <li>
          <a href={modePath(frame.mode, '/account/security')} aria-current={props.current === 'security' ? 'page' : undefined}>
            Security
          </a>
        </li>
      </ul>
    </nav>
  );
}

export function revokeSessionConfirmation(session: SessionSummary, isCurrent: boolean): Confirmation {
  return {
    title: isCurrent ? 'Sign out of this session?' : 'Sign out this session?',
    text: `${describeUserAgent(session.userAgent)}${session.address ? ` from ${session.address}` : ''} is signed out at its next request${isCurrent ? ': that is you, now' : ''}.`,
    confirmLabel: 'Sign out session',
  };
}

export function revokeOtherSessionsConfirmation(count: number): Confirmation {
  return {
    title: 'Sign out everywhere else?',
    text: `Your ${count === 1 ? 'other session is' : `${count} other sessions are`} signed out at their next request. This session stays signed in.`,
    confirmLabel: 'Sign out other sessions',
  };
}

export const disableTwoFactorConfirmation: Confirmation = {
  title: 'Turn off two-factor sign-in?',
  text: 'Signing in will need only your password. Your authenticator app entry and your recovery codes stop working.',
  confirmLabel: 'Turn off two-factor sign-in',
};

export const regenerateRecoveryCodesConfirmation: Confirmation = {
  title: 'Make new recovery codes?',
  text: 'Your current recovery codes stop working at once. Save the new ones somewhere safe.',
  confirmLabel: 'Make new codes',
  tone: 'primary',
};

export interface SecurityView {
  twoFactor: { enabled: boolean; enabledAt: Date | null; recoveryCodesLeft: number };
  requireTwoFactor: boolean;
  mayRequire: boolean;
  sessions: SessionSummary[];
  currentSessionId: string;
  notice?: string | undefined;
  error?: string | undefined;
  disableError?: string | undefined;
}

function TwoFactorCard(props: { frame: Frame; view: SecurityView }) {
  const { frame, view } = props;
  const base = modePath(frame.mode, '/account/security');
  if (!view.twoFactor.enabled) {
    return (
      <div class="card status-line">
        <p>
          <span class="badge">Off</span> Signing in needs only your password. Add a code from an authenticator app on your phone, so a stolen password alone does not open your
          account.
        </p>
        <a class="button" href={`${base}/two-factor`}>
          Set up two-factor sign-in
        </a>
      </div>
    );
  }
  const dialogId = confirmId(`${base}/two-factor/disable`);
  return (
    <div class="card security-card">
      <p>
        <span class="badge good">On</span> since <Time value={view.twoFactor.enabledAt} />. Signing in asks for a code from your authenticator app after your password.
      </p>
      <h3 id="recovery-heading">Recovery codes</h3>
      <p class="muted">
        {view.twoFactor.recoveryCodesLeft} of {recoveryCodeCount} unused. Each signs you in once when you do not have your phone.
      </p>
      <ActionButton action={`${base}/recovery-codes`} frame={frame} label="Make new recovery codes" tone="secondary" confirm={regenerateRecoveryCodesConfirmation} />
      <h3 id="disable-heading">Turn off</h3>
      <form method="post" action={`${base}/two-factor/disable`} class="compact" aria-labelledby="disable-heading" data-confirm={dialogId} novalidate>
        {view.disableError ? (
          <div class="error-summary" role="alert" id="disable-error">
            <p class="error">{view.disableError}</p>
          </div>
        ) : null}
        <CsrfField token={frame.csrfToken} />
        <label for="disable-credential">A code from your app, or your password</label>
        <input id="disable-credential" name="credential" type="password" autocomplete="off" required aria-describedby={view.disableError ? 'disable-error' : undefined} />
        <button type="submit" class="danger" aria-haspopup="dialog">
          Turn off two-factor sign-in
        </button>
        <ConfirmDialog id={dialogId} confirmation={disableTwoFactorConfirmation} />
      </form>
    </div>
  );
}

export const requireTwoFactorConfirmation: Confirmation = {
  title: 'Require two-factor sign-in for all users?',
  text: 'Every dashboard user of your account without two-factor sign-in is sent to set it up at their next page, and can do nothing else until they have. Nobody can turn theirs off while it is required.',
  confirmLabel: 'Require two-factor sign-in',
  tone: 'primary',
};

function RequireCard(props: { frame: Frame; view: SecurityView }) {
  const { frame, view } = props;
  const action = modePath(frame.mode, '/account/security/require');
  // Turning it on affects every user, so it asks first; turning it off does not lock anyone out.
  const dialogId = view.requireTwoFactor ? undefined : confirmId(action);
  return (
    <form method="post" action={action} class="card status-line" aria-labelledby="require-heading" data-confirm={dialogId}>
      <CsrfField token={frame.csrfToken} />
      <input type="hidden" name="required" value={view.requireTwoFactor ? 'off' : 'on'} />
      <p>
        {view.requireTwoFactor
          ? 'Required: every dashboard user of your account signs in with a second factor. Users without one set it up at their next sign-in.'
          : 'Not required: each user decides. When required, users without two-factor sign-in must set it up before they can do anything else.'}
      </p>
      <button type="submit" class={view.requireTwoFactor ? 'secondary' : undefined} aria-haspopup={dialogId ? 'dialog' : undefined}>
        {view.requireTwoFactor ? 'Stop requiring it' : 'Require for all users'}
      </button>
      {dialogId ? <ConfirmDialog id={dialogId} confirmation={requireTwoFactorConfirmation} /> : null}
    </form>
  );
}

function SessionsTable(props: { frame: Frame; view: SecurityView }) {
  const { frame, view } = props;
  const base = modePath(frame.mode, '/account/security/sessions');
  return (
    <DataTable label="Your sessions" headers={['Browser', 'Address', 'Signed in', 'Last active', 'Action']}>
      {view.sessions.map((session) => {
        const isCurrent = session.id === view.currentSessionId;
        return (
          <tr>
            <td id={`session-${session.id}`}>
              {describeUserAgent(session.userAgent)}
              {isCurrent ? (
                <>
                  {' '}
                  <span class="badge good">This session</span>
                </>
              ) : null}
            </td>
            <td>{session.address ?? 'unknown'}</td>
            <td>
              <Time value={session.createdAt} />
            </td>
            <td>
              <Time value={session.lastUsedAt} fallback="never" />
            </td>
            <td>
              <ActionButton
                action={`${base}/${session.id}/revoke`}
                frame={frame}
                label={isCurrent ? 'Sign out' : 'Revoke'}
                tone="danger"
                describedBy={`session-${session.id}`}
                confirm={revokeSessionConfirmation(session, isCurrent)}
              />
            </td>
          </tr>
        );
      })}
    </DataTable>
  );
}

export function SecurityPage(props: { frame: Frame; view: SecurityView }) {
  const { frame, view } = props;
  const others = view.sessions.filter((session) => session.id !== view.currentSessionId).length;
  return (
    <DashboardPage frame={frame} section="account" title="Security" notice={view.notice} error={view.error}>
      <h1>Account</h1>
      <AccountTabs frame={frame} current="security" />
      <h2>Two-factor sign-in</h2>
      <TwoFactorCard frame={frame} view={view} />
      {view.mayRequire ? (
        <>
          <h2 id="require-heading">Require two-factor sign-in for all users</h2>
          <RequireCard frame={frame} view={view} />
        </>
      ) : null}
      <div class="split">
        <h2>Sessions</h2>
        {others > 0 ? (
          <ActionButton action={modePath(frame.mode, '/account/security/sessions/revoke-others')} frame={frame} label="Sign out everywhere else" tone="secondary" confirm={revokeOtherSessionsConfirmation(others)} />
        ) : null}
      </div>
      <p class="muted">Where you are signed in to this dashboard. A revoked session is signed out at its next request.</p>
      <SessionsTable frame={frame} view={view} />
    </DashboardPage>
  );
}

/** Enrolment: scan (or type) the secret, then prove it with a code. */
export function EnrolPage(props: { frame: Frame; enrolment: Enrolment; required: boolean; error?: string | undefined }) {
  const { frame, enrolment } = props;
  const grouped = enrolment.secret.replace(/(.{4})/g, '$1 ').trim();
  return (
    <DashboardPage frame={frame} section="account" title="Set up two-factor sign-in">
      <h1>Set up two-factor sign-in</h1>
      {props.required ? (
        <p class="notice error" role="status">
          Your account requires two-factor sign-in. Set it up to continue using the dashboard.
        </p>
      ) : null}
      <div class="card enrol">
        <div class="qr" role="img" aria-label="QR code to scan with your authenticator app" dangerouslySetInnerHTML={{ __html: enrolment.qrSvg }} />
        <div>
          <h2>1. Scan the code</h2>
          <p>Open an authenticator app (1Password, Google Authenticator, Authy, Microsoft Authenticator…) and scan the QR code.</p>
          <p class="muted" id="secret-help">
            Cannot scan it? Enter this key in the app instead (time-based, 6 digits):
          </p>
          <code class="secret" aria-describedby="secret-help">
            {grouped}
          </code>
        </div>
      </div>
      <h2 id="confirm-heading">2. Enter the code the app shows</h2>
      <form method="post" action={modePath(frame.mode, '/account/security/two-factor')} class="card compact" aria-labelledby="confirm-heading" novalidate>
        {props.error ? (
          <div class="error-summary" role="alert" id="code-error">
            <p class="error">{props.error}</p>
          </div>
        ) : null}
        <CsrfField token={frame.csrfToken} />
        <label for="code">6-digit code</label>
        <input
          id="code"
          name="code"
          class="one-time-code"
          inputmode="numeric"
          autocomplete="one-time-code"
          pattern="[0-9 ]*"
          maxlength={7}
          required
          aria-describedby={props.error ? 'code-error' : undefined}
        />
        <button type="submit">Turn on two-factor sign-in</button>
      </form>
      {props.required ? null : (
        <p>
          <a href={modePath(frame.mode, '/account/security')}>Cancel</a>
        </p>
      )}
    </DashboardPage>
  );
}

/** The recovery codes, shown once after they are made. */
export function RecoveryCodesPage(props: { frame: Frame; codes: string[]; justEnabled: boolean }) {
  const { frame } = props;
  return (
    <DashboardPage frame={frame} section="account" title="Recovery codes" notice={props.justEnabled ? 'Two-factor sign-in is on.' : 'New recovery codes were made. The previous ones no longer work.'}>
      <h1>Save your recovery codes</h1>
      <div class="card">
        <p>
          If you lose your phone, each of these codes signs you in once instead of a code from the app. <strong>This is the only time they are shown.</strong> Store them in a
          password manager or print them.
        </p>
        <ul class="recovery-codes" aria-label="Recovery codes">
          {props.codes.map((code) => (
            <li>{code}</li>
          ))}
        </ul>
      </div>
      <div class="after-codes">
        <a class="button" href={modePath(frame.mode, '/account/security')}>
          I saved my recovery codes
        </a>
        <a href={`data:text/plain;charset=utf-8,${encodeURIComponent(`Paysail recovery codes for ${frame.email}\n\n${props.codes.join('\n')}\n`)}`} download="paysail-recovery-codes.txt">
          Download as a text file
        </a>
      </div>
    </DashboardPage>
  );
}
