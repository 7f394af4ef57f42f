import { CsrfField } from './components.tsx';
import { confirmedField, confirmTone, type Confirmation } from './confirm-dialog.tsx';
import { DashboardPage, type Frame, type Section } from './layout.tsx';

/**
 * The intermediate page of an irreversible action (without JavaScript, or a form posted without
 * `confirmed`): says what will happen; Confirm posts the same form again with `confirmed=1` and a
 * fresh CSRF token, Cancel goes back to where the action was.
 */
export function ConfirmationPage(props: { frame: Frame; section: Section | null; action: string; back: string; confirmation: Confirmation; fields: Record<string, string> }) {
  const { frame, confirmation } = props;
  return (
    <DashboardPage frame={frame} section={props.section} title={confirmation.title}>
      <p class="crumbs">
        <a href={props.back}>← Back</a>
      </p>
      <form method="post" action={props.action} class="card compact confirm-page" aria-labelledby="confirm-title" aria-describedby="confirm-text">
        <h1 id="confirm-title">{confirmation.title}</h1>
        <p id="confirm-text">{confirmation.text}</p>
        <CsrfField token={frame.csrfToken} />
        {Object.entries(props.fields).map(([name, value]) => (
          <input type="hidden" name={name} value={value} />
        ))}
        <input type="hidden" name={confirmedField} value="1" />
        <div class="confirm-buttons">
          <a class="button secondary" href={props.back}>
            {confirmation.dismissLabel ?? 'Cancel'}
          </a>
          <button type="submit" class={confirmTone(confirmation)}>
            {confirmation.confirmLabel}
          </button>
        </div>
      </form>
    </DashboardPage>
  );
}
