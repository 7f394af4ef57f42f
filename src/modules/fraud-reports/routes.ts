import { Type } from 'typebox';
import type { Api } from '../../http/types.ts';
import { Envelope, LivemodeQuery, errorResponses, succeeded } from '../../http/schemas.ts';
import { modeFilter, requireAuth } from '../../http/auth.ts';
import { requireSandbox } from '../payment-pages/index.ts';
import { FraudImportBody, FraudImportResult, FraudReport, FraudReportIdParams, FraudReportList, FraudReportListQuery, FraudReportTestBody } from './schemas.ts';
import type { FraudReportsService } from './service.ts';

const tags = ['Fraud reports'];

export function registerFraudReportRoutes(api: Api, fraudReports: FraudReportsService): void {
  api.get(
    '/fraud_reports',
    {
      schema: {
        tags,
        operationId: 'fraudReports_list',
        summary: 'List fraud reports',
        description:
          'Early fraud signals from card issuers and networks, one per card payment; newest `fraudIssueDate` first, then id. ' +
          'Query parameters use bracket notation: `pagination[offset]` (≥ 0, default 0), `pagination[limit]` (1–100, default 10), ' +
          '`filters[checkoutPaymentId]`, `filters[fraudIssueDateRange][start]` and `[end]` (`YYYY-MM-DD hh:mm:ss`, UTC, inclusive). ' +
          'Without `livemode` both modes are listed.',
        querystring: FraudReportListQuery,
        response: { 200: Envelope(FraudReportList), ...errorResponses(403) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded(await fraudReports.listReports(merchant, modeFilter(merchant, request.query.livemode), request.query));
    },
  );

  api.get(
    '/fraud_reports/:id',
    {
      schema: {
        tags,
        operationId: 'fraudReports_retrieve',
        summary: 'Read a fraud report',
        description: 'The id is the payment id (`checkoutPaymentId`, also the webhook `fraudReportId`).',
        querystring: LivemodeQuery,
        params: FraudReportIdParams,
        response: { 200: Envelope(Type.Object({ checkoutFraudReport: FraudReport })), ...errorResponses(403, 404) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      return succeeded({ checkoutFraudReport: await fraudReports.getReport(merchant, modeFilter(merchant, request.query.livemode), request.params.id) });
    },
  );

  api.post(
    '/test_helpers/fraud_reports',
    {
      schema: {
        tags: ['Test helpers'],
        operationId: 'testHelpers_fraudReports_create',
        summary: 'Report fraud on a sandbox card payment',
        description:
          'Sandbox only (live → 403 FORBIDDEN). Creates the payment’s fraud report (FRAUD_REPORTED follows) or, when it already has one, answers it unchanged.',
        querystring: LivemodeQuery,
        body: FraudReportTestBody,
        response: { 200: Envelope(Type.Object({ checkoutFraudReport: FraudReport })), ...errorResponses(403, 404, 409) },
      },
    },
    async (request) => {
      const { merchant } = requireAuth(request);
      requireSandbox(request.query.livemode);
      const { report } = await fraudReports.createTestReport(merchant, request.body);
      return succeeded({ checkoutFraudReport: report });
    },
  );
}

/** Operator API: import a card network's issuer-fraud file (`/admin/v1/fraud_imports`). */
export function registerFraudImportAdminRoutes(admin: Api, fraudReports: FraudReportsService): void {
  admin.post(
    '/fraud_imports',
    {
      schema: {
        tags: ['Admin'],
        security: [{ adminBearer: [] }],
        operationId: 'adminFraudImports_create',
        summary: "Import a card network's issuer-fraud file",
        description:
          'CSV in the documented layout of `network` (Visa TC40 or Mastercard SAFE fraud type codes; docs/fraud-reports.md). Rows are matched by network transaction id, ' +
          'else by BIN + last 4 + amount + transaction date. Unmatched rows are reported back, never guessed; a payment that already has a report is a duplicate.',
        body: FraudImportBody,
        response: { 200: Envelope(FraudImportResult), ...errorResponses() },
      },
    },
    async (request) => succeeded(await fraudReports.importNetworkFile(request.body)),
  );
}
