import type { Api } from '../../../http/types.ts';
import { AppError } from '../../../http/errors.ts';
import { field, param, screen, type ScreenTools } from '../context.ts';
import { parsePage } from '../presenters/pagination.ts';
import type { FraudReportFilters, FraudReportsPresenter } from '../presenters/fraud-reports.ts';
import { FraudReportPage, FraudReportsPage } from '../pages/fraud-reports.tsx';
import { sendCsv } from '../csv.ts';

/** The fraud reports CSV: the list's columns (the card number masked as the API gives it). */
export const fraudReportCsvColumns = ['checkoutPaymentId', 'clientReferenceId', 'fraudReason', 'fraudAmountUSD', 'fraudIssueDate', 'transactionDate', 'cardNumber', 'network', 'fraudType'] as const;

function filtersOf(query: unknown): FraudReportFilters {
  const filters: FraudReportFilters = {};
  const paymentId = field(query, 'paymentId', 100).trim();
  const from = field(query, 'from', 19).trim();
  const until = field(query, 'until', 19).trim();
  if (paymentId) {
    filters.paymentId = paymentId;
  }
  if (from) {
    filters.from = from;
  }
  if (until) {
    filters.until = until;
  }
  return filters;
}

export function registerFraudReportScreens(web: Api, tools: ScreenTools, presenter: FraudReportsPresenter): void {
  // The CSV of the same filters; a bad day is refused (400 naming it) before the download starts.
  web.get('/:mode/fraud-reports/export.csv', async (request, reply) => {
    const view = screen(tools, request, reply);
    const filters = filtersOf(request.query);
    await presenter.list(view.session.merchant, view.livemode, filters, 1);
    return sendCsv(request, reply, { filename: `fraud-reports-${view.mode}.csv`, columns: fraudReportCsvColumns, rows: presenter.exportRows(view.session.merchant, view.livemode, filters) });
  });

  web.get('/:mode/fraud-reports', async (request, reply) => {
    const view = screen(tools, request, reply);
    const filters = filtersOf(request.query);
    try {
      const result = await presenter.list(view.session.merchant, view.livemode, filters, parsePage(field(request.query, 'page', 5)));
      return view.page((frame) => FraudReportsPage({ frame, filters, result }));
    } catch (error) {
      if (error instanceof AppError && error.code === 'WRONG_PARAMETER') {
        const message = /start.*after/.test(error.message) ? 'The “from” day must not be after the “until” day.' : 'Enter the days as YYYY-MM-DD.';
        return view.page((frame) => FraudReportsPage({ frame, filters, result: null, error: message }), { status: 400 });
      }
      throw error;
    }
  });

  web.get('/:mode/fraud-reports/:reportId', async (request, reply) => {
    const view = screen(tools, request, reply);
    const { report, payment } = await presenter.detail(view.session.merchant, view.livemode, param(request, 'reportId'));
    return view.page((frame) => FraudReportPage({ frame, report, payment, paymentPages: tools.sections.includes('payment-pages') }));
  });
}
