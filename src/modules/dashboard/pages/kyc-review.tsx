import type { KycReviewItem } from '../../kyc/index.ts';
import { modePath } from '../paths.ts';
import { DataTable, PostForm, RoleNote, Time, mayShow } from './components.tsx';
import type { Frame } from './layout.tsx';

/** Who may decide, in place of the form, for a role that may not. */
function RoleNoteUnless(props: { frame: Frame; action: string }) {
  return mayShow(props.frame, 'POST', props.action) ? null : <RoleNote frame={props.frame} action={props.action} what="decide on this verification" />;
}

/** Report or rule → result, as the provider gave it (no personal data). */
function Breakdown(props: { breakdown: Record<string, string> }) {
  const entries = Object.entries(props.breakdown);
  return entries.length === 0 ? <span class="muted">no breakdown</span> : <span>{entries.map(([name, result]) => `${name}: ${result}`).join(', ')}</span>;
}

/** The customers list's queue: verifications the provider could not decide. */
export function KycReviewQueue(props: { frame: Frame; items: KycReviewItem[] }) {
  if (props.items.length === 0) {
    return null;
  }
  return (
    <section aria-labelledby="kyc-review-queue">
      <h2 id="kyc-review-queue">Waiting for your review ({props.items.length})</h2>
      <DataTable label="Identity verifications waiting for your review" headers={['Customer', 'Provider', 'Why', 'Result', 'Submitted']}>
        {props.items.map((item) => (
          <tr>
            <td>
              <a href={modePath(props.frame.mode, `/customers/${encodeURIComponent(item.customerId)}`)}>{item.customerReferenceId}</a>
            </td>
            <td>{item.provider}</td>
            <td>{item.reason ?? '—'}</td>
            <td>
              <Breakdown breakdown={item.breakdown} />
            </td>
            <td>
              <Time value={new Date(item.createdAt)} />
            </td>
          </tr>
        ))}
      </DataTable>
    </section>
  );
}

/** On a customer in review: what the provider said, its link, and the decision form (reason required). */
export function KycReviewCard(props: { frame: Frame; customerId: string; item: KycReviewItem }) {
  const { frame, item } = props;
  const action = modePath(frame.mode, `/customers/${encodeURIComponent(props.customerId)}/kyc-review`);
  return (
    <section class="card" aria-labelledby="kyc-review">
      <h2 id="kyc-review">Review the identity verification</h2>
      <p>
        {item.provider} could not decide: {item.reason ?? 'no reason given'}. Result: <Breakdown breakdown={item.breakdown} />.
        {item.providerUrl ? (
          <>
            {' '}
            <a href={item.providerUrl} rel="noopener noreferrer" target="_blank">
              Open the check at the provider
            </a>
            .
          </>
        ) : null}
      </p>
      <p class="muted">Your decision moves this customer's waiting payout pages on, as a provider decision would. It is recorded with your name and the time.</p>
      <RoleNoteUnless frame={frame} action={action} />
      <PostForm frame={frame} action={action}>
        <label for="kyc-review-reason">Reason (kept in the audit record; not shown to the customer)</label>
        <textarea id="kyc-review-reason" name="reason" required maxlength={500} rows={3}></textarea>
        <div class="actions">
          <button type="submit" name="decision" value="APPROVED">
            Approve identity
          </button>{' '}
          <button type="submit" name="decision" value="REJECTED" class="danger">
            Reject identity
          </button>
        </div>
      </PostForm>
    </section>
  );
}
