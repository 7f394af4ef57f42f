import type { Child } from 'hono/jsx';

/**
 * What an irreversible action will do, said the same way in the dialog (with JavaScript) and on the
 * confirmation page (without): a question, what happens (amount, recipient, key, URL) and the label
 * of the button that does it.
 */
export interface Confirmation {
  /** A question: "Release this payout?" */
  title: string;
  /** What will happen, naming the amount and who gets it (or the key, the URL). */
  text: Child;
  /** The button that does it: "Release 250.00 USDC". */
  confirmLabel: string;
  /** The colour of the confirm button: red (the default) when something is lost or undone, the accent colour for an intended step such as a release. */
  tone?: 'danger' | 'primary';
  /** The button that does nothing ("Cancel" unless said: "Keep the subscription" when the action is itself a cancel). */
  dismissLabel?: string;
}

/** The form field that says the user confirmed; an irreversible POST without it renders the confirmation page. */
export const confirmedField = 'confirmed';

/** The class of the confirm button (none: the accent colour). */
export function confirmTone(confirmation: Confirmation): string | undefined {
  return confirmation.tone === 'primary' ? undefined : 'danger';
}

/** An id for the elements of one action's dialog, from its address (unique on a page: one form per action). */
export function confirmId(action: string): string {
  return `confirm${action.replace(/[^A-Za-z0-9]+/g, '-')}`;
}

/**
 * The dialog of an irreversible action, rendered inside its form and closed until the page's script
 * opens it (`showModal`: the rest of the page is inert, Escape closes it). Its Confirm button is a
 * submit button of the form carrying `confirmed=1`, so confirming is the form's own submission; Cancel
 * (focused first, the safe choice) only closes it. Without JavaScript it is never shown: the form
 * posts without `confirmed` and the server answers the confirmation page.
 */
export function ConfirmDialog(props: { id: string; confirmation: Confirmation }) {
  const { id, confirmation } = props;
  return (
    <dialog id={id} class="confirm" aria-labelledby={`${id}-title`} aria-describedby={`${id}-text`} data-confirm-dialog="">
      <h2 id={`${id}-title`}>{confirmation.title}</h2>
      <p id={`${id}-text`}>{confirmation.text}</p>
      <div class="confirm-buttons">
        <button type="button" class="secondary" data-confirm-cancel="" autofocus>
          {confirmation.dismissLabel ?? 'Cancel'}
        </button>
        <button type="submit" class={confirmTone(confirmation)} name={confirmedField} value="1">
          {confirmation.confirmLabel}
        </button>
      </div>
    </dialog>
  );
}

export const confirmStyles = `
dialog.confirm { max-width: min(32rem, calc(100vw - 2rem)); border: 0; border-radius: 12px; padding: 1.5rem; box-shadow: 0 20px 50px rgb(15 23 42 / 0.35); color: var(--ink); }
dialog.confirm::backdrop { background: rgb(15 23 42 / 0.55); }
dialog.confirm h2, .confirm-page h1 { margin-top: 0; font-size: 1.25rem; }
dialog.confirm p, .confirm-page p { overflow-wrap: anywhere; }
.confirm-buttons { display: flex; flex-wrap: wrap; justify-content: flex-end; gap: 0.5rem 0.75rem; margin-top: 1.25rem; }
.confirm-buttons button, .confirm-buttons .button, form.inline .confirm-buttons button { width: auto; margin: 0; padding: 0.6rem 1.2rem; }
/* On a phone: full-width buttons, the action on top (Cancel stays first for keyboards and readers). */
@media (max-width: 30rem) { .confirm-buttons { flex-direction: column-reverse; } .confirm-buttons button, .confirm-buttons .button, form.inline .confirm-buttons button { width: 100%; } }
`;

/**
 * Progressive enhancement of irreversible actions: a form with `data-confirm` opens its dialog instead
 * of posting; the dialog's Confirm (name `confirmed`) submits the form, Cancel and Escape close it and
 * focus returns to the button that opened it. Values typed in the form (the refund amount) are shown
 * in the dialog through `data-value-of`. Where `<dialog>` is missing, the form posts and the server
 * answers the confirmation page.
 */
export const confirmDialogScript = `(function(){var opener=null;document.addEventListener('submit',function(e){var form=e.target;var id=form.getAttribute&&form.getAttribute('data-confirm');if(!id){return;}var dialog=document.getElementById(id);if(!dialog||typeof dialog.showModal!=='function'){return;}if(e.submitter&&e.submitter.getAttribute('name')==='confirmed'){return;}e.preventDefault();dialog.querySelectorAll('[data-value-of]').forEach(function(out){var input=document.getElementById(out.getAttribute('data-value-of'));if(input){var v=input.value.trim().replace(',','.');var m=/^(\\d+)(?:\\.(\\d{1,2}))?$/.exec(v);out.textContent=m?m[1]+'.'+((m[2]||'')+'00').slice(0,2):v;}});opener=e.submitter||document.activeElement;dialog.showModal();},true);document.addEventListener('click',function(e){var cancel=e.target&&e.target.closest&&e.target.closest('[data-confirm-cancel]');if(cancel){var dialog=cancel.closest('dialog');if(dialog){dialog.close();}}});document.querySelectorAll('dialog[data-confirm-dialog]').forEach(function(dialog){dialog.addEventListener('close',function(){if(opener&&opener.focus){opener.focus();}opener=null;});});})();`;
