import type { Api } from '../../../http/types.ts';
import type { Clock } from '../../../clock.ts';
import { screen, type ScreenTools } from '../context.ts';
import type { OverviewPresenter } from '../presenters/overview.ts';
import { OverviewPage } from '../pages/overview.tsx';

export function registerOverviewScreen(web: Api, tools: ScreenTools, deps: { presenter: OverviewPresenter; clock: Clock }): void {
  web.get('/:mode', async (request, reply) => {
    const view = screen(tools, request, reply);
    const overview = await deps.presenter.overview(view.session.merchant, view.livemode, deps.clock.now());
    return view.page((frame) => OverviewPage({ frame, overview }));
  });
}
