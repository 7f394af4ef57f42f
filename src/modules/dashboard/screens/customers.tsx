import type { Api } from '../../../http/types.ts';
import type { KycReviews } from '../../kyc/index.ts';
import type { CustomerExportService, ErasureService } from '../../data-rights/index.ts';
import { AppError } from '../../../http/errors.ts';
import { field, noticeOf, notFoundPage, param, runAction, screen, type ScreenTools } from '../context.ts';
import { modePath } from '../paths.ts';
import { parsePage } from '../presenters/pagination.ts';
import { parseKycStatus, type CustomersPresenter } from '../presenters/customers.ts';
import { CustomerPage, CustomersPage } from '../pages/customers.tsx';
import { eraseCustomerConfirmation } from '../pages/confirmations.tsx';
import { confirmThenRun } from './confirm.ts';
import { sendCsv } from '../csv.ts';
import { parseListPeriod } from '../date-range.ts';
import { storyCsvColumns, storyLists } from '../presenters/customer-story.ts';

/** The customers CSV: the list's columns (name and e-mail as the list shows them). */
export const customerCsvColumns = ['id', 'referenceId', 'name', 'email', 'kycStatus', 'createdAt'] as const;

export function registerCustomerScreens(web: Api, tools: ScreenTools, presenter: CustomersPresenter, reviews: KycReviews, dataRights: { erasure: ErasureService; customerExport: CustomerExportService }): void {
  web.get('/:mode/customers', async (request, reply) => {
    const view = screen(tools, request, reply);
    const reference = field(request.query, 'reference', 255).trim();
    const kycStatus = parseKycStatus(field(request.query, 'kyc', 20));
    const email = field(request.query, 'email', 254).trim();
    const filters = { ...(reference ? { reference } : {}), ...(kycStatus ? { kycStatus } : {}), ...(email ? { email } : {}) };
    const period = parseListPeriod(request.query);
    const result = await presenter.list(view.session.merchant.id, view.livemode, filters, parsePage(field(request.query, 'page', 5)), period);
    const inReview = await reviews.listInReview(view.session.merchant.id, view.livemode);
    return view.page((frame) => CustomersPage({ frame, filters, period, result, inReview }));
  });

  // The list's CSV: the same filters; the name and e-mail only because the list shows them.
  web.get('/:mode/customers/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const reference = field(request.query, 'reference', 255).trim();
    const kycStatus = parseKycStatus(field(request.query, 'kyc', 20));
    const email = field(request.query, 'email', 254).trim();
    const filters = { ...(reference ? { reference } : {}), ...(kycStatus ? { kycStatus } : {}), ...(email ? { email } : {}) };
    const rows = presenter.exportRows(view.session.merchant.id, view.livemode, filters, parseListPeriod(request.query));
    return sendCsv(request, reply, { filename: `customers-${view.mode}.csv`, columns: customerCsvColumns, rows });
  });

  web.get('/:mode/customers/:customerId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const period = parseListPeriod(request.query);
    const customer = await presenter.detail(view.session.merchant.id, view.livemode, param(request, 'customerId'), period);
    if (!customer) {
      throw notFoundPage('customer');
    }
    const review = (await reviews.listInReview(view.session.merchant.id, view.livemode)).find((item) => item.customerId === customer.id) ?? null;
    return view.page((frame) => CustomerPage({ frame, customer, review, period, ...noticeOf(request) }));
  });

  // Each list of the customer's screen as CSV, the screen's period applied: every row, not only the latest the screen shows.
  for (const list of storyLists) {
    web.get(`/:mode/customers/:customerId/${list}/export.csv`, async (request, reply) => {
      const view = screen(tools, request, reply);
      const customerId = param(request, 'customerId');
      const rows = await presenter.exportStory(list, view.session.merchant.id, view.livemode, customerId, parseListPeriod(request.query));
      if (!rows) {
        throw notFoundPage('customer');
      }
      return sendCsv(request, reply, { filename: `customer-${customerId}-${list}-${view.mode}.csv`, columns: storyCsvColumns[list], rows });
    });
  }

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

  // Erasing (right to erasure): confirmed first (decision 0030); refusals come back as notices.
  web.post('/:mode/customers/:customerId/erase', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'customerId');
    const back = modePath(view.mode, `/customers/${encodeURIComponent(id)}`);
    return confirmThenRun(view, request, reply, {
      section: 'customers',
      back,
      confirmation: async () => {
        const customer = await presenter.detail(view.session.merchant.id, view.livemode, id);
        if (!customer) {
          throw notFoundPage('customer');
        }
        return eraseCustomerConfirmation(customer);
      },
      notice: 'customer-erased',
      action: async () => {
        try {
          await dataRights.erasure.eraseCustomer(view.session.merchant, view.livemode, id);
        } catch (error) {
          if (error instanceof AppError && error.code === 'INVALID_STATE') {
            throw new AppError('INVALID_STATE', error.message, { notice: 'erase-open-payout' });
          }
          throw error;
        }
      },
    });
  });

  // The right of access: the same document as GET /v1/customers/:id/export, as a download.
  web.get('/:mode/customers/:customerId/export', async (request, reply) => {
    const view = screen(tools, request, reply);
    const id = param(request, 'customerId');
    const document = await dataRights.customerExport.exportCustomer(view.session.merchant, view.livemode, id).catch((error: unknown) => {
      throw error instanceof AppError && error.code === 'NOT_FOUND' ? notFoundPage('customer') : error;
    });
    return reply
      .header('content-disposition', `attachment; filename="customer-${document.customer.id}.json"`)
      .type('application/json; charset=utf-8')
      .send(JSON.stringify(document, null, 2));
  });
}
