import type { Merchant } from '../../merchants/index.ts';
import type { FraudReportListInput, FraudReportResponse, FraudReportsService } from '../../fraud-reports/index.ts';
import { pageSize, type PageOf } from './pagination.ts';
import type { PaymentPagesPresenter } from './payment-pages.ts';

/** The API's fraud report filters as the dashboard's form sends them (dates are UTC days). */
export interface FraudReportFilters {
  paymentId?: string;
  /** `YYYY-MM-DD`: issued on or after that UTC day. */
  from?: string;
  /** `YYYY-MM-DD`: issued on or before that UTC day. */
  until?: string;
}

const dayPattern = /^\d{4}-\d{2}-\d{2}$/;
/** The API's largest page. */
const exportPageSize = 100;

/** The API's query for the form's filters (a bare day becomes the day's first or last second). */
function queryOf(filters: FraudReportFilters, offset: number, limit: number): FraudReportListInput {
  const query: FraudReportListInput = { 'pagination[offset]': offset, 'pagination[limit]': limit };
  if (filters.paymentId) {
    query['filters[checkoutPaymentId]'] = filters.paymentId;
  }
  if (filters.from) {
    query['filters[fraudIssueDateRange][start]'] = dayPattern.test(filters.from) ? `${filters.from} 00:00:00` : filters.from;
  }
  if (filters.until) {
    query['filters[fraudIssueDateRange][end]'] = dayPattern.test(filters.until) ? `${filters.until} 23:59:59` : filters.until;
  }
  return query;
}

/**
 * Read model of the fraud report screens: the list and the report through the fraud reports
 * service (the API's own filters and order), the report's payment from the payment read model.
 */
export function createFraudReportsPresenter(deps: { fraudReports: FraudReportsService; payments: PaymentPagesPresenter }) {
  return {
    /** Throws WRONG_PARAMETER for dates the API would refuse. */
    async list(merchant: Merchant, livemode: boolean, filters: FraudReportFilters, page: number): Promise<PageOf<FraudReportResponse> & { count: number }> {
      const result = await deps.fraudReports.listReports(merchant, livemode, queryOf(filters, (page - 1) * pageSize, pageSize));
      return { items: result.checkoutFraudReports, page, hasMore: result.hasMore, count: result.count };
    },

    /** Every report the filters select, in the API's order, read 100 at a time (the CSV export). */
    async *exportRows(merchant: Merchant, livemode: boolean, filters: FraudReportFilters): AsyncGenerator<FraudReportResponse> {
      for (let offset = 0; ; offset += exportPageSize) {
        const result = await deps.fraudReports.listReports(merchant, livemode, queryOf(filters, offset, exportPageSize));
        yield* result.checkoutFraudReports;
        if (!result.hasMore) {
          return;
        }
      }
    },

    /** The report with its payment; throws NOT_FOUND outside the merchant and mode. */
    async detail(merchant: Merchant, livemode: boolean, id: string) {
      const report = await deps.fraudReports.getReport(merchant, livemode, id);
      const payment = await deps.payments.payment(merchant.id, livemode, report.checkoutPaymentId);
      return { report, payment };
    },
  };
}

export type FraudReportsPresenter = ReturnType<typeof createFraudReportsPresenter>;
