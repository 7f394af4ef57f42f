import type { Api } from '../../../http/types.ts';
import { field, screen, type ScreenTools } from '../context.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseDisputeStatus, type DisputesPresenter } from '../presenters/disputes.ts';
import { DisputesPage } from '../pages/disputes.tsx';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';

/** The disputes CSV: the list's columns, amounts in minor units as the API gives them. */
export const disputeCsvColumns = ['id', 'status', 'reason', 'amount', 'currency', 'paymentId', 'pageId', 'clientReferenceId', 'evidenceDueBy', 'createdAt', 'closedAt', 'processorReference'] as const;

export function registerDisputeScreens(web: Api, tools: ScreenTools, presenter: DisputesPresenter): void {
  web.get('/:mode/disputes', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parseDisputeStatus(field(request.query, 'status', 20));
    const period = parseListPeriod(request.query);
    const result = await presenter.list(view.session.merchant.id, view.livemode, status ? { status } : {}, parsePage(field(request.query, 'page', 5)), period);
    return view.page((frame) => DisputesPage({ frame, status, period, result }));
  });

  web.get('/:mode/disputes/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const status = parseDisputeStatus(field(request.query, 'status', 20));
    const rows = presenter.exportRows(view.session.merchant.id, view.livemode, status ? { status } : {}, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `disputes-${view.mode}.csv`, columns: disputeCsvColumns, rows });
  });
}
