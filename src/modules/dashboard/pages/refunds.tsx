import type { RefundView } from '../../refunds/index.ts';
import { modePath } from '../paths.ts';
import type { PaymentPageResponse } from '../../payment-pages/index.ts';
import { Badge, CsrfField, DataTable, EmptyState, Money, Time, mayShow } from './components.tsx';
import { ConfirmDialog, confirmId } from './confirm-dialog.tsx';
import { refundConfirmation } from './confirmations.tsx';
import type { Frame } from './layout.tsx';

const reasons = [
  ['', 'No reason given'],
  ['REQUESTED_BY_CUSTOMER', 'Requested by the customer'],
  ['DUPLICATE', 'Duplicate payment'],
  ['FRAUDULENT', 'Fraudulent payment'],
] as const;

/** Minor units as the decimal a person types: 2500 → "25.00". */
export function decimalOf(minorUnits: number): string {
  return `${Math.floor(minorUnits / 100)}.${String(minorUnits % 100).padStart(2, '0')}`;
}

/** "25", "25.5", "25.50" → 2550; anything else → null. */
export function minorUnitsOf(typed: string): number | null {
  const match = /^\s*(\d{1,9})(?:[.,](\d{1,2}))?\s*$/.exec(typed);
  if (!match) {
    return null;
  }
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

/**
 * The refund form of a PAID page: the amount (what is left, by default) and a reason. Refund opens a
 * dialog naming the typed amount and the card (without JavaScript the server answers the
 * confirmation page). Its one-time `refundKey` makes a double click or a resubmitted form one refund.
 */
export function RefundForm(props: { frame: Frame; page: PaymentPageResponse; card: string | undefined; left: number; refundKey: string }) {
  const { frame, page } = props;
  const currency = page.currency;
  const action = modePath(frame.mode, `/payment-pages/${page.id}/refund`);
  const dialogId = confirmId(action);
  const typedAmount = (
    <>
      <span data-value-of="refund-amount">{decimalOf(props.left)}</span> {currency}
    </>
  );
  if (props.left <= 0) {
    return (
      <p class="muted" id="refund-help">
        This payment has been refunded in full.
      </p>
    );
  }
  if (!mayShow(frame, 'POST', action)) {
    return null;
  }
  return (
    <form method="post" action={action} class="card compact" aria-labelledby="refund-heading" data-confirm={dialogId}>
      <h2 id="refund-heading">Refund this payment</h2>
      <CsrfField token={frame.csrfToken} />
      <input type="hidden" name="refundKey" value={props.refundKey} />
      <label for="refund-amount">Amount ({currency})</label>
      <input id="refund-amount" name="amount" inputmode="decimal" required pattern="\d{1,9}([.,]\d{1,2})?" value={decimalOf(props.left)} aria-describedby="refund-amount-help" />
      <p class="muted" id="refund-amount-help">
        Up to <Money amount={props.left} currency={currency} /> is left to refund. The amount leaves your available balance now and comes back if the refund fails.
      </p>
      <label for="refund-reason">Reason</label>
      <select id="refund-reason" name="reason">
        {reasons.map(([value, label]) => (
          <option value={value}>{label}</option>
        ))}
      </select>
      <button type="submit" class="danger" aria-haspopup="dialog">
        Refund
      </button>
      <ConfirmDialog id={dialogId} confirmation={refundConfirmation(page, typedAmount, props.card)} />
    </form>
  );
}

export function RefundsTable(props: { refunds: RefundView[] }) {
  if (props.refunds.length === 0) {
    return <EmptyState title="No refunds on this payment." />;
  }
  return (
    <DataTable label="Refunds" headers={['Refund', 'Status', 'Amount', 'Reason', 'Made']}>
      {props.refunds.map((refund) => (
        <tr>
          <td>
            <code>{refund.id}</code>
          </td>
          <td>
            <Badge value={refund.status} />
            {refund.failureReason ? <span class="muted"> {refund.failureReason}</span> : null}
          </td>
          <td class="num">
            <Money amount={refund.amount} currency={refund.currency} />
          </td>
          <td>{refund.reason ? refund.reason.toLowerCase().replaceAll('_', ' ') : '—'}</td>
          <td>
            <Time value={new Date(refund.createdAt)} />
          </td>
        </tr>
      ))}
    </DataTable>
  );
}
