import type { Api } from '../../../http/types.ts';
import type { KycReviews } from '../../kyc/review.ts';
import { field, noticeOf, notFoundPage, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseKycStatus, type CustomersPresenter } from '../presenters/customers.ts';
import { CustomerPage, CustomersPage } from '../pages/customers.tsx';

export function registerCustomerScreens(web: Api, tools: ScreenTools, presenter: CustomersPresenter, reviews: KycReviews): void {
  web.get('/:mode/customers', async (request, reply) => {
    const view = screen(tools, request, reply);
    const reference = field(request.query, 'reference', 255).trim();
    const kycStatus = parseKycStatus(field(request.query, 'kyc', 20));
    const filters = { ...(reference ? { reference } : {}), ...(kycStatus ? { kycStatus } : {}) };
    const result = await presenter.list(view.session.merchant.id, view.livemode, filters, parsePage(field(request.query, 'page', 5)));
    const inReview = await reviews.listInReview(view.session.merchant.id, view.livemode);
    return view.page((frame) => CustomersPage({ frame, filters, result, inReview }));
  });

  web.get('/:mode/customers/:customerId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const customer = await presenter.detail(view.session.merchant.id, view.livemode, param(request, 'customerId'));
    if (!customer) {
      throw notFoundPage('customer');
    }
    const review = (await reviews.listInReview(view.session.merchant.id, view.livemode)).find((item) => item.customerId === customer.id) ?? null;
    return view.page((frame) => CustomerPage({ frame, customer, review, ...noticeOf(request) }));
  });

  // The merchant's review decision (audited as this dashboard user).
  web.post('/:mode/customers/:customerId/kyc-review', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'customerId');
    const decision = field(request.body, 'decision', 20);
    const reason = field(request.body, 'reason', 600);
    return runAction(reply, modePath(view.mode, `/customers/${encodeURIComponent(id)}`), decision === 'APPROVED' ? 'kyc-approved' : 'kyc-rejected', () =>
      reviews.decide(view.session.merchant.id, view.livemode, id, { decision: decision as 'APPROVED' | 'REJECTED', reason }, `dashboard:${view.session.userId}`),
    );
  });
}
