import { describeRange, rangePresets, utcDay, type DayRange } from '../date-range.ts';
import { modePath, withQuery, type Mode } from '../paths.ts';
import type { Compared, OverviewSummary } from '../presenters/overview-summary.ts';
import { DataTable, formatMoney } from './components.tsx';

const percent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1 });
const signedPercent = new Intl.NumberFormat('en-US', { style: 'percent', maximumFractionDigits: 1, signDisplay: 'exceptZero' });

/** "+12.5 %" against the previous period; "new" when there was nothing before; "no change" when equal. */
export function changeInWords(current: number, previous: number): { text: string; tone: 'up' | 'down' | 'same' } {
  if (current === previous) {
    return { text: 'no change', tone: 'same' };
  }
  if (previous === 0) {
    return { text: 'new', tone: 'up' };
  }
  return { text: signedPercent.format((current - previous) / previous), tone: current > previous ? 'up' : 'down' };
}

function Change(props: { current: number; previous: number }) {
  const change = changeInWords(props.current, props.previous);
  return <span class={`change ${change.tone}`}>{change.text}</span>;
}

/** The period picker: the presets as links (the current one marked) and a custom from–to form. */
export function RangePicker(props: { mode: Mode; range: DayRange }) {
  const { mode, range } = props;
  const path = modePath(mode, '');
  return (
    <div class="range-picker">
      <nav aria-label="Period">
        <ul class="ranges">
          {Object.entries(rangePresets).map(([value, preset]) => (
            <li>
              <a href={withQuery(path, { range: value })} aria-current={range.preset === value ? 'page' : undefined}>
                {preset.label}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <form method="get" action={path} class="toolbar" aria-label="Custom period">
        <input type="hidden" name="range" value="custom" />
        <div>
          <label for="from">From (UTC day)</label>
          <input type="date" id="from" name="from" value={utcDay(range.from)} required />
        </div>
        <div>
          <label for="to">To (UTC day)</label>
          <input type="date" id="to" name="to" value={utcDay(range.to)} required />
        </div>
        <div class="buttons">
          <button type="submit">Show period</button>
        </div>
      </form>
    </div>
  );
}

function MoneyRow(props: { label: string; currency: string; figures: Compared; noun: string }) {
  const { figures, currency } = props;
  const plural = (count: number) => `${count} ${props.noun}${count === 1 ? '' : 's'}`;
  return (
    <tr>
      <th scope="row">{props.label}</th>
      <td>{currency}</td>
      <td class="num">
        {formatMoney(figures.current.amount, currency)}
        <br />
        <span class="muted">{plural(figures.current.count)}</span>
      </td>
      <td class="num">
        {formatMoney(figures.previous.amount, currency)}
        <br />
        <span class="muted">{plural(figures.previous.count)}</span>
      </td>
      <td class="num">
        <Change current={figures.current.amount} previous={figures.previous.amount} />
      </td>
    </tr>
  );
}

/**
 * The period's figures beside the previous period's: the success rate of card payments and the
 * fraud reports as cards, then volume and count per currency for payments, payouts, refunds and
 * disputes in one table.
 */
export function PeriodFigures(props: { range: DayRange; summary: OverviewSummary }) {
  const { range, summary } = props;
  const rate = (side: { succeeded: number; declined: number }) => (side.succeeded + side.declined === 0 ? undefined : side.succeeded / (side.succeeded + side.declined));
  const currentRate = rate(summary.paymentOutcomes.current);
  const previousRate = rate(summary.paymentOutcomes.previous);
  const decided = summary.paymentOutcomes.current.succeeded + summary.paymentOutcomes.current.declined;
  return (
    <section aria-labelledby="figures-title">
      <h2 id="figures-title">
        {describeRange(range)} <span class="muted">compared with {describeRange(range.previous)}</span>
      </h2>
      <div class="grid">
        <div class="card figure">
          <h3>Payment success rate</h3>
          <p class="big">{currentRate === undefined ? '—' : percent.format(currentRate)}</p>
          <p class="muted">
            {decided === 0 ? 'No card payment was decided in this period.' : `${summary.paymentOutcomes.current.succeeded} of ${decided} card payments succeeded.`}{' '}
            Before: {previousRate === undefined ? 'none decided' : percent.format(previousRate)}.
          </p>
        </div>
        <div class="card figure">
          <h3>Fraud reports</h3>
          <p class="big">{summary.fraudReports.current}</p>
          <p class="muted">
            Before: {summary.fraudReports.previous} · <Change current={summary.fraudReports.current} previous={summary.fraudReports.previous} />
          </p>
        </div>
      </div>
      {summary.currencies.length === 0 ? (
        <p class="muted">No payments, payouts, refunds or disputes in this period or the one before it.</p>
      ) : (
        <DataTable label="Volume and count per currency, this period and the previous one" headers={['Figure', 'Currency', 'This period', 'Previous period', 'Change']}>
          {summary.currencies.flatMap((entry) => [
            <MoneyRow label="Payments" currency={entry.currency} figures={entry.payments} noun="payment" />,
            <MoneyRow label="Payouts" currency={entry.currency} figures={entry.payouts} noun="payout" />,
            <MoneyRow label="Refunds" currency={entry.currency} figures={entry.refunds} noun="refund" />,
            <MoneyRow label="Disputes" currency={entry.currency} figures={entry.disputes} noun="dispute" />,
          ])}
        </DataTable>
      )}
    </section>
  );
}
