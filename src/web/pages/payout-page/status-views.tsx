import type { PayoutMethodMask } from '../../../db/schema/index.ts';
import { StatusWatch } from '../../status-watch.tsx';
import { Csrf, DeclineLink, ReturnButton, Shell, networkLabels, type PageSummary } from './components.tsx';

export interface StatusCopy {
  title: string;
  heading: string;
  body: string;
  tone: 'progress' | 'good' | 'bad';
}

/** What the customer reads in each state (no PII). */
export function statusCopy(status: string, subStatus: string, merchantName: string, reason: string | null): StatusCopy {
  switch (`${status}/${subStatus}`) {
    case 'PENDING/KYC_REQUIRED':
      return { title: 'Identity check needed', heading: 'We need to verify your identity', body: 'Verify it’s you to continue with the identity check.', tone: 'progress' };
    case 'PENDING/KYC_IN_REVIEW':
      return { title: 'Verifying your identity', heading: 'We’re verifying your identity', body: 'This usually takes a moment.', tone: 'progress' };
    case 'PENDING/AWAITING_RELEASE':
      return reason
        ? { title: 'Waiting', heading: 'Your payout is confirmed', body: `${merchantName} will release it as soon as it can be sent.`, tone: 'progress' }
        : { title: 'Waiting for release', heading: 'Your payout is confirmed', body: `${merchantName} will release the funds shortly. We’ll e-mail you when they are on the way.`, tone: 'progress' };
    case 'PROCESSING/SUBMITTED':
      // A reason while PROCESSING: not handed to the rail yet (the operator's payout account is being funded).
      return reason
        ? { title: 'Being prepared', heading: 'Your payout is being prepared', body: `Your payout from ${merchantName} is approved and will be sent shortly.`, tone: 'progress' }
        : { title: 'On its way', heading: 'Your payout is on its way', body: 'The money has been sent to the destination you chose.', tone: 'progress' };
    case 'PROCESSED/PAID':
      return { title: 'Paid', heading: 'You’ve been paid', body: 'The payout has been delivered to the destination you chose.', tone: 'good' };
    case 'FAILED/KYC_REJECTED':
      return { title: 'Not completed', heading: 'We couldn’t verify your identity', body: `The payout could not be completed. Please contact ${merchantName}.`, tone: 'bad' };
    case 'FAILED/PAYOUT_REJECTED':
      return {
        title: 'Not delivered',
        heading: 'The payout could not be delivered',
        body: 'The receiving bank or network refused the payout to the details you entered (for example a closed account, a wrong account number, or a wallet that cannot receive it). No money was lost: enter other details and the payout is sent again, to them.',
        tone: 'bad',
      };
    case 'FAILED/PAYOUT_RETURNED':
      return { title: 'Returned', heading: 'The payout was returned', body: 'The payout was sent, but the receiving bank or network returned it. You can enter other details, and it will be sent again.', tone: 'bad' };
    case 'CANCELED/CUSTOMER_DECLINED':
      return { title: 'Declined', heading: 'You declined this payout', body: `Nothing will be sent. If this was a mistake, please contact ${merchantName}.`, tone: 'bad' };
    case 'CANCELED/MERCHANT_CANCELED':
      return { title: 'Canceled', heading: 'This payout was canceled', body: `${merchantName} canceled this payout. Please contact them if you have questions.`, tone: 'bad' };
    case 'EXPIRED/NOT_COMPLETED':
      return { title: 'Link expired', heading: 'This payout link has expired', body: `Please contact ${merchantName} for a new link.`, tone: 'bad' };
    default:
      return { title: 'Payout', heading: 'Payout', body: '', tone: 'progress' };
  }
}

/** Everything after the customer's part: a status view that refreshes itself while it can change. */
export function StatusPage(props: {
  nonce: string;
  summary: PageSummary;
  copy: StatusCopy;
  csrfToken: string;
  refreshSeconds?: number;
  method: PayoutMethodMask | null;
  returnLabel: string | null;
  canDecline: boolean;
  canRetry: boolean;
  /** The customer went through the steps (confirmed the payout): the step indicator shows them done. */
  showSteps: boolean;
  /** A paid USDC payout: its transaction; `explorerUrl` null for the sandbox rail's hashes (on no chain). */
  transaction: { hash: string; explorerUrl: string | null; sandbox: boolean } | null;
}) {
  const { summary, copy } = props;
  return (
    <Shell nonce={props.nonce} title={copy.title} summary={summary} {...(props.showSteps ? { step: 'status' as const, finished: copy.tone === 'good' } : {})} {...(props.refreshSeconds ? { refreshSeconds: props.refreshSeconds } : {})}>
      <h1>{copy.heading}</h1>
      <div class="card" role="status" aria-live="polite">
        <p class={`status ${copy.tone === 'good' ? 'success' : copy.tone === 'bad' ? 'error' : ''}`}>{copy.title}</p>
        <p>{copy.body}</p>
        {props.method ? (
          <p class="muted">
            To:{' '}
            {props.method.type === 'BANK_TRANSFER'
              ? `${props.method.accountType === 'SAVINGS' ? 'savings' : 'checking'} account ending ${props.method.last4}`
              : `${networkLabels[props.method.network]} wallet ${props.method.address}`}
          </p>
        ) : null}
        {props.transaction ? (
          <div class="transaction">
            <p class="muted" id="transaction-label">
              Transaction hash{props.transaction.explorerUrl === null && props.transaction.sandbox ? ' (sandbox: on no chain, so no explorer shows it)' : ''}
            </p>
            <p class="mono" id="transaction-hash" aria-labelledby="transaction-label">
              {props.transaction.hash}
            </p>
            <div class="transaction-actions">
              <button type="button" class="secondary" data-copy="transaction-hash" hidden>
                Copy hash
              </button>
              {props.transaction.explorerUrl ? (
                <a href={props.transaction.explorerUrl} target="_blank" rel="noopener noreferrer">
                  View on the block explorer<span class="visually-hidden"> (opens in a new tab)</span>
                </a>
              ) : null}
              <span class="hint" id="transaction-hash-copied" role="status"></span>
            </div>
          </div>
        ) : null}
      </div>
      {props.refreshSeconds ? <StatusWatch href={`/payout-page/${summary.id}`} statusKey={`${copy.title}|${copy.heading}|${props.transaction ? 'hash' : ''}`} seconds={props.refreshSeconds} /> : null}
      {props.canRetry ? (
        <p>
          <a class="button" href={`/payout-page/${summary.id}?step=retry`}>
            Enter other details
          </a>
        </p>
      ) : null}
      {props.returnLabel ? <ReturnButton id={summary.id} csrfToken={props.csrfToken} label={props.returnLabel} /> : null}
      {props.canDecline ? <DeclineLink id={summary.id} /> : null}
    </Shell>
  );
}

export function DeclinePage(props: { nonce: string; summary: PageSummary; csrfToken: string }) {
  const { summary } = props;
  return (
    <Shell nonce={props.nonce} title="Decline payout" summary={summary}>
      <h1>Decline this payout?</h1>
      <p>If you decline, {summary.merchantName} will not send you this money through this page. This cannot be undone here.</p>
      <form method="post" action={`/payout-page/${summary.id}/decline`}>
        <Csrf token={props.csrfToken} />
        <button type="submit" class="danger">
          Yes, decline the payout
        </button>
      </form>
      <p class="links">
        <a href={`/payout-page/${summary.id}`}>No, go back</a>
      </p>
    </Shell>
  );
}
