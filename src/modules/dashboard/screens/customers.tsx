import type { Api } from '../../../http/types.ts';
import { field, notFoundPage, param, screen, type ScreenTools } from '../context.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseKycStatus, type CustomersPresenter } from '../presenters/customers.ts';
import { CustomerPage, CustomersPage } from '../pages/customers.tsx';

export function registerCustomerScreens(web: Api, tools: ScreenTools, presenter: CustomersPresenter): void {
  web.get('/:mode/customers', async (request, reply) => {
    const view = screen(tools, request, reply);
    const reference = field(request.query, 'reference', 255).trim();
    const kycStatus = parseKycStatus(field(request.query, 'kyc', 20));
    const filters = { ...(reference ? { reference } : {}), ...(kycStatus ? { kycStatus } : {}) };
    const result = await presenter.list(view.session.merchant.id, view.livemode, filters, parsePage(field(request.query, 'page', 5)));
    return view.page((frame) => CustomersPage({ frame, filters, result }));
  });

  web.get('/:mode/customers/:customerId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const customer = await presenter.detail(view.session.merchant.id, view.livemode, param(request, 'customerId'));
    if (!customer) {
      throw notFoundPage('customer');
    }
    return view.page((frame) => CustomerPage({ frame, customer }));
  });
}
