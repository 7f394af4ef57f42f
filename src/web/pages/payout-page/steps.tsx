/**
 * The hosted payout page's step indicator (issue 16 item 6), like Stripe's hosted flows: on a
 * desktop the whole ordered list with each step done, current or next; on a phone one line,
 * "Step 2 of 5 — Method". The list stays in the accessibility tree at every width (visually hidden
 * on phones) with `aria-current="step"` on the current step; the compact line is for the eye only.
 */

export type PayoutStep = 'verify' | 'method' | 'details' | 'review' | 'identity' | 'status';

const stepLabels: Record<PayoutStep, string> = {
  verify: 'Verify e‑mail',
  method: 'Method',
  details: 'Details',
  review: 'Review',
  identity: 'Identity',
  status: 'Status',
};

/**
 * The steps a customer walks. Identity appears only on the KYC form itself (decision 0038): whether a
 * customer needs the form is known only once the payout is confirmed, and a step that may not come
 * should not be promised beforehand.
 */
export function stepsFor(current: PayoutStep): PayoutStep[] {
  return current === 'identity' ? ['verify', 'method', 'details', 'review', 'identity', 'status'] : ['verify', 'method', 'details', 'review', 'status'];
}

/** `finished`: the last step is reached for good (paid): its mark is a tick too, and it stays the current step. */
export function StepIndicator(props: { current: PayoutStep; finished?: boolean }) {
  const steps = stepsFor(props.current);
  const position = steps.indexOf(props.current);
  return (
    <nav class={props.finished ? 'steps finished' : 'steps'} aria-label="Payout steps">
      <p class="steps-compact" aria-hidden="true">
        Step {position + 1} of {steps.length} — {stepLabels[props.current]}
      </p>
      <ol>
        {steps.map((step, index) => {
          const state = index < position ? 'done' : index === position ? 'current' : 'next';
          return (
            <li class={state} {...(state === 'current' ? { 'aria-current': 'step' } : {})}>
              <span class="step-mark" aria-hidden="true">
                {state === 'done' || (state === 'current' && props.finished) ? '✓' : String(index + 1)}
              </span>
              <span class="step-label">
                {state === 'done' ? <span class="visually-hidden">Done: </span> : null}
                {stepLabels[step]}
              </span>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}

export const stepStyles = `
.visually-hidden { position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }
.steps { margin: 0 0 1.25rem; }
.steps ol { display: flex; list-style: none; margin: 0; padding: 0; gap: 0.25rem; counter-reset: none; }
.steps li { flex: 1; display: flex; flex-direction: column; align-items: center; gap: 0.3rem; font-size: 0.85rem; color: var(--muted); text-align: center; position: relative; }
.steps li + li::before { content: ""; position: absolute; top: 0.8rem; right: calc(50% + 1rem); width: calc(100% - 2rem + 0.25rem); height: 2px; background: var(--line); }
.steps li.done + li::before { background: var(--good); }
.step-mark { display: inline-flex; align-items: center; justify-content: center; width: 1.6rem; height: 1.6rem; border-radius: 50%; border: 2px solid var(--line); background: #fff; font-weight: 700; font-size: 0.8rem; }
.steps li.done .step-mark { border-color: var(--good); background: var(--good); color: #fff; }
.steps li.current .step-mark { border-color: var(--accent); background: var(--accent); color: var(--accent-ink); }
.steps.finished li.current .step-mark { border-color: var(--good); background: var(--good); color: #fff; }
.steps li.current { color: var(--ink); font-weight: 600; }
.steps-compact { display: none; margin: 0; font-size: 0.9rem; font-weight: 600; color: var(--muted); }
@media (max-width: 30rem) {
  .steps-compact { display: block; }
  .steps ol { position: absolute; width: 1px; height: 1px; margin: -1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
}
`;
