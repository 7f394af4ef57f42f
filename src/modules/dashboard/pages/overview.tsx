import { modePath, withQuery } from '../paths.ts';
import type { OverviewView } from '../presenters/overview.ts';
import { DataTable, EmptyState, Money } from './components.tsx';
import { VolumeChart } from './chart.tsx';
import { DashboardPage, type Frame } from './layout.tsx';

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
      <h2>Volume, last 30 days ({frame.mode})</h2>
      {overview.volume.series.length === 0 ? (
        <EmptyState title={`No payments or payouts in ${frame.mode} in the last 30 days.`}>
          <p>
            Successful card payments and processed payouts show here per day. {frame.mode === 'sandbox' ? 'Create a payment page with livemode=false and pay it with the test card 4242 4242 4242 4242 to see one.' : ''}
          </p>
        </EmptyState>
      ) : (
        overview.volume.series.map((series) => <VolumeChart days={overview.volume.days} series={series} />)
      )}
    </DashboardPage>
  );
}
