import { modePath, withQuery } from '../paths.ts';
import type { OverviewView } from '../presenters/overview.ts';
import { DataTable, EmptyState, Money } from './components.tsx';
import { VolumeChart } from './chart.tsx';
import { DashboardPage, type Frame } from './layout.tsx';
import { PeriodFigures, RangePicker } from './overview-figures.tsx';
import { describeRange, rangePresets, utcDay, type DayRange } from '../date-range.ts';

/** How the chart names its period: "last 30 days", "month to date", or the custom days. */
function periodInWords(range: DayRange): string {
  if (range.preset === 'custom') {
    return describeRange(range);
  }
  return rangePresets[range.preset].label.replace(/^Last/, 'last').replace(/^Month/, 'month');
}

export function OverviewPage(props: { frame: Frame; overview: OverviewView }) {
  const { frame, overview } = props;
  return (
    <DashboardPage frame={frame} section="overview" title="Overview">
      <h1>Overview</h1>
      {overview.awaitingRelease > 0 ? (
        <div class="notice success" role="status">
          {overview.awaitingRelease === 1 ? '1 payout is' : `${overview.awaitingRelease} payouts are`} waiting for you to release them.{' '}
          <a href={withQuery(modePath(frame.mode, '/payout-pages'), { status: 'AWAITING_RELEASE' })}>Review them</a>
        </div>
      ) : null}
      <h2>Balances</h2>
      <DataTable label="Balances per currency and mode" headers={['Mode', 'Currency', 'Available', 'Reserved', 'Being paid out']}>
        {overview.balances.flatMap((group) =>
          group.balances.map((balance) => (
            <tr>
              <td>{group.mode === 'live' ? 'Live' : 'Sandbox'}</td>
              <td>{balance.currency}</td>
              <td class="num">
                <Money amount={balance.available} currency={balance.currency} />
              </td>
              <td class="num">
                <Money amount={balance.reserved} currency={balance.currency} />
              </td>
              <td class="num">
                <Money amount={balance.inFlight} currency={balance.currency} />
              </td>
            </tr>
          )),
        )}
      </DataTable>
      {!frame.liveEnabled ? <p class="muted">Live balances appear once your operator enables live mode.</p> : null}
      <RangePicker mode={frame.mode} range={overview.range} />
      <PeriodFigures range={overview.range} summary={overview.summary} />
      <h2>
        Volume, {periodInWords(overview.range)} ({frame.mode})
      </h2>
      {overview.volume.series.length === 0 ? (
        <EmptyState title={`No payments or payouts in ${frame.mode} in ${overview.range.preset === 'custom' ? 'this period' : `the ${periodInWords(overview.range)}`}.`}>
          <p>
            Successful card payments and processed payouts show here per day. {frame.mode === 'sandbox' ? 'Create a payment page with livemode=false and pay it with the test card 4242 4242 4242 4242 to see one.' : ''}
          </p>
        </EmptyState>
      ) : (
        overview.volume.series.map((series) => (
          <VolumeChart days={overview.volume.days} lastDay={utcDay(overview.range.to)} bucketDays={overview.volume.bucketDays} period={periodInWords(overview.range)} series={series} />
        ))
      )}
    </DashboardPage>
  );
}
