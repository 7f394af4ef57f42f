import type { Api } from '../../../http/types.ts';
import { field, screen, type ScreenTools } from '../context.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseDisputeStatus, type DisputesPresenter } from '../presenters/disputes.ts';
import { DisputesPage } from '../pages/disputes.tsx';

export function registerDisputeScreens(web: Api, tools: ScreenTools, presenter: DisputesPresenter): void {
  web.get('/:mode/disputes', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parseDisputeStatus(field(request.query, 'status', 20));
    const result = await presenter.list(view.session.merchant.id, view.livemode, status ? { status } : {}, parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => DisputesPage({ frame, status, result }));
  });
}
