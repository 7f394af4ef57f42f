import type { DailySeries } from '../presenters/overview.ts';
import { formatMoney } from './components.tsx';

const width = 720;
const height = 220;
const margin = { top: 12, right: 24, bottom: 30, left: 72 };
export const paymentColor = '#1d4ed8';
export const payoutColor = '#047857';

/** 1, 2 or 5 × 10^n at or above `value`, so gridlines fall on round amounts. */
function niceCeiling(value: number): number {
  if (value <= 0) {
    return 100;
  }
  const magnitude = 10 ** Math.floor(Math.log10(value));
  const step = [1, 2, 5, 10].find((candidate) => candidate * magnitude >= value) ?? 10;
  return step * magnitude;
}

function plural(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}

const compact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });

/**
 * Daily payment and payout volume of one currency as a server-rendered SVG bar chart (no script,
 * no CDN). The SVG is an image with a title and a description that states the totals; the exact
 * numbers follow in a table for screen readers and for anyone who wants them.
 */
export function VolumeChart(props: { days: string[]; lastDay: string; bucketDays: number; period: string; series: DailySeries }) {
  const { days, series, bucketDays } = props;
  const per = bucketDays === 1 ? 'day' : 'week';
  const tickEvery = bucketDays === 1 ? 7 : Math.max(1, Math.ceil(days.length / 10));
  const id = `chart-${series.currency.toLowerCase()}`;
  const plotWidth = width - margin.left - margin.right;
  const plotHeight = height - margin.top - margin.bottom;
  const maximum = niceCeiling(Math.max(...series.payments, ...series.payouts));
  const group = plotWidth / days.length;
  const barWidth = Math.max(1, (group - 3) / 2);
  const y = (value: number) => margin.top + plotHeight - (value / maximum) * plotHeight;
  const totalPayments = series.payments.reduce((sum, value) => sum + value, 0);
  const totalPayouts = series.payouts.reduce((sum, value) => sum + value, 0);
  const first = days[0] ?? '';
  const description =
    `Per ${per} from ${first} to ${props.lastDay} (UTC days): payments ${formatMoney(totalPayments, series.currency)} in total (${plural(series.paymentCount, 'payment')}), ` +
    `payouts ${formatMoney(totalPayouts, series.currency)} in total (${plural(series.payoutCount, 'payout')}).`;
  return (
    <figure class="card chart">
      <figcaption>
        <strong>{series.currency}</strong>: payment and payout volume, {props.period}
      </figcaption>
      <div class="legend" aria-hidden="true">
        <span>
          <i class="swatch-payments" />
          Payments
        </span>
        <span>
          <i class="swatch-payouts" />
          Payouts
        </span>
      </div>
      <svg viewBox={`0 0 ${width} ${height}`} role="img" aria-labelledby={`${id}-title ${id}-desc`} xmlns="http://www.w3.org/2000/svg">
        <title id={`${id}-title`}>{`${series.currency} payments and payouts per ${per}`}</title>
        <desc id={`${id}-desc`}>{description}</desc>
        {[0, 0.5, 1].map((fraction) => (
          <g>
            <line x1={margin.left} x2={width - margin.right} y1={y(maximum * fraction)} y2={y(maximum * fraction)} stroke="#cbd5e1" stroke-width="1" />
            <text x={margin.left - 6} y={y(maximum * fraction) + 4} text-anchor="end" font-size="14" fill="#475569">
              {compact.format((maximum * fraction) / 100)}
            </text>
          </g>
        ))}
        {days.map((day, index) => {
          const x = margin.left + index * group + 1.5;
          const paymentValue = series.payments[index] ?? 0;
          const payoutValue = series.payouts[index] ?? 0;
          return (
            <g>
              {paymentValue > 0 ? <rect x={x} y={y(paymentValue)} width={barWidth} height={margin.top + plotHeight - y(paymentValue)} fill={paymentColor} /> : null}
              {payoutValue > 0 ? <rect x={x + barWidth} y={y(payoutValue)} width={barWidth} height={margin.top + plotHeight - y(payoutValue)} fill={payoutColor} /> : null}
              {(index % tickEvery === 0 && index < days.length - Math.ceil(tickEvery / 2)) || index === days.length - 1 ? (
                <text x={x + barWidth} y={height - 8} text-anchor="middle" font-size="14" fill="#475569">
                  {day.slice(5)}
                </text>
              ) : null}
            </g>
          );
        })}
      </svg>
      <details>
        <summary>Show the numbers</summary>
        <div class="table-wrap" role="region" aria-label={`${series.currency} volume per ${per}`} tabindex={0}>
          <table>
            <thead>
              <tr>
                <th scope="col">{bucketDays === 1 ? 'Day (UTC)' : 'Week from (UTC)'}</th>
                <th scope="col" class="num">
                  Payments
                </th>
                <th scope="col" class="num">
                  Payouts
                </th>
              </tr>
            </thead>
            <tbody>
              {days.map((day, index) => (
                <tr>
                  <td>{day}</td>
                  <td class="num">{formatMoney(series.payments[index] ?? 0, series.currency)}</td>
                  <td class="num">{formatMoney(series.payouts[index] ?? 0, series.currency)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
