import type { Api } from '../../../http/types.ts';
import type { Clock } from '../../../clock.ts';
import { screen, type ScreenTools } from '../context.ts';
import { parseDayRange } from '../date-range.ts';
import type { OverviewPresenter } from '../presenters/overview.ts';
import { OverviewPage } from '../pages/overview.tsx';

/** The overview (`/:mode`): `range` (a preset) or `from`/`to` (UTC days) choose the period; a bad value is 400 naming it. */
export function registerOverviewScreen(web: Api, tools: ScreenTools, deps: { presenter: OverviewPresenter; clock: Clock }): void {
  web.get('/:mode', async (request, reply) => {
    const view = screen(tools, request, reply);
    const range = parseDayRange(request.query, deps.clock.now());
    const overview = await deps.presenter.overview(view.session.merchant, view.livemode, range);
    return view.page((frame) => OverviewPage({ frame, overview }));
  });
}
