import type { PaymentPageResponse } from '../../../modules/payment-pages/index.ts';

/** Styles of the order summary; pages that show it add these to their own. */
export const orderSummaryStyles = `
.order { margin: 0.5rem 0 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
.order .description { margin: 0 0 0.5rem; white-space: pre-line; }
.order table { background: transparent; font-size: 0.95rem; }
.order th { font-weight: 400; color: var(--muted); padding-left: 0; }
.order td { text-align: right; padding-right: 0; white-space: nowrap; }
.order .quantity { display: block; font-size: 0.85rem; }
.order tfoot th, .order tfoot td { font-weight: 600; color: var(--ink); border-bottom: 0; }
`;

/**
 * What the customer is paying for: the page's description and line items with the total, as the
 * merchant gave them (nothing when it gave neither). `format` renders minor units in the page's currency.
 */
export function OrderSummary(props: { page: Pick<PaymentPageResponse, 'amount' | 'currency' | 'description' | 'lineItems'>; format: (amount: number, currency: string) => string }) {
  const { page, format } = props;
  if (page.description === undefined && page.lineItems === undefined) {
    return null;
  }
  return (
    <section class="order" aria-label="Order summary">
      {page.description !== undefined ? <p class="description">{page.description}</p> : null}
      {page.lineItems !== undefined ? (
        <table>
          <caption class="visually-hidden">Items</caption>
          <tbody>
            {page.lineItems.map((item) => (
              <tr>
                <th scope="row">
                  {item.name}
                  {item.quantity > 1 ? (
                    <span class="quantity">
                      {item.quantity} × {format(item.unitAmount, page.currency)}
                    </span>
                  ) : null}
                </th>
                <td>{format(item.quantity * item.unitAmount, page.currency)}</td>
              </tr>
            ))}
          </tbody>
          <tfoot>
            <tr>
              <th scope="row">Total</th>
              <td>{format(page.amount, page.currency)}</td>
            </tr>
          </tfoot>
        </table>
      ) : null}
    </section>
  );
}
